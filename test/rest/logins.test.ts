import { Ajv2020 } from "ajv/dist/2020.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { LightMyRequestResponse } from "fastify";
import { buildRestApp } from "../../gateways/rest/app.js";
import { VERSION } from "../../common/version.js";
import { query } from "../../services/db/sql.js";
import { expectEnvelope, key } from "../helpers/rest.js";
import { startStack, type Stack } from "../helpers/stack.js";

/** The stack's REST gateway runs with the default public URL. */
const ORIGIN = "http://localhost:8080";

let s: Stack;
beforeAll(async () => {
  s = await startStack();
});
afterAll(async () => {
  await s?.close();
});

/** Each test signs in from an address of its own, so the per-address limit of one test does not reach another. */
let nextIp = 10;
const newIp = () => `10.0.0.${nextIp++}`;

const cookieOf = (res: LightMyRequestResponse) => {
  const raw = res.headers["set-cookie"];
  const value = Array.isArray(raw) ? raw[0] : raw;
  expect(value).toBeDefined();
  return value!;
};
const tokenOf = (res: LightMyRequestResponse) => /^coffer_session=([^;]*)/.exec(cookieOf(res))![1];
const session = (token: string) => ({ cookie: `coffer_session=${token}` });
const tokenOfUrl = (url: string) => new URL(url).searchParams.get("token")!;

async function newMember(name: string): Promise<string> {
  const res = await s.rest.inject({
    method: "POST",
    url: "/api/v1/users",
    headers: key(s.adminKey),
    payload: { name },
  });
  expect(res.statusCode).toBe(201);
  return res.json<{ short_id: string }>().short_id;
}

/** A household member with a login of `role` whose password is set; returns the session from setup. */
async function member(role: "admin" | "editor" | "viewer", email: string, password = "correct horse battery") {
  const userId = await newMember(email.split("@")[0]);
  const created = await s.rest.inject({
    method: "POST",
    url: `/api/v1/users/${userId}/login`,
    headers: key(s.adminKey),
    payload: { email, role },
  });
  expect(created.statusCode).toBe(201);
  const setup = await s.rest.inject({
    method: "POST",
    url: "/api/v1/auth/setup",
    headers: { origin: ORIGIN },
    payload: { token: tokenOfUrl(created.json().setup_url), password },
  });
  expect(setup.statusCode).toBe(200);
  return { userId, token: tokenOf(setup), password, email };
}

function login(email: string, password: string, ip = newIp()) {
  return s.rest.inject({
    method: "POST",
    url: "/api/v1/auth/login",
    headers: { origin: ORIGIN },
    payload: { email, password },
    remoteAddress: ip,
  });
}

describe("login accounts and setup", () => {
  it("creates a login with a one-time setup URL; setup sets the password and signs in", async () => {
    const userId = await newMember("Ann");
    const created = await s.rest.inject({
      method: "POST",
      url: `/api/v1/users/${userId}/login`,
      headers: key(s.adminKey),
      payload: { email: "Ann@Example.com", role: "admin" },
    });
    expect(created.statusCode).toBe(201);
    const body = created.json();
    expect(Object.keys(body).sort()).toEqual(
      ["created_at", "email", "last_login_at", "password_set", "role", "setup_url", "updated_at", "user_id"].sort(),
    );
    expect(body).toMatchObject({ user_id: userId, email: "Ann@Example.com", role: "admin", password_set: false });
    expect(body.setup_url).toMatch(/^http:\/\/localhost:8080\/setup\?token=[A-Za-z0-9_-]{43}$/);
    const token = tokenOfUrl(body.setup_url);

    // Only the token's hash is stored.
    const stored = await query<{ token_hash: string }>(s.orm.em.fork(), `select token_hash from login_setup_tokens`);
    expect(stored.map((r) => r.token_hash)).not.toContain(token);

    const inspected = await s.rest.inject({ method: "GET", url: `/api/v1/auth/setup?token=${token}` });
    expect(inspected.json()).toEqual({ first_run: false, email: "Ann@Example.com", role: "admin" });

    const short = await s.rest.inject({
      method: "POST",
      url: "/api/v1/auth/setup",
      payload: { token, password: "elevenchars" },
    });
    expectEnvelope(short, "VALIDATION_ERROR", "password must be at least 12 characters");

    const setup = await s.rest.inject({
      method: "POST",
      url: "/api/v1/auth/setup",
      payload: { token, password: "twelve chars" },
    });
    expect(setup.statusCode).toBe(200);
    expect(setup.json()).toEqual({ user_id: userId, role: "admin" });
    const me = await s.rest.inject({ method: "GET", url: "/api/v1/auth/session", headers: session(tokenOf(setup)) });
    expect(me.statusCode).toBe(200);
    expect(me.json()).toMatchObject({
      user_id: userId,
      user_name: "Ann",
      email: "Ann@Example.com",
      role: "admin",
      scope: "full_access",
    });

    const again = await s.rest.inject({
      method: "POST",
      url: "/api/v1/auth/setup",
      payload: { token, password: "another long password" },
    });
    expectEnvelope(again, "EXPIRED");
    const got = await s.rest.inject({ method: "GET", url: `/api/v1/users/${userId}/login`, headers: key(s.adminKey) });
    expect(got.json()).toMatchObject({ password_set: true, role: "admin" });
    expect(got.json().last_login_at).toMatch(/Z$/);
  });

  it("an expired setup link answers EXPIRED", async () => {
    const userId = await newMember("Old");
    const created = await s.rest.inject({
      method: "POST",
      url: `/api/v1/users/${userId}/login`,
      headers: key(s.adminKey),
      payload: { email: "old@example.com", role: "viewer" },
    });
    await query(s.orm.em.fork(), `update login_setup_tokens set expires_at = now() - interval '1 second'`);
    const res = await s.rest.inject({
      method: "POST",
      url: "/api/v1/auth/setup",
      payload: { token: tokenOfUrl(created.json().setup_url), password: "long enough password" },
    });
    expectEnvelope(res, "EXPIRED");
  });

  it("reset-password gives a new link and the old one stops working", async () => {
    const m = await member("viewer", "reset@example.com");
    const first = await s.rest.inject({
      method: "POST",
      url: `/api/v1/users/${m.userId}/login/reset-password`,
      headers: key(s.adminKey),
    });
    const second = await s.rest.inject({
      method: "POST",
      url: `/api/v1/users/${m.userId}/login/reset-password`,
      headers: key(s.adminKey),
    });
    expect(second.statusCode).toBe(200);
    const stale = await s.rest.inject({
      method: "POST",
      url: "/api/v1/auth/setup",
      payload: { token: tokenOfUrl(first.json().setup_url), password: "a brand new password" },
    });
    expectEnvelope(stale, "EXPIRED");
    const ok = await s.rest.inject({
      method: "POST",
      url: "/api/v1/auth/setup",
      payload: { token: tokenOfUrl(second.json().setup_url), password: "a brand new password" },
    });
    expect(ok.statusCode).toBe(200);
    // Setting the password again ends the sessions opened with the old one.
    const old = await s.rest.inject({ method: "GET", url: "/api/v1/auth/session", headers: session(m.token) });
    expectEnvelope(old, "INVALID_CREDENTIALS");
    expect((await login(m.email, "a brand new password")).statusCode).toBe(200);
    expectEnvelope(await login(m.email, m.password), "INVALID_CREDENTIALS");
  });
});

describe("sign-in and sessions", () => {
  it("signs in with the email in any case and sets a strict HttpOnly cookie", async () => {
    const m = await member("editor", "Bea@example.com");
    const res = await login("bea@EXAMPLE.com", m.password);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ user_id: m.userId, role: "editor" });
    const cookie = cookieOf(res);
    expect(cookie).toMatch(/^coffer_session=[A-Za-z0-9_-]{43}; /);
    expect(cookie.split("; ").slice(1).sort()).toEqual(
      ["HttpOnly", "Max-Age=2592000", "Path=/", "SameSite=Strict"].sort(),
    );
    expect(res.body).not.toContain(tokenOf(res));
    // Only the hash is stored.
    const hashes = await query<{ token_hash: string }>(s.orm.em.fork(), `select token_hash from login_sessions`);
    expect(hashes.map((r) => r.token_hash)).not.toContain(tokenOf(res));
  });

  it("answers a wrong email and a wrong password alike, in about the same time", async () => {
    const m = await member("viewer", "cy@example.com");
    const timed = async (email: string, password: string) => {
      const t = performance.now();
      const res = await login(email, password);
      return { res, ms: performance.now() - t };
    };
    const wrongEmail: number[] = [];
    const wrongPassword: number[] = [];
    // Five of each (the per-account limit), interleaved, so the machine's load falls on both alike.
    for (let i = 0; i < 5; i++) {
      const a = await timed("nobody@example.com", m.password);
      const b = await timed(m.email, "not the password at all");
      for (const r of [a.res, b.res]) expectEnvelope(r, "INVALID_CREDENTIALS", "The email or password is not right");
      wrongEmail.push(a.ms);
      wrongPassword.push(b.ms);
    }
    const median = (xs: number[]) => xs.sort((x, y) => x - y)[2];
    // Both do the scrypt work (tens of milliseconds even on a fast machine); without the dummy hash a
    // wrong email would answer in a few milliseconds. The bounds are loose: the test machine is shared.
    expect(median(wrongEmail)).toBeGreaterThan(median(wrongPassword) / 3);
    expect(median(wrongEmail)).toBeLessThan(median(wrongPassword) * 3);
  });

  it("a login without a password yet cannot sign in", async () => {
    const userId = await newMember("Dee");
    await s.rest.inject({
      method: "POST",
      url: `/api/v1/users/${userId}/login`,
      headers: key(s.adminKey),
      payload: { email: "dee@example.com", role: "viewer" },
    });
    expectEnvelope(await login("dee@example.com", ""), "INVALID_CREDENTIALS");
  });

  it("logout ends the session and clears the cookie", async () => {
    const m = await member("viewer", "eve@example.com");
    const out = await s.rest.inject({
      method: "POST",
      url: "/api/v1/auth/logout",
      headers: { ...session(m.token), origin: ORIGIN },
    });
    expect(out.statusCode).toBe(204);
    expect(cookieOf(out)).toBe("coffer_session=; Max-Age=0; Path=/; HttpOnly; SameSite=Strict");
    const after = await s.rest.inject({ method: "GET", url: "/api/v1/accounts", headers: session(m.token) });
    expectEnvelope(after, "INVALID_CREDENTIALS");
    // Signing out again (no session, or an ended one) is not an error.
    const twice = await s.rest.inject({ method: "POST", url: "/api/v1/auth/logout" });
    expect(twice.statusCode).toBe(204);
    const none = await s.rest.inject({ method: "GET", url: "/api/v1/auth/session" });
    expectEnvelope(none, "MISSING_CREDENTIALS");
  });

  it("a session expires 30 days after it was last used, and each use slides it", async () => {
    const m = await member("viewer", "fay@example.com");
    const em = s.orm.em.fork();
    // Last seen 29 days ago: still valid, and using it moves the expiry 30 days ahead.
    await query(
      em,
      `update login_sessions set last_seen_at = now() - interval '29 days', expires_at = now() + interval '1 day'
       where login_id = (select id from logins where email = ?)`,
      [m.email],
    );
    const used = await s.rest.inject({ method: "GET", url: "/api/v1/auth/session", headers: session(m.token) });
    expect(used.statusCode).toBe(200);
    const days = (Date.parse(used.json().expires_at) - Date.now()) / 86_400_000;
    expect(days).toBeGreaterThan(29.9);
    expect(days).toBeLessThanOrEqual(30);
    expect(cookieOf(used)).toContain("Max-Age=2592000");
    // Past its expiry: refused.
    await query(
      em,
      `update login_sessions set last_seen_at = now() - interval '31 days', expires_at = now() - interval '1 day'
       where login_id = (select id from logins where email = ?)`,
      [m.email],
    );
    const gone = await s.rest.inject({ method: "GET", url: "/api/v1/auth/session", headers: session(m.token) });
    expectEnvelope(gone, "INVALID_CREDENTIALS");
  });
});

describe("sign-in rate limit", () => {
  it("the 6th attempt in a minute for one account is refused with Retry-After, even the right password", async () => {
    const m = await member("viewer", "gus@example.com");
    for (let i = 0; i < 5; i++) expectEnvelope(await login(m.email, "wrong password!!"), "INVALID_CREDENTIALS");
    const limited = await login(m.email, m.password);
    expectEnvelope(limited, "RATE_LIMITED");
    const wait = Number(limited.headers["retry-after"]);
    expect(wait).toBeGreaterThanOrEqual(1);
    expect(wait).toBeLessThanOrEqual(60);
    // Once the failures are older than the window, the account may try again.
    await query(s.orm.em.fork(), `update login_attempts set attempted_at = attempted_at - interval '61 seconds'`);
    expect((await login(m.email, m.password)).statusCode).toBe(200);
  });

  it("the 6th failure in a minute from one address is refused, whatever the email", async () => {
    const ip = newIp();
    for (let i = 0; i < 5; i++)
      expectEnvelope(await login(`x${i}@example.com`, "wrong password!!", ip), "INVALID_CREDENTIALS");
    const limited = await login("other@example.com", "wrong password!!", ip);
    expectEnvelope(limited, "RATE_LIMITED");
    expect(Number(limited.headers["retry-after"])).toBeGreaterThanOrEqual(1);
    // Another address is not affected.
    expectEnvelope(await login("other@example.com", "wrong password!!"), "INVALID_CREDENTIALS");
  });

  it("successful sign-ins do not count", async () => {
    const m = await member("viewer", "hal@example.com");
    const ip = newIp();
    for (let i = 0; i < 7; i++) expect((await login(m.email, m.password, ip)).statusCode).toBe(200);
  });
});

describe("roles and scopes", () => {
  it("a viewer reads but is refused a write (403)", async () => {
    const m = await member("viewer", "ivy@example.com");
    const read = await s.rest.inject({ method: "GET", url: "/api/v1/accounts", headers: session(m.token) });
    expect(read.statusCode).toBe(200);
    const write = await s.rest.inject({
      method: "POST",
      url: "/api/v1/tags",
      headers: { ...session(m.token), origin: ORIGIN },
      payload: { slug: "from_viewer", display_name: "From viewer" },
    });
    expectEnvelope(write, "INSUFFICIENT_SCOPE");
  });

  it("an editor writes, and the change is recorded as the person", async () => {
    const m = await member("editor", "jo@example.com");
    const write = await s.rest.inject({
      method: "POST",
      url: "/api/v1/tags",
      headers: { ...session(m.token), origin: ORIGIN },
      payload: { slug: "from_editor", display_name: "From editor" },
    });
    expect(write.statusCode).toBe(201);
  });

  it("login and access management need an admin: an editor is refused", async () => {
    const editor = await member("editor", "kim@example.com");
    const admin = await member("admin", "lee@example.com");
    const target = await newMember("Target");
    const post = (token: string) =>
      s.rest.inject({
        method: "POST",
        url: `/api/v1/users/${target}/login`,
        headers: { ...session(token), origin: ORIGIN },
        payload: { email: "target@example.com", role: "viewer" },
      });
    expectEnvelope(await post(editor.token), "FORBIDDEN");
    for (const [method, url] of [
      ["GET", `/api/v1/users/${admin.userId}/login`],
      ["GET", "/api/v1/api-keys"],
    ] as const) {
      expectEnvelope(await s.rest.inject({ method, url, headers: session(editor.token) }), "FORBIDDEN");
    }
    const keyByEditor = await s.rest.inject({
      method: "POST",
      url: "/api/v1/api-keys",
      headers: { ...session(editor.token), origin: ORIGIN },
      payload: { name: "escalate", scope: "full_access" },
    });
    expectEnvelope(keyByEditor, "FORBIDDEN");

    const created = await post(admin.token);
    expect(created.statusCode).toBe(201);
    const asAdmin = { ...session(admin.token), origin: ORIGIN };
    const patched = await s.rest.inject({
      method: "PATCH",
      url: `/api/v1/users/${target}/login`,
      headers: asAdmin,
      payload: { role: "editor" },
    });
    expect(patched.json()).toMatchObject({ role: "editor" });
    const del = await s.rest.inject({ method: "DELETE", url: `/api/v1/users/${target}/login`, headers: asAdmin });
    expect(del.statusCode).toBe(204);
    const gone = await s.rest.inject({ method: "GET", url: `/api/v1/users/${target}/login`, headers: asAdmin });
    expectEnvelope(gone, "NOT_FOUND");
  });

  it("a role change applies to the open session at its next call", async () => {
    const m = await member("editor", "max@example.com");
    await s.rest.inject({
      method: "PATCH",
      url: `/api/v1/users/${m.userId}/login`,
      headers: key(s.adminKey),
      payload: { role: "viewer" },
    });
    const me = await s.rest.inject({ method: "GET", url: "/api/v1/auth/session", headers: session(m.token) });
    expect(me.json()).toMatchObject({ role: "viewer", scope: "read_only" });
  });

  it("refuses duplicate logins and a bad role", async () => {
    const m = await member("viewer", "ned@example.com");
    const other = await newMember("Other");
    const dupEmail = await s.rest.inject({
      method: "POST",
      url: `/api/v1/users/${other}/login`,
      headers: key(s.adminKey),
      payload: { email: "NED@example.com", role: "viewer" },
    });
    expectEnvelope(dupEmail, "CONFLICT");
    const dupUser = await s.rest.inject({
      method: "POST",
      url: `/api/v1/users/${m.userId}/login`,
      headers: key(s.adminKey),
      payload: { email: "ned2@example.com", role: "viewer" },
    });
    expectEnvelope(dupUser, "CONFLICT");
    const badRole = await s.rest.inject({
      method: "POST",
      url: `/api/v1/users/${other}/login`,
      headers: key(s.adminKey),
      payload: { email: "o@example.com", role: "owner" },
    });
    expectEnvelope(badRole, "INVALID_PARAMETER");
  });
});

describe("Origin check for cookie requests", () => {
  it("refuses an unsafe request with the cookie from another origin or with none", async () => {
    const m = await member("editor", "ola@example.com");
    const payload = { slug: "csrf", display_name: "CSRF" };
    for (const headers of [{ origin: "https://evil.example" }, {}]) {
      const res = await s.rest.inject({
        method: "POST",
        url: "/api/v1/tags",
        headers: { ...session(m.token), ...headers },
        payload,
      });
      expectEnvelope(res, "ORIGIN_MISMATCH");
    }
    const ok = await s.rest.inject({
      method: "POST",
      url: "/api/v1/tags",
      headers: { ...session(m.token), origin: ORIGIN },
      payload,
    });
    expect(ok.statusCode).toBe(201);
    // Reads are not checked.
    const read = await s.rest.inject({
      method: "GET",
      url: "/api/v1/tags",
      headers: { ...session(m.token), origin: "https://evil.example" },
    });
    expect(read.statusCode).toBe(200);
  });

  it("leaves API-key requests alone, and refuses a sign-in posted from another site", async () => {
    const res = await s.rest.inject({
      method: "POST",
      url: "/api/v1/tags",
      headers: { ...key(s.adminKey), origin: "https://evil.example", cookie: "coffer_session=whatever" },
      payload: { slug: "by_key", display_name: "By key" },
    });
    expect(res.statusCode).toBe(201);
    const signIn = await s.rest.inject({
      method: "POST",
      url: "/api/v1/auth/login",
      headers: { origin: "https://evil.example" },
      payload: { email: "a@example.com", password: "whatever password" },
    });
    expectEnvelope(signIn, "ORIGIN_MISMATCH");
  });
});

describe("behind https", () => {
  it("marks the cookie Secure and checks Origin against the https public URL", async () => {
    const publicUrl = "https://coffer.home.example";
    const rest = await buildRestApp({
      core: s.core,
      version: VERSION,
      logger: false,
      guard: { listenHost: "127.0.0.1", publicUrl, allowedHosts: [] },
    });
    try {
      const m = await member("viewer", "secure@example.com");
      const res = await rest.inject({
        method: "POST",
        url: "/api/v1/auth/login",
        headers: { origin: publicUrl, host: "coffer.home.example" },
        payload: { email: m.email, password: m.password },
        remoteAddress: newIp(),
      });
      expect(res.statusCode).toBe(200);
      expect(cookieOf(res)).toMatch(/; Path=\/; HttpOnly; SameSite=Strict; Secure$/);
      // The plain-http origin of the same host is another origin.
      const out = await rest.inject({
        method: "POST",
        url: "/api/v1/auth/logout",
        headers: { ...session(tokenOf(res)), origin: "http://coffer.home.example", host: "coffer.home.example" },
      });
      expectEnvelope(out, "ORIGIN_MISMATCH");
    } finally {
      await rest.close();
    }
  });
});

describe("the OpenAPI document", () => {
  type Doc = {
    paths: Record<
      string,
      Record<string, { responses: Record<string, { content?: Record<string, { schema: object }> }> }>
    >;
    components: object;
  };

  it("describes what the sign-in and login routes answer", async () => {
    const doc = (await s.rest.inject({ method: "GET", url: "/api/v1/openapi.json" })).json<Doc>();
    const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
    const conforms = (res: LightMyRequestResponse, path: string, method: string) => {
      const op = doc.paths[path][method];
      const status = Object.keys(op.responses).find((c) => /^2\d\d$/.test(c))!;
      expect(String(res.statusCode), `${method} ${path}: ${res.body}`).toBe(status);
      const validate = ajv.compile({
        ...op.responses[status].content!["application/json"].schema,
        components: doc.components,
      });
      expect(validate(res.json()), JSON.stringify(validate.errors)).toBe(true);
    };
    const userId = await newMember("Doc");
    const created = await s.rest.inject({
      method: "POST",
      url: `/api/v1/users/${userId}/login`,
      headers: key(s.adminKey),
      payload: { email: "doc@example.com", role: "admin" },
    });
    conforms(created, "/api/v1/users/{id}/login", "post");
    const token = tokenOfUrl(created.json().setup_url);
    conforms(
      await s.rest.inject({ method: "GET", url: `/api/v1/auth/setup?token=${token}` }),
      "/api/v1/auth/setup",
      "get",
    );
    const setup = await s.rest.inject({
      method: "POST",
      url: "/api/v1/auth/setup",
      payload: { token, password: "documented password" },
    });
    conforms(setup, "/api/v1/auth/setup", "post");
    conforms(await login("doc@example.com", "documented password"), "/api/v1/auth/login", "post");
    const me = await s.rest.inject({ method: "GET", url: "/api/v1/auth/session", headers: session(tokenOf(setup)) });
    conforms(me, "/api/v1/auth/session", "get");
    const url = `/api/v1/users/${userId}/login`;
    conforms(await s.rest.inject({ method: "GET", url, headers: key(s.adminKey) }), "/api/v1/users/{id}/login", "get");
    const patched = await s.rest.inject({ method: "PATCH", url, headers: key(s.adminKey), payload: { role: "admin" } });
    conforms(patched, "/api/v1/users/{id}/login", "patch");
    const reset = await s.rest.inject({ method: "POST", url: `${url}/reset-password`, headers: key(s.adminKey) });
    conforms(reset, "/api/v1/users/{id}/login/reset-password", "post");
  });
});

describe("logs", () => {
  it("hold no setup token, password or session token", async () => {
    const lines: string[] = [];
    const rest = await buildRestApp({
      core: s.core,
      version: VERSION,
      logLevel: "info",
      logStream: { write: (l: string) => void lines.push(l) },
    });
    try {
      const userId = await newMember("Logged");
      const created = await s.rest.inject({
        method: "POST",
        url: `/api/v1/users/${userId}/login`,
        headers: key(s.adminKey),
        payload: { email: "logged@example.com", role: "viewer" },
      });
      const token = tokenOfUrl(created.json().setup_url);
      await rest.inject({ method: "GET", url: `/api/v1/auth/setup?token=${token}` });
      const setup = await rest.inject({
        method: "POST",
        url: "/api/v1/auth/setup",
        payload: { token, password: "a password to hide" },
      });
      const sessionToken = tokenOf(setup);
      await rest.inject({ method: "GET", url: "/api/v1/auth/session", headers: session(sessionToken) });
      await rest.inject({
        method: "POST",
        url: "/api/v1/auth/login",
        payload: { email: "logged@example.com", password: "a password to hide" },
        remoteAddress: newIp(),
      });
      const text = lines.join("\n");
      expect(text).toContain("/api/v1/auth/setup?token=[redacted]");
      for (const secret of [token, "a password to hide", sessionToken]) expect(text).not.toContain(secret);
    } finally {
      await rest.close();
    }
  });
});
