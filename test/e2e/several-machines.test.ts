import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertApiKey } from "../../services/auth/api-keys.js";
import { closeOrm, openOrm, type Orm } from "../../services/db/orm.js";
import { query } from "../../services/db/sql.js";
import { DUE_QUEUE, JOB_SCHEMA } from "../../services/db/job-queue-schema.js";
import { FakePlaid } from "../fakes/plaid/server.js";
import { createTestDatabase } from "../helpers/db.js";
import { cofferEnv, freePort, killAll, spawnCoffer, waitForOk, type CofferProcess } from "../helpers/processes.js";
import { TEST_ENCRYPTION_KEY } from "../helpers/sync.js";
import { waitFor } from "../helpers/wait.js";

// docs/deployment.md, shown: two cores and two REST gateways (each gateway on its own core) on one
// PostgreSQL, as several machines behind a proxy would run them. The database is all they share, and
// it is enough: a sync runs once, a session made on one gateway works on the other, the sign-in limit
// counts attempts made on both, and the per-minute schedule queues due syncs once, not once per core.

const PAGE = 25;
let plaid: FakePlaid;
let orm: Orm;
let apiKey: string;
/** The public URL both gateways are reached at (the proxy's); sign-in requests carry its origin. */
let publicUrl: string;
let rests: string[] = [];
const procs: CofferProcess[] = [];
const em = () => orm.em.fork();

beforeAll(async () => {
  plaid = await new FakePlaid().start();
  plaid.maxPageSize = PAGE;
  const url = await createTestDatabase();
  orm = await openOrm(url, 2);
  apiKey = (await insertApiKey(em(), { name: "several machines", scope: "full_access" })).plaintext;
  const [core1, core2, rest1, rest2] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
  publicUrl = `http://localhost:${rest1}`;
  const common = {
    DATABASE_URL: url,
    COFFER_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
    COFFER_PUBLIC_URL: publicUrl,
    COFFER_LOG_LEVEL: "warn",
  };
  const core = (name: string, port: number) =>
    spawnCoffer(
      name,
      ["core"],
      cofferEnv({
        ...common,
        COFFER_CORE_PORT: String(port),
        PLAID_CLIENT_ID: plaid.clientId,
        PLAID_SECRET: plaid.secret,
        PLAID_BASE_URL: plaid.url,
      }),
    );
  const rest = (name: string, port: number, corePort: number) =>
    spawnCoffer(
      name,
      ["rest"],
      cofferEnv({ ...common, COFFER_REST_PORT: String(port), COFFER_CORE_URL: `http://127.0.0.1:${corePort}` }),
    );
  procs.push(core("core-1", core1), core("core-2", core2), rest("rest-1", rest1, core1), rest("rest-2", rest2, core2));
  rests = [rest1, rest2].map((p) => `http://127.0.0.1:${p}/api/v1`);
  // Ready: each gateway answers and reaches its own core.
  await Promise.all(rests.map((api) => waitForOk(api.replace("/api/v1", "/health/ready"), 90_000, procs)));
}, 120_000);

afterAll(async () => {
  await killAll(procs);
  if (orm) await closeOrm(orm);
  await plaid?.stop();
});

async function call(api: string, method: string, path: string, body?: object, headers: Record<string, string> = {}) {
  const res = await fetch(`${api}${path}`, {
    method,
    headers: { "x-api-key": apiKey, ...(body && { "content-type": "application/json" }), ...headers },
    body: body && JSON.stringify(body),
  });
  return answer(res);
}

/** Status, headers and the JSON body (empty for a 204). */
async function answer(res: Response) {
  const text = await res.text();
  return { status: res.status, headers: res.headers, json: (text ? JSON.parse(text) : {}) as Record<string, unknown> };
}

/** A browser's request: no key, the console's origin, and the session cookie if given. */
async function browser(api: string, method: string, path: string, body?: object, cookie?: string) {
  const res = await fetch(`${api}${path}`, {
    method,
    headers: {
      origin: publicUrl,
      ...(body && { "content-type": "application/json" }),
      ...(cookie && { cookie }),
    },
    body: body && JSON.stringify(body),
  });
  return answer(res);
}

const syncLogs = () =>
  query<{ connection_id: string; trigger: string; status: string; pages: number; added: number }>(
    em(),
    `select connection_id, trigger, status, pages, added from sync_logs order by started_at`,
  );

describe("two cores and two REST gateways on one database", () => {
  const connections: { id: string; itemId: string; rows: number }[] = [];

  it("a sync runs once: four connections made on both gateways, each synced by one core, once", async () => {
    const user = await call(rests[0], "POST", "/users", { name: "Ann" });
    expect(user.status).toBe(201);
    for (let i = 0; i < 4; i++) {
      const { publicToken, item } = plaid.createPublicToken({ transactions: 40 + 10 * i });
      const created = await call(rests[i % 2], "POST", "/connections", {
        provider: "plaid",
        user_id: user.json.short_id,
        credentials: { public_token: publicToken },
      });
      expect(created.status).toBe(201);
      connections.push({ id: created.json.id as string, itemId: item.itemId, rows: 40 + 10 * i });
    }
    await waitFor(
      async () => (await syncLogs()).filter((l) => l.status === "success").length === 4,
      "the four first syncs",
      60_000,
    );
    // Both cores' workers keep asking the queue; nothing more may run.
    await new Promise((r) => setTimeout(r, 5_000));
    const logs = await syncLogs();
    expect(logs).toHaveLength(4);
    for (const c of connections) {
      const pages = Math.ceil(c.rows / PAGE);
      expect(logs.filter((l) => l.connection_id === c.id)).toEqual([
        { connection_id: c.id, trigger: "initial", status: "success", pages, added: c.rows },
      ]);
      // The provider was read once per page, for that one run.
      const item = plaid.item(c.itemId);
      const reads = plaid.requests.filter(
        (r) => r.path === "/transactions/sync" && r.body.access_token === item.accessToken,
      );
      expect(reads).toHaveLength(pages);
    }
    const [{ n }] = await query<{ n: number }>(em(), `select count(*)::int as n from transactions`);
    expect(n).toBe(connections.reduce((sum, c) => sum + c.rows, 0));
  }, 90_000);

  it("a session made on one gateway works on the other, and a sign-out on the other ends it", async () => {
    const member = await call(rests[0], "POST", "/users", { name: "Bo" });
    const login = await call(rests[0], "POST", `/users/${member.json.short_id as string}/login`, {
      email: "bo@example.com",
      role: "viewer",
    });
    expect(login.status).toBe(201);
    const token = new URL(login.json.setup_url as string).searchParams.get("token");
    const setup = await browser(rests[0], "POST", "/auth/setup", { token, password: "a long enough password" });
    expect(setup.status).toBe(200);
    const cookie = setup.headers.get("set-cookie")!.split(";")[0];

    const there = await browser(rests[1], "GET", "/auth/session", undefined, cookie);
    expect(there.status).toBe(200);
    expect(there.json).toMatchObject({ email: "bo@example.com", role: "viewer", user_name: "Bo" });
    // Signed in on the second gateway, the cookie it sets works on the first.
    const signIn = await browser(rests[1], "POST", "/auth/login", {
      email: "bo@example.com",
      password: "a long enough password",
    });
    expect(signIn.status).toBe(200);
    const second = signIn.headers.get("set-cookie")!.split(";")[0];
    expect((await browser(rests[0], "GET", "/accounts", undefined, second)).status).toBe(200);

    expect((await browser(rests[1], "POST", "/auth/logout", {}, cookie)).status).toBeLessThan(300);
    const ended = await browser(rests[0], "GET", "/auth/session", undefined, cookie);
    expect(ended.status).toBe(401);
    expect((await browser(rests[0], "GET", "/auth/session", undefined, second)).status).toBe(200);
  });

  it("the per-minute schedule queues a due sync once, though both cores keep its clock", async () => {
    // Made due: tried a day ago (COFFER_SYNC_INTERVAL is 12 h); the others were tried moments ago.
    const due = connections[0];
    await query(em(), `update connections set last_attempt_at = now() - interval '1 day' where id = ?`, [due.id]);
    const scheduled = await waitFor(
      async () => {
        const l = (await syncLogs()).filter((x) => x.trigger === "schedule" && x.status !== "running");
        return l.length > 0 ? l : null;
      },
      "the schedule's sync (the cron fires once a minute)",
      150_000,
    );
    expect(scheduled).toEqual([{ connection_id: due.id, trigger: "schedule", status: "success", pages: 1, added: 0 }]);
    // The next minute's tick comes and goes: the connection is no longer due, and no core queued it twice.
    // pg-boss's clock records each due minute as one `send-it` job (its minute in `singleton_on`), and its
    // worker then queues the job itself, a moment later (possibly in the next minute, so the queued jobs'
    // own times do not tell the minutes apart). Every due minute gives one job, and only one.
    const tick = async () => {
      const [row] = await query<{ minutes: number; distinct_minutes: number; pending: number; queued: number }>(
        em(),
        `select count(*)::int as minutes, count(distinct singleton_on)::int as distinct_minutes,
                count(*) filter (where state in ('created', 'retry', 'active'))::int as pending,
                (select count(*)::int from ${JOB_SCHEMA}.job where name = ?) as queued
         from ${JOB_SCHEMA}.job where name = '__pgboss__send-it' and data->>'name' = ?`,
        [DUE_QUEUE, DUE_QUEUE],
      );
      return row;
    };
    const before = await tick();
    const after = await waitFor(
      async () => {
        const t = await tick();
        return t.minutes > before.minutes && t.pending === 0 ? t : null;
      },
      "the next minute's tick",
      150_000,
    );
    expect(after.distinct_minutes).toBe(after.minutes);
    expect(after.queued).toBe(after.minutes);
    expect((await syncLogs()).filter((x) => x.trigger === "schedule")).toHaveLength(1);
  }, 320_000);

  it("the sign-in limit counts the attempts made on both gateways", async () => {
    const attempt = (i: number) =>
      browser(rests[i % 2], "POST", "/auth/login", { email: "bo@example.com", password: "not the password" });
    for (let i = 0; i < 5; i++)
      expect((await attempt(i)).json).toMatchObject({ error: { code: "INVALID_CREDENTIALS" } });
    // The sixth, on either gateway, is over the limit: the count lives in the database, not in a gateway.
    for (const i of [5, 6]) {
      const limited = await attempt(i);
      expect(limited.status).toBe(429);
      expect(limited.json).toMatchObject({ error: { code: "RATE_LIMITED" } });
      expect(Number(limited.headers.get("retry-after"))).toBeGreaterThanOrEqual(1);
    }
  });
});
