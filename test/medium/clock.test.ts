import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createLogin } from "../../services/auth/logins.js";
import { ManualClock } from "../../services/clock.js";
import { createUser } from "../../services/users/users.js";
import { expectCoreError } from "../helpers/core-error.js";
import { key } from "../helpers/rest.js";
import { startStack, type Stack } from "../helpers/stack.js";

// The core's clock: what it decides about "now" in code follows the clock it was built with.

const clock = new ManualClock(new Date("2031-05-06T07:08:09.000Z"));
let s: Stack;
let other: Stack;

beforeAll(async () => {
  [s, other] = await Promise.all([startStack({}, { clock }), startStack()]);
});
afterAll(async () => {
  await Promise.all([s?.close(), other?.close()]);
});

const post = (st: Stack, url: string, payload: object) =>
  st.rest.inject({ method: "POST", url, headers: key(st.adminKey), payload });

describe("the core's clock", () => {
  it("stamps the records the core writes, on create and on update", async () => {
    const created = await post(s, "/api/v1/users", { name: "Clocked" });
    expect(created.statusCode).toBe(201);
    expect(created.json()).toMatchObject({
      created_at: "2031-05-06T07:08:09.000Z",
      updated_at: "2031-05-06T07:08:09.000Z",
    });
    clock.advance(90_000);
    const updated = await s.rest.inject({
      method: "PATCH",
      url: `/api/v1/users/${created.json().id}`,
      headers: key(s.adminKey),
      payload: { name: "Clocked later" },
    });
    expect(updated.statusCode).toBe(200);
    expect(updated.json()).toMatchObject({
      created_at: "2031-05-06T07:08:09.000Z",
      updated_at: "2031-05-06T07:09:39.000Z",
    });
  });

  it("is the core's own: another core on the system clock is not moved by it", async () => {
    const before = Date.now();
    const created = await post(other, "/api/v1/users", { name: "Unclocked" });
    const at = Date.parse(created.json<{ created_at: string }>().created_at);
    expect(at).toBeGreaterThanOrEqual(before - 1000);
    expect(at).toBeLessThanOrEqual(Date.now() + 1000);
  });
});

describe("decisions the database makes about now follow the core's clock", () => {
  const DAY = 24 * 3600 * 1000;
  const withSession = (token: string) => ({ headers: { "x-coffer-session": token } });
  const tokenOf = (url: string) => new URL(url).searchParams.get("token")!;
  const newLogin = async (email: string) => {
    const user = await createUser(s.orm.em.fork(), { name: email.split("@")[0] });
    const { setupUrl } = await createLogin(s.orm.em.fork(), s.config.publicUrl, {
      userId: user.id,
      email,
      role: "viewer",
    });
    return tokenOf(setupUrl);
  };

  it("ends a console session when the clock passes its expiry, without waiting", async () => {
    const opened = clock.now().getTime();
    const { sessionToken } = await s.core.sessions.completeSetup(
      { token: await newLogin("clocked@example.com"), password: "correct horse battery" },
      {},
    );
    const me = await s.core.sessions.getSession({}, withSession(sessionToken));
    // 30 days from the clock's time (2031), not from the database's.
    expect(Number(me.expiresAt!.seconds) * 1000).toBe(opened + 30 * DAY);

    // A second before it ends the session still works, and that use slides its end 30 days on.
    clock.advance(30 * DAY - 1000);
    await s.core.sessions.getSession({}, withSession(sessionToken));
    clock.advance(30 * DAY - 1000);
    await s.core.sessions.getSession({}, withSession(sessionToken));
    // Unused for 30 days: ended.
    clock.advance(30 * DAY);
    await expectCoreError(s.core.sessions.getSession({}, withSession(sessionToken)), "INVALID_CREDENTIALS");
  });

  it("expires a setup link an hour after the clock's time of issue", async () => {
    const token = await newLogin("linked@example.com");
    clock.advance(3600 * 1000 - 1000);
    expect(await s.core.sessions.getSetupToken({ token }, {})).toMatchObject({ email: "linked@example.com" });
    clock.advance(1000);
    await expectCoreError(s.core.sessions.getSetupToken({ token }, {}), "EXPIRED");
  });
});
