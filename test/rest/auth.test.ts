import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateApiKey } from "../../services/auth/key-hash.js";
import type { ErrorCode } from "../../common/errors.js";
import { expectEnvelope, key } from "../helpers/rest.js";
import { startStack, type Stack } from "../helpers/stack.js";

let s: Stack;
let revoked: string;
beforeAll(async () => {
  s = await startStack();
  const created = await s.rest.inject({
    method: "POST",
    url: "/api/v1/api-keys",
    headers: key(s.adminKey),
    payload: { name: "gone", scope: "full_access" },
  });
  revoked = created.json().key;
  await s.rest.inject({
    method: "DELETE",
    url: `/api/v1/api-keys/${created.json().short_id}`,
    headers: key(s.adminKey),
  });
});
afterAll(async () => {
  await s?.close();
});

type Req = { method: "GET" | "POST" | "PATCH" | "DELETE"; url: string; payload?: object };
const endpoints: [string, Req][] = [
  ["GET /api/v1/keys/me", { method: "GET", url: "/api/v1/keys/me" }],
  ["GET /api/v1/users", { method: "GET", url: "/api/v1/users" }],
  ["GET /api/v1/users/{id}", { method: "GET", url: "/api/v1/users/abcdefgh" }],
  ["POST /api/v1/users", { method: "POST", url: "/api/v1/users", payload: { name: "X" } }],
  ["GET /api/v1/api-keys", { method: "GET", url: "/api/v1/api-keys" }],
  ["POST /api/v1/api-keys", { method: "POST", url: "/api/v1/api-keys", payload: { name: "x", scope: "read_only" } }],
  ["DELETE /api/v1/api-keys/{id}", { method: "DELETE", url: "/api/v1/api-keys/abcdefgh" }],
  [
    "POST /api/v1/auth/device-code/approve",
    { method: "POST", url: "/api/v1/auth/device-code/approve", payload: { user_code: "BCDF-GHJK" } },
  ],
  [
    "POST /api/v1/auth/device-code/deny",
    { method: "POST", url: "/api/v1/auth/device-code/deny", payload: { user_code: "BCDF-GHJK" } },
  ],
];

const credentials: [string, () => Record<string, string>, ErrorCode][] = [
  ["no key", () => ({}), "MISSING_CREDENTIALS"],
  ["an unknown key", () => key(generateApiKey()), "INVALID_API_KEY"],
  ["a malformed key", () => key("hunter2"), "INVALID_API_KEY"],
  ["a revoked key", () => key(revoked), "REVOKED_API_KEY"],
];

describe("REST auth status codes", () => {
  it.each(
    endpoints.flatMap(([name, req]) => credentials.map(([what, h, code]) => [name, what, req, h, code] as const)),
  )("%s with %s → 401 %s", async (_name, _what, req, headers, code) => {
    expectEnvelope(await s.rest.inject({ ...req, headers: headers() }), code);
  });

  it.each(endpoints.filter(([name]) => !/^GET \/api\/v1\/(keys\/me|users)/.test(name)))(
    "%s with a read_only key → 403 INSUFFICIENT_SCOPE",
    async (_name, req) => {
      expectEnvelope(await s.rest.inject({ ...req, headers: key(s.readKey) }), "INSUFFICIENT_SCOPE");
    },
  );

  it("the error message never echoes the presented key", async () => {
    const bogus = generateApiKey();
    const res = await s.rest.inject({ method: "GET", url: "/api/v1/keys/me", headers: key(bogus) });
    expectEnvelope(res, "INVALID_API_KEY");
    expect(res.body).not.toContain(bogus);
  });
});
