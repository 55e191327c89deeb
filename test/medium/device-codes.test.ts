import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectCoreError, withKey } from "../helpers/core-error.js";
import { startStack, type Stack } from "../helpers/stack.js";

let s: Stack;
let admin: ReturnType<typeof withKey>;
beforeAll(async () => {
  s = await startStack({ deviceCodeTtlSeconds: 300, publicUrl: "https://coffer.example" });
  admin = withKey(s.adminKey);
});
afterAll(async () => {
  await s?.close();
});

const newCode = (name?: string) => s.core.deviceCodes.createDeviceCode({ name });
const poll = (deviceCode: string) => s.core.deviceCodes.pollDeviceCode({ deviceCode });

/** Moves a code past its TTL straight in the database, instead of waiting. */
async function expire(userCode: string) {
  await s.orm.em
    .fork()
    .getConnection()
    .execute("update device_codes set expires_at = now() - interval '1 second' where user_code = ?", [userCode]);
}

describe("DeviceCodeService (core)", () => {
  it("creates a code without a key", async () => {
    const c = await newCode();
    expect(c.deviceCode).toMatch(/^[A-Za-z0-9_-]{43}$/);
    expect(c.userCode).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(c.verificationUrl).toBe(`https://coffer.example/device?user_code=${c.userCode}`);
    expect(c.expiresIn).toBe(300);
    expect(c.interval).toBe(5);
    // The device code is a credential: only its hash is stored.
    const rows = await s.orm.em
      .fork()
      .getConnection()
      .execute("select * from device_codes where user_code = ?", [c.userCode]);
    expect(JSON.stringify(rows)).not.toContain(c.deviceCode);
  });

  it("pending → authorization_pending, with no token", async () => {
    const c = await newCode();
    const r = await poll(c.deviceCode);
    expect(r.status).toBe("authorization_pending");
    expect(r.token).toBeUndefined();
  });

  it("approved → the token on the first poll only; it works with the approved scope and name", async () => {
    const c = await newCode("my agent");
    const d = await s.core.deviceCodes.approveDeviceCode(
      { userCode: c.userCode.toLowerCase(), scope: "full_access", name: "kitchen tablet" },
      admin,
    );
    expect(d.decision).toMatchObject({
      userCode: c.userCode,
      status: "approved",
      scope: "full_access",
      name: "kitchen tablet",
    });
    const first = await poll(c.deviceCode);
    expect(first.status).toBe("approved");
    expect(first.token).toMatch(/^cf_[0-9A-Za-z]{43}$/);
    const second = await poll(c.deviceCode);
    expect(second).toMatchObject({ status: "approved" });
    expect(second.token).toBeUndefined();
    const me = await s.core.apiKeys.getCurrentKey({}, withKey(first.token!));
    expect(me.apiKey).toMatchObject({ name: "kitchen tablet", scope: "full_access", actorType: "agent" });
    // The token is not kept anywhere in the database.
    const rows = await s.orm.em
      .fork()
      .getConnection()
      .execute("select d.*, k.* from device_codes d join api_keys k on k.id = d.api_key_id where d.user_code = ?", [
        c.userCode,
      ]);
    expect(rows).toHaveLength(1);
    expect(JSON.stringify(rows)).not.toContain(first.token!);
  });

  it("approval defaults to read_only and to the name the device asked for", async () => {
    const c = await newCode("phone");
    const d = await s.core.deviceCodes.approveDeviceCode({ userCode: c.userCode }, admin);
    expect(d.decision).toMatchObject({ status: "approved", scope: "read_only", name: "phone" });
    const { token } = await poll(c.deviceCode);
    const me = await s.core.apiKeys.getCurrentKey({}, withKey(token!));
    expect(me.apiKey).toMatchObject({ scope: "read_only", name: "phone" });
  });

  it("concurrent polls after approval hand out exactly one token and create one key", async () => {
    const c = await newCode();
    await s.core.deviceCodes.approveDeviceCode({ userCode: c.userCode, name: `race ${c.userCode}` }, admin);
    const results = await Promise.all(Array.from({ length: 6 }, () => poll(c.deviceCode)));
    expect(results.every((r) => r.status === "approved")).toBe(true);
    expect(results.filter((r) => r.token !== undefined)).toHaveLength(1);
    const keys = (await s.core.apiKeys.listApiKeys({}, admin)).apiKeys.filter((k) => k.name === `race ${c.userCode}`);
    expect(keys).toHaveLength(1);
  });

  it("denied → DENIED on every poll", async () => {
    const c = await newCode();
    const d = await s.core.deviceCodes.denyDeviceCode({ userCode: c.userCode }, admin);
    expect(d.decision).toMatchObject({ userCode: c.userCode, status: "denied" });
    await expectCoreError(poll(c.deviceCode), "DENIED");
    await expectCoreError(poll(c.deviceCode), "DENIED");
  });

  it("expired → EXPIRED, and an expired code cannot be decided", async () => {
    const c = await newCode();
    await expire(c.userCode);
    await expectCoreError(poll(c.deviceCode), "EXPIRED");
    await expectCoreError(s.core.deviceCodes.approveDeviceCode({ userCode: c.userCode }, admin), "EXPIRED");
    await expectCoreError(s.core.deviceCodes.denyDeviceCode({ userCode: c.userCode }, admin), "EXPIRED");
  });

  it("a code approved but not collected before its TTL is EXPIRED and no key is made", async () => {
    const c = await newCode();
    await s.core.deviceCodes.approveDeviceCode({ userCode: c.userCode, name: `late ${c.userCode}` }, admin);
    await expire(c.userCode);
    await expectCoreError(poll(c.deviceCode), "EXPIRED");
    const keys = (await s.core.apiKeys.listApiKeys({}, admin)).apiKeys.filter((k) => k.name === `late ${c.userCode}`);
    expect(keys).toHaveLength(0);
  });

  it.each(["unknown-device-code", "x".repeat(43)])("unknown device code %j → INVALID_DEVICE_CODE", async (code) => {
    await expectCoreError(poll(code), "INVALID_DEVICE_CODE");
  });

  it("an empty device code is a VALIDATION_ERROR", async () => {
    await expectCoreError(poll(""), "VALIDATION_ERROR");
  });

  it.each([
    ["approve", (userCode: string) => s.core.deviceCodes.approveDeviceCode({ userCode }, admin)],
    ["deny", (userCode: string) => s.core.deviceCodes.denyDeviceCode({ userCode }, admin)],
  ])("a code can be decided once: %s after approve → CONFLICT", async (_what, second) => {
    const c = await newCode();
    await s.core.deviceCodes.approveDeviceCode({ userCode: c.userCode }, admin);
    await expectCoreError(second(c.userCode), "CONFLICT");
  });

  it("a denied code cannot be approved later", async () => {
    const c = await newCode();
    await s.core.deviceCodes.denyDeviceCode({ userCode: c.userCode }, admin);
    await expectCoreError(s.core.deviceCodes.approveDeviceCode({ userCode: c.userCode }, admin), "CONFLICT");
    await expectCoreError(poll(c.deviceCode), "DENIED");
  });

  it.each(["BCDF-GHJK", "", "nonsense", "' OR 1=1"])(
    "deciding an unknown user code %j → INVALID_DEVICE_CODE",
    async (userCode) => {
      await expectCoreError(s.core.deviceCodes.approveDeviceCode({ userCode }, admin), "INVALID_DEVICE_CODE");
      await expectCoreError(s.core.deviceCodes.denyDeviceCode({ userCode }, admin), "INVALID_DEVICE_CODE");
    },
  );

  it("approving with an unknown scope is a VALIDATION_ERROR and leaves the code pending", async () => {
    const c = await newCode();
    await expectCoreError(
      s.core.deviceCodes.approveDeviceCode({ userCode: c.userCode, scope: "root" }, admin),
      "VALIDATION_ERROR",
    );
    expect((await poll(c.deviceCode)).status).toBe("authorization_pending");
  });

  it("approve and deny need full_access", async () => {
    const c = await newCode();
    await expectCoreError(
      s.core.deviceCodes.approveDeviceCode({ userCode: c.userCode }, withKey(s.readKey)),
      "INSUFFICIENT_SCOPE",
    );
    await expectCoreError(
      s.core.deviceCodes.denyDeviceCode({ userCode: c.userCode }, withKey(s.readKey)),
      "INSUFFICIENT_SCOPE",
    );
    await expectCoreError(s.core.deviceCodes.approveDeviceCode({ userCode: c.userCode }), "MISSING_CREDENTIALS");
    expect((await poll(c.deviceCode)).status).toBe("authorization_pending");
  });
});
