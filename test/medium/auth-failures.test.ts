import { Code } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateApiKey } from "../../services/auth/key-hash.js";
import type { ErrorCode } from "../../common/errors.js";
import { expectCoreError, withKey } from "../helpers/core-error.js";
import { startStack, type Stack } from "../helpers/stack.js";

let s: Stack;
let revokedKey: string;
beforeAll(async () => {
  s = await startStack();
  const created = await s.core.apiKeys.createApiKey({ name: "to revoke", scope: "full_access" }, withKey(s.adminKey));
  revokedKey = created.key;
  await s.core.apiKeys.revokeApiKey({ id: created.apiKey!.shortId }, withKey(s.adminKey));
});
afterAll(async () => {
  await s?.close();
});

/** One call per kind of RPC: a plain read, a sensitive read and a write. */
const calls = {
  "UserService/ListUsers": (st: Stack, o?: object) => st.core.users.listUsers({}, o),
  "ApiKeyService/GetCurrentKey": (st: Stack, o?: object) => st.core.apiKeys.getCurrentKey({}, o),
  "ApiKeyService/ListApiKeys": (st: Stack, o?: object) => st.core.apiKeys.listApiKeys({}, o),
  "UserService/CreateUser": (st: Stack, o?: object) => st.core.users.createUser({ name: "Nobody" }, o),
  "DeviceCodeService/ApproveDeviceCode": (st: Stack, o?: object) =>
    st.core.deviceCodes.approveDeviceCode({ userCode: "BCDF-GHJK" }, o),
};
type CallName = keyof typeof calls;
const names = Object.keys(calls) as CallName[];

const credentials: [string, (st: Stack) => object | undefined, ErrorCode][] = [
  ["no key", () => undefined, "MISSING_CREDENTIALS"],
  ["an empty key", () => withKey(""), "MISSING_CREDENTIALS"],
  ["an unknown well-formed key", () => withKey(generateApiKey()), "INVALID_API_KEY"],
  ["a malformed key", () => withKey("not-a-key"), "INVALID_API_KEY"],
  ["a key with the wrong prefix", () => withKey("xx_" + generateApiKey().slice(3)), "INVALID_API_KEY"],
  ["an SQL-ish key", () => withKey("' OR 1=1 --"), "INVALID_API_KEY"],
  ["a revoked key", () => withKey(revokedKey), "REVOKED_API_KEY"],
];

describe("the core's auth interceptor", () => {
  const rows = names.flatMap((n) => credentials.map(([what, opts, code]) => [n, what, opts, code] as const));

  it.each(rows)("%s with %s → %s", async (name, _what, opts, code) => {
    await expectCoreError(calls[name](s, opts(s)), code);
  });

  it.each(["UserService/CreateUser", "ApiKeyService/ListApiKeys", "DeviceCodeService/ApproveDeviceCode"] as CallName[])(
    "%s with a read_only key → INSUFFICIENT_SCOPE (PermissionDenied)",
    async (name) => {
      const f = await expectCoreError(calls[name](s, withKey(s.readKey)), "INSUFFICIENT_SCOPE");
      expect(f.connectCode).toBe(Code.PermissionDenied);
      expect(f.message).toMatch(/full_access/);
    },
  );

  it.each(["UserService/ListUsers", "ApiKeyService/GetCurrentKey"] as CallName[])(
    "%s works with a read_only key",
    async (name) => {
      await expect(calls[name](s, withKey(s.readKey))).resolves.toBeDefined();
    },
  );

  it("missing and invalid keys are Unauthenticated", async () => {
    expect((await expectCoreError(calls["UserService/ListUsers"](s), "MISSING_CREDENTIALS")).connectCode).toBe(
      Code.Unauthenticated,
    );
    const f = await expectCoreError(calls["UserService/ListUsers"](s, withKey("nope")), "INVALID_API_KEY");
    expect(f.connectCode).toBe(Code.Unauthenticated);
    // The message never echoes what was presented.
    expect(f.message).not.toContain("nope");
  });

  it.each([
    ["SystemService/GetVersion", (st: Stack) => st.core.system.getVersion({})],
    ["SystemService/CheckReady", (st: Stack) => st.core.system.checkReady({})],
    ["DeviceCodeService/CreateDeviceCode", (st: Stack) => st.core.deviceCodes.createDeviceCode({})],
    ["SystemService/GetVersion with a bad key", (st: Stack) => st.core.system.getVersion({}, withKey("junk"))],
  ])("public RPC %s needs no key", async (_name, call) => {
    await expect(call(s)).resolves.toBeDefined();
  });
});
