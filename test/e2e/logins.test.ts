import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeOrm, openOrm, type Orm } from "../../services/db/orm.js";
import { query } from "../../services/db/sql.js";
import { createTestDatabase } from "../helpers/db.js";
import { newUser } from "../helpers/ledger.js";
import { cofferEnv, freePort, killAll, runCoffer, spawnCoffer, type CofferProcess } from "../helpers/processes.js";

// The two ways a household gets its first console login, as a person runs them: real processes.

const procs: CofferProcess[] = [];
afterAll(async () => {
  await killAll(procs);
});

describe("coffer users create-login", () => {
  let orm: Orm;
  let env: NodeJS.ProcessEnv;
  beforeAll(async () => {
    const url = await createTestDatabase();
    orm = await openOrm(url, 2);
    env = cofferEnv({ DATABASE_URL: url, COFFER_PUBLIC_URL: "https://coffer.home.example" });
  });
  afterAll(async () => {
    if (orm) await closeOrm(orm);
  });

  it("without --user creates the household member too, and prints only the setup URL", async () => {
    const r = await runCoffer(["users", "create-login", "--email", "Ann@Example.com", "--role", "admin"], env);
    expect(r.code).toBe(0);
    expect(r.stdout).toMatch(/^https:\/\/coffer\.home\.example\/setup\?token=[A-Za-z0-9_-]{43}\n$/);
    const [row] = await query<{ name: string; user_email: string; email: string; role: string; set: boolean }>(
      orm.em.fork(),
      `select u.name, u.email as user_email, l.email, l.role, l.password_set as set
       from logins l join users u on u.id = l.user_id`,
    );
    expect(row).toEqual({
      name: "Ann",
      user_email: "Ann@Example.com",
      email: "Ann@Example.com",
      role: "admin",
      set: false,
    });
    // The printed token is not what is stored.
    const token = new URL(r.stdout.trim()).searchParams.get("token")!;
    const stored = await query<{ token_hash: string }>(orm.em.fork(), `select token_hash from login_setup_tokens`);
    expect(stored.map((t) => t.token_hash)).not.toContain(token);
  });

  it("with --user gives an existing member a login", async () => {
    const user = await newUser(orm.em.fork(), "Bob");
    const r = await runCoffer(
      ["users", "create-login", "--email", "bob@example.com", "--role", "viewer", "--user", user.shortId],
      env,
    );
    expect(r.code).toBe(0);
    const [row] = await query<{ role: string }>(orm.em.fork(), `select role from logins where user_id = ?`, [user.id]);
    expect(row.role).toBe("viewer");
  });

  it.each([
    [["users", "create-login", "--role", "admin"], /needs --email and --role/],
    [["users", "create-login", "--email", "c@example.com", "--role", "owner"], /VALIDATION_ERROR: role must be one of/],
    [["users", "create-login", "--email", "ann@example.com", "--role", "viewer"], /CONFLICT/],
    [["users", "create-login", "--email", "d@example.com", "--role", "viewer", "--user", "nobody00"], /NOT_FOUND/],
  ])("%j fails with exit code 2 and a reason", async (args, reason) => {
    const r = await runCoffer(args, env);
    expect(r.code).toBe(2);
    expect(r.stdout).toBe("");
    expect(r.stderr).toMatch(reason);
  });
});

describe("coffer start on a household without a login", () => {
  it("prints a one-time setup URL that creates the first admin through the real REST gateway", async () => {
    const [databaseUrl, corePort, restPort, mcpPort] = await Promise.all([
      createTestDatabase(),
      freePort(),
      freePort(),
      freePort(),
    ]);
    const publicUrl = `http://localhost:${restPort}`;
    const env = cofferEnv({
      DATABASE_URL: databaseUrl,
      COFFER_CORE_PORT: String(corePort),
      COFFER_REST_PORT: String(restPort),
      COFFER_MCP_PORT: String(mcpPort),
      COFFER_LOG_LEVEL: "warn",
    });
    const start = spawnCoffer("start", ["start"], env);
    procs.push(start);
    const deadline = Date.now() + 60_000;
    const link = () => start.stdoutLines.map((l) => l.trim()).find((l) => l.startsWith(`${publicUrl}/setup?token=`));
    while (!start.stdoutLines.some((l) => l.startsWith("Press Ctrl-C")) && Date.now() < deadline) {
      if (start.child.exitCode !== null) throw new Error(start.lines.join("\n"));
      await new Promise((r) => setTimeout(r, 100));
    }
    const url = link();
    expect(url).toMatch(/\/setup\?token=[A-Za-z0-9_-]{43}$/);
    const token = new URL(url!).searchParams.get("token")!;

    const api = `http://127.0.0.1:${restPort}/api/v1`;
    const what = await fetch(`${api}/auth/setup?token=${token}`);
    expect(await what.json()).toEqual({ first_run: true, email: null, role: "admin" });
    // The first admin needs an email: the link is not bound to anyone yet.
    const noEmail = await fetch(`${api}/auth/setup`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: publicUrl },
      body: JSON.stringify({ token, password: "a long enough password" }),
    });
    expect(noEmail.status).toBe(400);
    expect(await noEmail.json()).toEqual({
      error: {
        code: "VALIDATION_ERROR",
        message: "email is required: this first-run link creates the admin account, which signs in with it",
      },
    });
    const setup = await fetch(`${api}/auth/setup`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: publicUrl },
      body: JSON.stringify({ token, password: "a long enough password", email: "admin@example.com", name: "Pat" }),
    });
    expect(setup.status).toBe(200);
    const cookie = setup.headers.get("set-cookie")!;
    expect(cookie).toMatch(/^coffer_session=[A-Za-z0-9_-]{43}; Max-Age=2592000; Path=\/; HttpOnly; SameSite=Strict$/);
    const me = await fetch(`${api}/auth/session`, { headers: { cookie: cookie.split(";")[0] } });
    expect(await me.json()).toMatchObject({ user_name: "Pat", email: "admin@example.com", role: "admin" });

    // One first admin: the link is spent.
    const again = await fetch(`${api}/auth/setup`, {
      method: "POST",
      headers: { "content-type": "application/json", origin: publicUrl },
      body: JSON.stringify({ token, password: "a long enough password", email: "second@example.com" }),
    });
    expect(((await again.json()) as { error: { code: string } }).error.code).toBe("EXPIRED");

    start.child.kill("SIGINT");
    expect(await start.exited).toEqual({ code: 0, signal: null });
  });
});
