import { PENDING_SYNC_JOB } from "../../helpers/job-queue.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { coreConfigFromEnv } from "../../../services/config.js";
import { closeOrm, openOrm, type Orm } from "../../../services/db/orm.js";
import { query } from "../../../services/db/sql.js";
import { createConnection } from "../../../services/sync/connections.js";
import { providersFromEnv } from "../../../services/sync/registry.js";
import { createSyncRuntime, type SyncRuntime } from "../../../services/sync/runtime.js";
import { FakePlaid, type FakeItem } from "../../fakes/plaid/server.js";
import { createTestDatabase } from "../../helpers/db.js";
import { newUser } from "../../helpers/ledger.js";
import { memoryLogger, OPERATOR, TEST_ENCRYPTION_KEY } from "../../helpers/sync.js";
import { waitFor } from "../../helpers/wait.js";

// Two cores racing to sync one connection, with the real Plaid client (built by the registry from
// the Plaid settings) against the Plaid fake: each core its own ORM, engine and pg-boss, one database.
// The sync runs once: Plaid is read once, and every row is stored once.

let plaid: FakePlaid;
let url: string;
let orms: Orm[];
let cores: SyncRuntime[];
let userId: string;

beforeAll(async () => {
  plaid = await new FakePlaid().start();
  plaid.maxPageSize = 10;
  url = await createTestDatabase();
  orms = [await openOrm(url, 4), await openOrm(url, 4)];
  const config = {
    ...coreConfigFromEnv({
      DATABASE_URL: url,
      PLAID_CLIENT_ID: plaid.clientId,
      PLAID_SECRET: plaid.secret,
      PLAID_BASE_URL: plaid.url,
    }),
    encryptionKey: TEST_ENCRYPTION_KEY,
  };
  cores = orms.map((orm) =>
    createSyncRuntime(orm, config, memoryLogger(), {
      registry: providersFromEnv(config.providers),
      hooks: [],
      scheduler: { pollingIntervalSeconds: 0.5, busyDelaySeconds: 1, schedule: false },
    }),
  );
  await Promise.all(cores.map((c) => c.scheduler.start()));
  userId = (await newUser(orms[0].em.fork(), "Ann")).id;
});
afterAll(async () => {
  await Promise.all((cores ?? []).map((c) => c.scheduler.stop()));
  await Promise.all((orms ?? []).map((o) => closeOrm(o)));
  await plaid?.stop();
});

const em = () => orms[0].em.fork();

/** A Plaid connection (its first sync left to the test) over a fresh Item of `rows` transactions. */
async function connection(rows: number): Promise<{ id: string; item: FakeItem }> {
  const { publicToken, item } = plaid.createPublicToken({ transactions: rows });
  const c = await createConnection(
    em(),
    cores[0],
    OPERATOR,
    { provider: "plaid", userId, credentials: { public_token: publicToken } },
    { runFirstSync: "caller" },
  );
  return { id: c.id, item };
}

const syncCalls = (item: FakeItem) =>
  plaid.requests.filter((r) => r.path === "/transactions/sync" && r.body.access_token === item.accessToken).length;

const logs = (id: string) =>
  query<{ status: string; pages: number; added: number }>(
    em(),
    `select status, pages, added from sync_logs where connection_id = ? order by started_at`,
    [id],
  );

/** Every stored row of the connection exactly once, and exactly the Item's transactions. */
async function expectStoredOnce(id: string, item: FakeItem) {
  const rows = await query<{ p: string; n: number }>(
    em(),
    `select t.provider_transaction_id as p, count(*)::int as n from transactions t
     join accounts a on a.id = t.account_id where a.connection_id = ? group by 1`,
    [id],
  );
  expect(rows.filter((r) => r.n !== 1)).toEqual([]);
  expect(rows.map((r) => r.p).sort()).toEqual([...item.live.keys()].sort());
}

const quiet = () =>
  waitFor(async () => {
    const [r] = await query<{ n: number }>(em(), `select count(*)::int as n from pgboss.job where ${PENDING_SYNC_JOB}`);
    return r.n === 0;
  }, "the sync queue to empty");

describe("two cores racing to sync one Plaid connection", () => {
  it("run it once when both engines start at the same moment: one reads Plaid, the other finds it busy", async () => {
    const { id, item } = await connection(45);
    // The first page is slow, so the winner still holds the connection when the other core tries.
    plaid.faults.add("/transactions/sync", { kind: "slow", ms: 1_000 });
    const outcomes = await Promise.all(cores.map((c) => c.engine.run(id, { trigger: "manual" })));
    expect(outcomes.map((o) => o.status).sort()).toEqual(["busy", "success"]);
    expect(syncCalls(item)).toBe(5);
    expect(await logs(id)).toEqual([{ status: "success", pages: 5, added: 45 }]);
    await expectStoredOnce(id, item);
  });

  it("run one sync when both cores queue one at once", async () => {
    const { id, item } = await connection(25);
    await Promise.all(cores.map((c) => c.requestSync(id, "manual")));
    await waitFor(async () => (await logs(id)).length > 0, "a sync");
    await quiet();
    expect(await logs(id)).toEqual([{ status: "success", pages: 3, added: 25 }]);
    expect(syncCalls(item)).toBe(3);
    await expectStoredOnce(id, item);
  });

  it("run an incremental sync once when new rows arrive and both start it at once", async () => {
    const { id, item } = await connection(5);
    expect((await cores[0].engine.run(id, { trigger: "manual" })).status).toBe("success");
    for (let i = 0; i < 30; i++) plaid.add(item, { name: `LATE ${i}`, amount: 2 + i });
    const before = syncCalls(item);
    plaid.faults.add("/transactions/sync", { kind: "slow", ms: 1_000 });
    const both = Promise.all(cores.map((c) => c.engine.run(id, { trigger: "webhook" })));
    expect((await both).map((o) => o.status).sort()).toEqual(["busy", "success"]);
    expect(syncCalls(item) - before).toBe(3);
    expect((await logs(id)).map((l) => l.added)).toEqual([5, 30]);
    await expectStoredOnce(id, item);
  });
});
