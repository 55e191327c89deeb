import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectEnvelope, key } from "../helpers/rest.js";
import { ManualClock } from "../../services/clock.js";
import { startStack, type Stack } from "../helpers/stack.js";

let s: Stack;
/** A second stack whose device codes live one second, on a clock the test moves. */
let short: Stack;
const shortClock = new ManualClock();
beforeAll(async () => {
  [s, short] = await Promise.all([startStack(), startStack({ deviceCodeTtlSeconds: 1 }, { clock: shortClock })]);
});
afterAll(async () => {
  await Promise.all([s?.close(), short?.close()]);
});

async function create(st: Stack = s, payload?: object) {
  const res = await st.rest.inject({
    method: "POST",
    url: "/api/v1/auth/device-code",
    ...(payload ? { payload } : {}),
  });
  expect(res.statusCode).toBe(201);
  return res.json<{
    device_code: string;
    user_code: string;
    verification_url: string;
    expires_in: number;
    interval: number;
  }>();
}
const poll = (device_code: string, st: Stack = s) =>
  st.rest.inject({ method: "POST", url: "/api/v1/auth/device-code/poll", payload: { device_code } });
/** apiKey null sends no key at all. */
const decide = (action: "approve" | "deny", payload: object, apiKey: string | null = s.adminKey, st: Stack = s) =>
  st.rest.inject({
    method: "POST",
    url: `/api/v1/auth/device-code/${action}`,
    headers: apiKey ? key(apiKey) : {},
    payload,
  });

describe("device-code login over REST", () => {
  it("create needs no key and returns the code, user code, URL, TTL and interval", async () => {
    const c = await create();
    expect(Object.keys(c).sort()).toEqual(["device_code", "expires_in", "interval", "user_code", "verification_url"]);
    expect(c.user_code).toMatch(/^[BCDFGHJKLMNPQRSTVWXZ]{4}-[BCDFGHJKLMNPQRSTVWXZ]{4}$/);
    expect(c.verification_url).toMatch(new RegExp(`/device\\?user_code=${c.user_code}$`));
    expect(c.expires_in).toBe(600);
    expect(c.interval).toBe(5);
    const named = await create(s, { name: "my laptop" });
    expect(named.device_code).not.toBe(c.device_code);
  });

  it("the verification page tells the operator what to do", async () => {
    const c = await create();
    const res = await s.rest.inject({ method: "GET", url: `/device?user_code=${c.user_code}` });
    expect(res.statusCode).toBe(200);
    expect(res.body).toContain(`coffer device approve ${c.user_code}`);
  });

  it("pending → 200 authorization_pending, and nothing else", async () => {
    const c = await create();
    const res = await poll(c.device_code);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: "authorization_pending" });
  });

  it("approved → the token exactly once; later polls are {status:'approved'} with no token key", async () => {
    const c = await create(s, { name: "cli on laptop" });
    const d = await decide("approve", { user_code: c.user_code, scope: "read_only" });
    expect(d.statusCode).toBe(200);
    expect(d.json()).toEqual({ user_code: c.user_code, status: "approved", scope: "read_only", name: "cli on laptop" });

    const first = await poll(c.device_code);
    expect(first.statusCode).toBe(200);
    expect(Object.keys(first.json()).sort()).toEqual(["status", "token"]);
    expect(first.json().status).toBe("approved");
    const token = first.json().token as string;
    expect(token).toMatch(/^cf_[0-9A-Za-z]{43}$/);

    for (let i = 0; i < 2; i++) {
      const later = await poll(c.device_code);
      expect(later.statusCode).toBe(200);
      expect(later.json()).toEqual({ status: "approved" });
      expect(later.body).not.toContain("token");
    }

    // The token is an API key with the approved scope.
    const me = await s.rest.inject({ method: "GET", url: "/api/v1/keys/me", headers: key(token) });
    expect(me.statusCode).toBe(200);
    expect(me.json()).toMatchObject({ scope: "read_only", name: "cli on laptop", actor_type: "agent" });
    expect((await s.rest.inject({ method: "GET", url: "/api/v1/users", headers: key(token) })).statusCode).toBe(200);
    expectEnvelope(
      await s.rest.inject({ method: "POST", url: "/api/v1/users", headers: key(token), payload: { name: "x" } }),
      "INSUFFICIENT_SCOPE",
    );
  });

  it("an approved full_access token may write", async () => {
    const c = await create();
    await decide("approve", { user_code: c.user_code.toLowerCase(), scope: "full_access", name: "admin tablet" });
    const token = (await poll(c.device_code)).json().token;
    const me = await s.rest.inject({ method: "GET", url: "/api/v1/keys/me", headers: key(token) });
    expect(me.json()).toMatchObject({ scope: "full_access", name: "admin tablet" });
    const created = await s.rest.inject({
      method: "POST",
      url: "/api/v1/users",
      headers: key(token),
      payload: { name: "Via device" },
    });
    expect(created.statusCode).toBe(201);
  });

  it("denied → 400 DENIED", async () => {
    const c = await create();
    const d = await decide("deny", { user_code: c.user_code });
    expect(d.statusCode).toBe(200);
    expect(d.json()).toEqual({ user_code: c.user_code, status: "denied" });
    expectEnvelope(await poll(c.device_code), "DENIED");
    expectEnvelope(await poll(c.device_code), "DENIED");
  });

  it("expired (short TTL) → 400 EXPIRED, and deciding it → 400 EXPIRED", async () => {
    const [a, b] = await Promise.all([create(short), create(short)]);
    expect(a.expires_in).toBe(1);
    expect((await poll(a.device_code, short)).json()).toEqual({ status: "authorization_pending" });
    shortClock.advance(999);
    expect((await poll(a.device_code, short)).json()).toEqual({ status: "authorization_pending" });
    shortClock.advance(1);
    expectEnvelope(await poll(a.device_code, short), "EXPIRED");
    expectEnvelope(await decide("approve", { user_code: b.user_code }, short.adminKey, short), "EXPIRED");
    expectEnvelope(await decide("deny", { user_code: b.user_code }, short.adminKey, short), "EXPIRED");
    expectEnvelope(await poll(b.device_code, short), "EXPIRED");
  });

  it.each(["does-not-exist", "x".repeat(43)])("unknown device code %j → 404 INVALID_DEVICE_CODE", async (code) => {
    expectEnvelope(await poll(code), "INVALID_DEVICE_CODE");
  });

  it.each([
    ["no device_code", {}],
    ["an empty device_code", { device_code: "" }],
    ["a numeric device_code", { device_code: 5 }],
  ])("poll with %s → 400 INVALID_PARAMETER naming device_code", async (_what, payload) => {
    const res = await s.rest.inject({ method: "POST", url: "/api/v1/auth/device-code/poll", payload });
    expect(expectEnvelope(res, "INVALID_PARAMETER").message).toContain("device_code");
  });

  it.each([
    ["approve", "approve"],
    ["approve", "deny"],
    ["deny", "approve"],
    ["deny", "deny"],
  ] as const)("deciding twice (%s then %s) → 409 CONFLICT", async (first, second) => {
    const c = await create();
    expect((await decide(first, { user_code: c.user_code })).statusCode).toBe(200);
    expectEnvelope(await decide(second, { user_code: c.user_code }), "CONFLICT");
  });

  it.each(["approve", "deny"] as const)("%s of an unknown user code → 404 INVALID_DEVICE_CODE", async (action) => {
    expectEnvelope(await decide(action, { user_code: "BCDF-GHJK" }), "INVALID_DEVICE_CODE");
    expectEnvelope(await decide(action, { user_code: "nonsense" }), "INVALID_DEVICE_CODE");
  });

  it.each(["approve", "deny"] as const)("%s needs full_access: read key → 403, no key → 401", async (action) => {
    const c = await create();
    expectEnvelope(await decide(action, { user_code: c.user_code }, s.readKey), "INSUFFICIENT_SCOPE");
    expectEnvelope(await decide(action, { user_code: c.user_code }, null), "MISSING_CREDENTIALS");
    expect((await poll(c.device_code)).json()).toEqual({ status: "authorization_pending" });
  });

  it("approve with an unknown scope → 400 INVALID_PARAMETER naming scope", async () => {
    const c = await create();
    const err = expectEnvelope(await decide("approve", { user_code: c.user_code, scope: "root" }), "INVALID_PARAMETER");
    expect(err.message).toContain("scope");
  });

  it("create and poll ignore a bad X-API-Key: the device code is the credential", async () => {
    const res = await s.rest.inject({ method: "POST", url: "/api/v1/auth/device-code", headers: key("junk") });
    expect(res.statusCode).toBe(201);
    const pollRes = await s.rest.inject({
      method: "POST",
      url: "/api/v1/auth/device-code/poll",
      headers: key("junk"),
      payload: { device_code: res.json().device_code },
    });
    expect(pollRes.json()).toEqual({ status: "authorization_pending" });
  });
});
