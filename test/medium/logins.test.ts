import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { purgeLoginLeftovers } from "../../services/auth/login-retention.js";
import { createLogin, firstRunSetupUrl } from "../../services/auth/logins.js";
import { query } from "../../services/db/sql.js";
import { createUser } from "../../services/users/users.js";
import { coreFailure, expectCoreError, withKey } from "../helpers/core-error.js";
import { startStack, type Stack } from "../helpers/stack.js";

// The core's side of console sessions, called with Connect as the REST gateway calls it.

let s: Stack;
beforeAll(async () => {
  s = await startStack();
});
afterAll(async () => {
  await s?.close();
});

const PASSWORD = "correct horse battery";
const withSession = (token: string) => ({ headers: { "x-coffer-session": token } });
/** A failure caught elsewhere, handed to the core-error helpers (which await a failing call). */
const rejected = (e: unknown) => Promise.reject(e instanceof Error ? e : new Error(String(e)));
const tokenOf = (url: string) => new URL(url).searchParams.get("token")!;

/** A household member with a login of `role`, signed in: returns the session token. */
async function signedIn(role: "admin" | "editor" | "viewer", email: string) {
  const user = await createUser(s.orm.em.fork(), { name: email.split("@")[0] });
  const { setupUrl } = await createLogin(s.orm.em.fork(), s.config.publicUrl, { userId: user.id, email, role });
  const r = await s.core.sessions.completeSetup({ token: tokenOf(setupUrl), password: PASSWORD }, {});
  return { token: r.sessionToken, user };
}

describe("first run", () => {
  it("issues first-run links only while no login exists, and only one of them creates the admin", async () => {
    const em = s.orm.em.fork();
    const a = await firstRunSetupUrl(em, s.config.publicUrl);
    const b = await firstRunSetupUrl(em, s.config.publicUrl);
    expect(a).toMatch(/\/setup\?token=/);
    const what = await s.core.sessions.getSetupToken({ token: tokenOf(a!) }, {});
    expect(what).toMatchObject({ firstRun: true, role: "admin" });
    expect(what.email).toBeUndefined();
    await expectCoreError(
      s.core.sessions.completeSetup({ token: tokenOf(a!), password: PASSWORD }, {}),
      "VALIDATION_ERROR",
    );

    // Two people open two printed links at once: one admin, the other link is spent.
    const results = await Promise.allSettled(
      [a!, b!].map((url, i) =>
        s.core.sessions.completeSetup({ token: tokenOf(url), password: PASSWORD, email: `first${i}@example.com` }, {}),
      ),
    );
    expect(results.filter((r) => r.status === "fulfilled")).toHaveLength(1);
    const refused = results.find((r): r is PromiseRejectedResult => r.status === "rejected")!;
    await expectCoreError(rejected(refused.reason), "EXPIRED");
    const admins = await query<{ n: number }>(em, `select count(*)::int as n from logins where role = 'admin'`);
    expect(admins[0].n).toBe(1);
    expect(await firstRunSetupUrl(em, s.config.publicUrl)).toBeNull();
  });
});

describe("sessions in the core's one auth path", () => {
  it("resolves x-coffer-session to the person, role and scope", async () => {
    const { token, user } = await signedIn("editor", "ed@example.com");
    const me = await s.core.sessions.getSession({}, withSession(token));
    expect(me).toMatchObject({ userId: user.shortId, userName: "ed", email: "ed@example.com", role: "editor" });
    expect(me.scope).toBe("full_access");
    // A session is not an API key.
    await expectCoreError(s.core.apiKeys.getCurrentKey({}, withSession(token)), "NOT_FOUND");
    // An API key is not a session.
    await expectCoreError(s.core.sessions.getSession({}, withKey(s.adminKey)), "MISSING_CREDENTIALS");
    await expectCoreError(s.core.accounts.listAccounts({}, withSession("x".repeat(43))), "INVALID_CREDENTIALS");
  });

  it("a key sent with a session wins", async () => {
    const { token } = await signedIn("admin", "both@example.com");
    const both = { headers: { "x-coffer-session": token, "x-api-key": s.readKey } };
    await expectCoreError(s.core.apiKeys.listApiKeys({}, both), "INSUFFICIENT_SCOPE");
  });

  it("records a change made in the console as the person", async () => {
    const { token, user } = await signedIn("editor", "rec@example.com");
    const r = await s.core.accounts.createAccount(
      { userId: user.shortId, name: "Checking", type: "depository", isoCurrencyCode: "USD" },
      withSession(token),
    );
    const [row] = await query<{ actor_type: string; actor_id: string; actor_name: string }>(
      s.orm.em.fork(),
      `select actor_type, actor_id, actor_name from annotations where entity_id = ?`,
      [r.account!.id],
    );
    expect(row).toEqual({ actor_type: "user", actor_id: user.shortId, actor_name: "rec" });
  });

  it("admin_only methods refuse an editor's session, a viewer is read-only, keys are unaffected", async () => {
    const editor = withSession((await signedIn("editor", "e2@example.com")).token);
    const viewer = withSession((await signedIn("viewer", "v2@example.com")).token);
    const admin = withSession((await signedIn("admin", "a2@example.com")).token);
    const target = await createUser(s.orm.em.fork(), { name: "T" });
    const calls = {
      getLogin: (o: object) => s.core.logins.getLogin({ userId: target.shortId }, o),
      listApiKeys: (o: object) => s.core.apiKeys.listApiKeys({}, o),
      createApiKey: (o: object) => s.core.apiKeys.createApiKey({ name: "k", scope: "full_access" }, o),
      createUser: (o: object) => s.core.users.createUser({ name: "New" }, o),
      approveDeviceCode: (o: object) => s.core.deviceCodes.approveDeviceCode({ userCode: "BCDF-GHJK" }, o),
    };
    for (const [name, call] of Object.entries(calls)) {
      const f = await expectCoreError(call(editor), "FORBIDDEN");
      expect(f.message, name).toMatch(/needs an admin, not a editor|needs an admin/);
      await expectCoreError(call(viewer), "INSUFFICIENT_SCOPE");
      // Past the check: the admin (and a full_access key) reach the method itself.
      for (const allowed of [admin, withKey(s.adminKey)]) {
        const outcome = await call(allowed).then(
          () => "ok",
          async (e: unknown) => (await coreFailure(rejected(e))).reason,
        );
        expect(["ok", "NOT_FOUND", "INVALID_DEVICE_CODE"], name).toContain(outcome);
      }
    }
    // Reads and ordinary writes are the role's scope alone.
    await s.core.accounts.listAccounts({}, viewer);
    await s.core.tags.createTag({ slug: "by_editor" }, editor);
  });

  it("logout revokes the session it is called with", async () => {
    const { token } = await signedIn("viewer", "out@example.com");
    await s.core.sessions.logout({}, withSession(token));
    await expectCoreError(s.core.sessions.getSession({}, withSession(token)), "INVALID_CREDENTIALS");
  });
});

describe("sign-in limits across simultaneous attempts", () => {
  it("lets at most 5 of a burst of 12 wrong attempts reach the password check", async () => {
    await signedIn("viewer", "burst@example.com");
    const results = await Promise.allSettled(
      Array.from({ length: 12 }, (_, i) =>
        s.core.sessions.login(
          { email: "burst@example.com", password: "wrong password" },
          { headers: { "x-coffer-client-ip": `192.0.2.${i}` } },
        ),
      ),
    );
    const codes = await Promise.all(
      results.map(async (r) => (await coreFailure(rejected((r as PromiseRejectedResult).reason))).reason),
    );
    expect(codes.filter((c) => c === "INVALID_CREDENTIALS").length).toBeLessThanOrEqual(5);
    expect(codes.filter((c) => c === "RATE_LIMITED").length).toBeGreaterThanOrEqual(7);
    expect(codes.every((c) => c === "INVALID_CREDENTIALS" || c === "RATE_LIMITED")).toBe(true);
    // Refused attempts are not kept (only failures count), so the window holds exactly the failures.
    const kept = await query<{ n: number }>(
      s.orm.em.fork(),
      `select count(*)::int as n from login_attempts where email = 'burst@example.com'`,
    );
    expect(kept[0].n).toBe(codes.filter((c) => c === "INVALID_CREDENTIALS").length);
  });

  it("says when to retry in the retry-after metadata", async () => {
    const ip = { headers: { "x-coffer-client-ip": "198.51.100.7" } };
    for (let i = 0; i < 5; i++) {
      await expectCoreError(
        s.core.sessions.login({ email: `n${i}@example.com`, password: "nope nope" }, ip),
        "INVALID_CREDENTIALS",
      );
    }
    let caught: unknown;
    await s.core.sessions
      .login({ email: "n9@example.com", password: "nope nope" }, ip)
      .catch((e: unknown) => (caught = e));
    const { ConnectError } = await import("@connectrpc/connect");
    const retry = Number(ConnectError.from(caught).metadata.get("retry-after"));
    expect(retry).toBeGreaterThanOrEqual(1);
    expect(retry).toBeLessThanOrEqual(60);
  });
});

describe("household members with a login", () => {
  it("cannot be deleted until the login is", async () => {
    const { user } = await signedIn("viewer", "member@example.com");
    const admin = withKey(s.adminKey);
    const f = await expectCoreError(s.core.users.deleteUser({ id: user.shortId }, admin), "CONFLICT");
    expect(f.message).toMatch(/a login/);
    await s.core.logins.deleteLogin({ userId: user.shortId }, admin);
    await s.core.users.deleteUser({ id: user.shortId }, admin);
  });

  it("keep an admin: the last admin login cannot be demoted or deleted", async () => {
    const admin = withKey(s.adminKey);
    const rows = await query<{ short_id: string }>(
      s.orm.em.fork(),
      `select u.short_id from logins l join users u on u.id = l.user_id where l.role = 'admin'`,
    );
    // Demote all admins but one, then the last one is kept.
    for (const r of rows.slice(1)) await s.core.logins.updateLogin({ userId: r.short_id, role: "editor" }, admin);
    const last = rows[0].short_id;
    await expectCoreError(s.core.logins.updateLogin({ userId: last, role: "viewer" }, admin), "CONFLICT");
    await expectCoreError(s.core.logins.deleteLogin({ userId: last }, admin), "CONFLICT");
    for (const r of rows.slice(1)) await s.core.logins.updateLogin({ userId: r.short_id, role: "admin" }, admin);
  });
});

describe("retention", () => {
  it("deletes sessions and setup links a day after they ended, and attempts after an hour", async () => {
    const live = await signedIn("viewer", "keep@example.com");
    const ended = await signedIn("viewer", "gone@example.com");
    await s.core.sessions.logout({}, withSession(ended.token));
    const em = s.orm.em.fork();
    await query(em, `update login_sessions set revoked_at = now() - interval '25 hours' where revoked_at is not null`);
    await query(
      em,
      `update login_setup_tokens set consumed_at = now() - interval '25 hours' where consumed_at is not null`,
    );
    await query(
      em,
      `insert into login_attempts (email, ip, attempted_at)
       values ('old@example.com', '1.2.3.4', now() - interval '2 hours')`,
    );
    const count = async (table: string) =>
      (await query<{ n: number }>(em, `select count(*)::int as n from ${table}`))[0].n;
    const before = { sessions: await count("login_sessions"), tokens: await count("login_setup_tokens") };
    expect(await purgeLoginLeftovers(em)).toBeGreaterThanOrEqual(3);
    expect(await count("login_sessions")).toBeLessThan(before.sessions);
    expect(await count("login_setup_tokens")).toBeLessThan(before.tokens);
    const old = await query(em, `select 1 from login_attempts where email = 'old@example.com'`);
    expect(old).toHaveLength(0);
    // The live session is untouched.
    expect((await s.core.sessions.getSession({}, withSession(live.token))).email).toBe("keep@example.com");
  });
});
