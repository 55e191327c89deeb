import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { coreClients, coreTransport, type CoreClients } from "../../gateways/shared/core-client.js";
import { insertApiKey } from "../../services/auth/api-keys.js";
import { closeOrm, openOrm, type Orm } from "../../services/db/orm.js";
import { query } from "../../services/db/sql.js";
import { FakePlaid, type FakeItem } from "../fakes/plaid/server.js";
import { createTestDatabase } from "../helpers/db.js";
import { newUser } from "../helpers/ledger.js";
import { cofferEnv, freePort, killAll, spawnCoffer, waitForOk, type CofferProcess } from "../helpers/processes.js";
import { TEST_ENCRYPTION_KEY } from "../helpers/sync.js";
import { TcpProxy } from "../helpers/tcp-proxy.js";
import { waitFor } from "../helpers/wait.js";

// Issue 21's faults of the database and the process, against real processes and the Plaid fake:
// a database outage mid-sync under `coffer start` (through a TCP proxy in front of PostgreSQL),
// a core killed mid-sync, a sync whose lock session is killed, and the schedule's interval. The
// interval's core runs in the background from the start, so its three cycles cost no extra time.

const INTERVAL = 60;
const procs: CofferProcess[] = [];
const plaids: FakePlaid[] = [];
const orms: Orm[] = [];
let proxy: TcpProxy;

afterAll(async () => {
  await killAll(procs);
  await proxy?.close();
  for (const orm of orms) await closeOrm(orm);
  for (const p of plaids) await p.stop();
});

interface Stack {
  url: string;
  orm: Orm;
  key: string;
  plaid: FakePlaid;
  user: string;
}

async function stack(pageSize: number): Promise<Stack> {
  const plaid = await new FakePlaid().start();
  plaid.maxPageSize = pageSize;
  plaids.push(plaid);
  const url = await createTestDatabase();
  const orm = await openOrm(url, 3);
  orms.push(orm);
  const key = (await insertApiKey(orm.em.fork(), { name: "faults", scope: "full_access" })).plaintext;
  const user = (await newUser(orm.em.fork(), "Ann")).shortId;
  return { url, orm, key, plaid, user };
}

const plaidEnv = (plaid: FakePlaid) => ({
  PLAID_CLIENT_ID: plaid.clientId,
  PLAID_SECRET: plaid.secret,
  PLAID_BASE_URL: plaid.url,
  COFFER_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
});

/** `coffer core` on the stack's database; resolves once it answers. */
async function startCore(s: Stack, name: string, extra: Record<string, string> = {}) {
  const port = await freePort();
  const proc = spawnCoffer(
    name,
    ["core"],
    cofferEnv({
      DATABASE_URL: s.url,
      COFFER_CORE_PORT: String(port),
      COFFER_LOG_LEVEL: "warn",
      ...plaidEnv(s.plaid),
      ...extra,
    }),
  );
  procs.push(proc);
  const core = coreClients(coreTransport(`http://127.0.0.1:${port}`, 30_000));
  await waitFor(
    async () => {
      if (proc.child.exitCode !== null) throw new Error(`${name} exited:\n${proc.lines.join("\n")}`);
      return core.system.checkReady({}, auth(s)).then(
        () => true,
        () => false,
      );
    },
    `${name} to be ready`,
    45_000,
  );
  return { proc, core };
}

const auth = (s: Stack) => ({ headers: { "x-api-key": s.key } });

async function connect(s: Stack, core: CoreClients, publicToken: string): Promise<string> {
  const created = await core.connections.createConnection(
    { provider: "plaid", userId: s.user, credentials: { public_token: publicToken } },
    auth(s),
  );
  return created.connection!.id;
}

interface Log {
  status: string;
  trigger: string;
  pages: number;
  error_code: string | null;
  /** Milliseconds since the epoch. */
  started: number;
}

const logs = (s: Stack, connectionId: string) =>
  query<Log>(
    s.orm.em.fork(),
    `select status, trigger, pages, error_code, (extract(epoch from started_at) * 1000)::float8 as started
     from sync_logs where connection_id = ? order by started_at`,
    [connectionId],
  );

const connectionState = async (s: Stack, id: string) =>
  (
    await query<{ status: string; error_code: string | null }>(
      s.orm.em.fork(),
      `select status, error_code from connections where id = ?`,
      [id],
    )
  )[0];

/** The stored rows are exactly the fake's live transactions (ids and amounts), each once. */
async function expectExactly(s: Stack, connectionId: string, item: FakeItem) {
  const rows = await query<{ p: string; amount: string }>(
    s.orm.em.fork(),
    `select t.provider_transaction_id as p, t.amount::text as amount
     from transactions t join accounts a on a.id = t.account_id where a.connection_id = ? and t.deleted_at is null`,
    [connectionId],
  );
  expect(new Set(rows.map((r) => r.p)).size).toBe(rows.length);
  expect(rows.map((r) => r.p).sort()).toEqual([...item.live.keys()].sort());
  for (const r of rows) expect(r.amount).toBe(item.live.get(r.p)!.amount.toFixed(2));
}

/** Waits until the connection's newest log has ended well and none is running. */
const settled = (s: Stack, id: string, what: string, timeoutMs: number) =>
  waitFor(
    async () => {
      const l = await logs(s, id);
      return l.length > 0 && l.every((x) => x.status !== "running") && l.at(-1)!.status === "success" ? l : null;
    },
    what,
    timeoutMs,
  );

// The schedule's core: started first, its connection synced every INTERVAL seconds meanwhile.
let scheduled: { s: Stack; id: string; since: number };
beforeAll(async () => {
  const s = await stack(50);
  const { core } = await startCore(s, "interval-core", { COFFER_SYNC_INTERVAL: String(INTERVAL) });
  const { publicToken } = s.plaid.createPublicToken({ transactions: 20 });
  scheduled = { s, id: await connect(s, core, publicToken), since: Date.now() };
}, 60_000);

describe("a database outage in the middle of a sync, under coffer start", () => {
  it("keeps Coffer running (nothing restarts) and the sync completes exactly once the database is back", async () => {
    const s = await stack(50);
    const pg = new URL(s.url);
    proxy = new TcpProxy({ host: pg.hostname, port: Number(pg.port || 5432) });
    await proxy.start();
    const proxied = new URL(s.url);
    proxied.hostname = "127.0.0.1";
    proxied.port = String(proxy.port);
    const [corePort, restPort, mcpPort] = await Promise.all([freePort(), freePort(), freePort()]);
    const start = spawnCoffer(
      "start",
      ["start"],
      cofferEnv({
        DATABASE_URL: proxied.toString(),
        COFFER_CORE_PORT: String(corePort),
        COFFER_REST_PORT: String(restPort),
        COFFER_MCP_PORT: String(mcpPort),
        COFFER_LOG_LEVEL: "warn",
        COFFER_LOG_FORMAT: "json",
        ...plaidEnv(s.plaid),
      }),
    );
    procs.push(start);
    await waitForOk(`http://127.0.0.1:${restPort}/health/ready`, 60_000, [start]);
    const core = coreClients(coreTransport(`http://127.0.0.1:${corePort}`, 30_000));

    // 400 rows in 8 pages; the 4th page takes 3 s to come, and the database goes away meanwhile.
    const { publicToken, item } = s.plaid.createPublicToken({ transactions: 400 });
    s.plaid.faults.add("/transactions/sync", { kind: "slow", ms: 3_000 }, 1, 3);
    const id = await connect(s, core, publicToken);
    await waitFor(async () => (await logs(s, id))[0]?.pages === 3, "3 pages committed", 30_000);
    await proxy.cut();
    const cutAt = Date.now();

    // 45 s without the database: the processes stay, and readiness says 503.
    await waitFor(
      async () => (await fetch(`http://127.0.0.1:${restPort}/health/ready`)).status === 503,
      "readiness to say 503",
      15_000,
    );
    while (Date.now() - cutAt < 45_000) {
      expect(start.child.exitCode).toBeNull();
      await new Promise((r) => setTimeout(r, 1_000));
    }
    expect((await fetch(`http://127.0.0.1:${restPort}/health/live`)).status).toBe(200);
    await proxy.restore();
    const restoredAt = new Date();

    const done = await settled(s, id, "the sync after the outage", 60_000);
    expect(done.map((l) => [l.status, l.error_code])).toEqual([
      ["interrupted", "INTERRUPTED"],
      ["success", null],
    ]);
    // The sync that completed began after the database came back (with a second's slack for clocks).
    expect(done[1].started).toBeGreaterThan(restoredAt.getTime() - 1_000);
    await expectExactly(s, id, item);
    expect(await connectionState(s, id)).toEqual({ status: "active", error_code: null });
    await waitForOk(`http://127.0.0.1:${restPort}/health/ready`, 30_000, [start]);
    // No child died: the supervisor restarted nothing, and the core logged its waiting instead.
    const out = start.lines.join("\n");
    expect(out).not.toMatch(/restarting it|exited with code|was killed by/);
    expect(out).toContain("the database went away during a sync; syncing again once it answers");

    start.child.kill("SIGINT");
    expect(await start.exited).toEqual({ code: 0, signal: null });
  }, 180_000);
});

describe("a core killed in the middle of a sync", () => {
  it("is resumed by the next core within 60 s of its start, with no manual trigger, rows exact", async () => {
    const s = await stack(100);
    // 3,000 rows in 30 pages; the 11th page hangs, and the core is killed while it waits for it.
    const { publicToken, item } = s.plaid.createPublicToken({ transactions: 3_000 });
    s.plaid.faults.add("/transactions/sync", { kind: "slow", ms: 30_000 }, 1, 10);
    const first = await startCore(s, "core-1");
    const id = await connect(s, first.core, publicToken);
    await waitFor(async () => (await logs(s, id))[0]?.pages === 10, "10 pages committed", 60_000);
    first.proc.child.kill("SIGKILL");
    await first.proc.exited;
    expect((await logs(s, id)).map((l) => l.status)).toEqual(["running"]);

    const startedAt = Date.now();
    const second = await startCore(s, "core-2");
    const done = await settled(s, id, "the resumed sync", 60_000);
    expect(Date.now() - startedAt).toBeLessThan(60_000);
    expect(done.map((l) => [l.status, l.error_code, l.trigger])).toEqual([
      ["interrupted", "INTERRUPTED", "initial"],
      ["success", null, "initial"],
    ]);
    await expectExactly(s, id, item);

    // The same core, a second fault: its sync's lock session is killed while a page is on its way, and a
    // second sync starts alongside. The first stops as interrupted; the connection never shows an error.
    const other = s.plaid.createPublicToken({ transactions: 300 });
    s.plaid.faults.add("/transactions/sync", { kind: "slow", ms: 4_000 }, 1, 2);
    const before = s.plaid.requests.filter((r) => r.path === "/transactions/sync").length;
    const lockId = await connect(s, second.core, other.publicToken);
    await waitFor(
      async () => s.plaid.requests.filter((r) => r.path === "/transactions/sync").length >= before + 3,
      "the slow page to be asked for",
      30_000,
    );
    const killed = await query<{ ok: boolean }>(
      s.orm.em.fork(),
      `select pg_terminate_backend(pid) as ok from pg_stat_activity
       where application_name = 'coffer sync lock' and datname = current_database()`,
    );
    expect(killed).toEqual([{ ok: true }]);
    await second.core.connections.syncConnection({ id: lockId }, auth(s));
    // The sync that took the lock over closes the old sync's log as interrupted; the old sync, once its page
    // comes, sees its lock gone and ends its log itself, as LOCK_LOST.
    const after = await waitFor(
      async () => {
        const l = await settled(s, lockId, "both syncs to end", 60_000);
        return l.some((x) => x.error_code === "LOCK_LOST") ? l : null;
      },
      "the old sync to notice its lock is gone",
      30_000,
    );
    expect(after.filter((l) => l.status === "interrupted").map((l) => l.error_code)).toEqual(["LOCK_LOST"]);
    expect(after.filter((l) => l.status === "error")).toEqual([]);
    expect(await connectionState(s, lockId)).toEqual({ status: "active", error_code: null });
    await expectExactly(s, lockId, other.item);
  }, 240_000);
});

describe("the schedule", () => {
  it(`syncs a connection every COFFER_SYNC_INTERVAL (${INTERVAL} s) ± 10%`, async () => {
    const { s, id } = scheduled;
    const starts = await waitFor(
      async () => {
        const l = (await logs(s, id)).filter((x) => x.status !== "running");
        return l.length >= 4 ? l : null;
      },
      "three scheduled syncs after the first",
      4 * INTERVAL * 1000,
    );
    expect(starts[0].trigger).toBe("initial");
    for (const l of starts.slice(1)) expect(l).toMatchObject({ trigger: "schedule", status: "success" });
    const gaps = starts.slice(1).map((l, i) => (l.started - starts[i].started) / 1000);
    for (const gap of gaps) {
      expect(gap).toBeGreaterThanOrEqual(INTERVAL * 0.9);
      expect(gap).toBeLessThanOrEqual(INTERVAL * 1.1);
    }
  }, 300_000);
});
