import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { coreConfigFromEnv } from "../../../services/config.js";
import { closeOrm, openOrm, type Orm } from "../../../services/db/orm.js";
import { jobQueueSchemaVersion, migrateJobQueueSchema } from "../../../services/db/job-queue-schema.js";
import { query } from "../../../services/db/sql.js";
import { createConnection } from "../../../services/sync/connections.js";
import { CsvProvider } from "../../../services/sync/providers/csv/provider.js";
import { ProviderError } from "../../../services/sync/providers/provider.js";
import { ProviderRegistry } from "../../../services/sync/registry.js";
import { createSyncRuntime, type SyncRuntime } from "../../../services/sync/runtime.js";
import pg from "pg";
import { createTestDatabase } from "../../helpers/db.js";
import { newUser } from "../../helpers/ledger.js";
import { ScriptedProvider, tx } from "../../helpers/scripted-provider.js";
import { memoryLogger, OPERATOR, TEST_ENCRYPTION_KEY } from "../../helpers/sync.js";
import { syncJobsOf, PENDING_SYNC_JOB } from "../../helpers/job-queue.js";
import { waitFor } from "../../helpers/wait.js";

// The scheduler on pg-boss, with two "cores" (each its own ORM, engine and pg-boss) on one database.

const provider = new ScriptedProvider("plaid");
let url: string;
let orms: Orm[];
let cores: SyncRuntime[];
let userId: string;

beforeAll(async () => {
  url = await createTestDatabase();
  orms = [await openOrm(url, 4), await openOrm(url, 4)];
  const config = { ...coreConfigFromEnv({ DATABASE_URL: url }), encryptionKey: TEST_ENCRYPTION_KEY };
  cores = orms.map((orm) =>
    createSyncRuntime(orm, config, memoryLogger(), {
      registry: new ProviderRegistry([provider, new CsvProvider()]),
      hooks: [],
      // The schedule's cron job is left out: it would queue the test's connections whenever a minute turns.
      scheduler: {
        pollingIntervalSeconds: 0.5,
        retryDelaySeconds: 1,
        busyDelaySeconds: 1,
        intervalSeconds: 3600,
        schedule: false,
      },
    }),
  );
  await Promise.all(cores.map((c) => c.scheduler.start()));
  userId = (await newUser(orms[0].em.fork(), "Ann")).id;
});
afterAll(async () => {
  await Promise.all((cores ?? []).map((c) => c.scheduler.stop()));
  await Promise.all((orms ?? []).map((o) => closeOrm(o)));
});

const em = () => orms[0].em.fork();
let items = 0;

/** A connection whose first sync is left to the test. */
async function connection(): Promise<string> {
  const c = await createConnection(
    em(),
    cores[0],
    OPERATOR,
    { provider: "plaid", userId, credentials: { token: "t", item: `item-${++items}` } },
    { runFirstSync: "caller" },
  );
  return c.id;
}

const logs = (id: string) =>
  query<{ status: string; trigger: string; error_code: string | null }>(
    em(),
    `select status, trigger, error_code from sync_logs where connection_id = ? order by started_at`,
    [id],
  );

/**
 * No sync job waiting, retrying or running (a deferred one included), besides
 * the schedule's next sync of each connection, due an interval later.
 */
const quiet = () =>
  waitFor(async () => {
    const [r] = await query<{ n: number }>(em(), `select count(*)::int as n from pgboss.job where ${PENDING_SYNC_JOB}`);
    return r.n === 0;
  }, "the sync queue to empty");

describe("the job queue's schema", () => {
  it("is installed by the migration step at the version pg-boss needs; migrating again changes nothing", async () => {
    const [v] = await query<{ version: number }>(em(), `select version from pgboss.version`);
    expect(Number(v.version)).toBe(jobQueueSchemaVersion());
    const client = new pg.Client({ connectionString: url });
    await client.connect();
    try {
      expect(await migrateJobQueueSchema(client)).toBe("current");
    } finally {
      await client.end();
    }
  });
});

describe("one sync per connection across cores", () => {
  it("runs it once when two cores start syncing the same connection at the same moment", async () => {
    const id = await connection();
    provider.push({ added: [tx("race-1")] }, { added: [tx("race-2")] });
    const calls = provider.syncCalls;
    const reached = provider.blockAfter(1);
    const both = Promise.all(cores.map((c) => c.engine.run(id, { trigger: "manual" })));
    await reached;
    provider.release();
    const outcomes = (await both).map((o) => o.status).sort();
    expect(outcomes).toEqual(["busy", "success"]);
    expect(provider.syncCalls - calls).toBe(1);
    expect(provider.maxRunning).toBe(1);
  });

  it("runs one sync when both cores queue one for the same connection at once", async () => {
    const id = await connection();
    provider.push({ added: [tx("queued-1")] });
    const calls = provider.syncCalls;
    await Promise.all(cores.map((c) => c.requestSync(id, "manual")));
    await waitFor(async () => (await logs(id)).length > 0, "a sync");
    await quiet();
    expect(provider.syncCalls - calls).toBe(1);
    expect(provider.maxRunning).toBe(1);
    expect(await logs(id)).toEqual([{ status: "success", trigger: "manual", error_code: null }]);
  });

  it("runs a sync asked for while one is running after it, never beside it", async () => {
    const id = await connection();
    provider.push({ added: [tx("during-1")] }, { added: [tx("during-2")] });
    const reached = provider.blockAfter(1);
    await cores[0].requestSync(id, "manual");
    await reached;
    // Asked while the first sync runs: it must not run beside it, and it is not answered by it.
    await cores[1].requestSync(id, "webhook");
    // The witness that a worker took the second request while the first ran: it deferred the job.
    await waitFor(
      async () => (await syncJobsOf(url, id)).some((j) => j.trigger === "webhook" && j.output?.deferred),
      "the second request deferred",
    );
    provider.release();
    await waitFor(async () => (await logs(id)).length === 2, "the second sync");
    await quiet();
    expect((await logs(id)).map((l) => `${l.trigger}:${l.status}`)).toEqual(["manual:success", "webhook:success"]);
    expect(provider.maxRunning).toBe(1);
  });
});

describe("retries", () => {
  it("retries a transient failure with backoff until the sync succeeds", async () => {
    const id = await connection();
    provider.push({ added: [tx("retry-1")] });
    provider.failNext = { method: "accounts", error: new ProviderError("unavailable", "PROVIDER_UNAVAILABLE", "503") };
    await cores[0].requestSync(id, "manual");
    await waitFor(async () => (await logs(id)).some((l) => l.status === "success"), "the retried sync", 20_000);
    expect(await logs(id)).toEqual([
      { status: "error", trigger: "manual", error_code: "PROVIDER_UNAVAILABLE" },
      { status: "success", trigger: "manual", error_code: null },
    ]);
    const [c] = await query<{ status: string }>(em(), `select status from connections where id = ?`, [id]);
    expect(c.status).toBe("active");
  });

  it("does not retry a failure that needs a person", async () => {
    const id = await connection();
    provider.failNext = {
      method: "accounts",
      error: new ProviderError("reauth_required", "ITEM_LOGIN_REQUIRED", "log in again"),
    };
    await cores[0].requestSync(id, "manual");
    await waitFor(async () => (await logs(id)).length === 1, "the failed sync");
    await quiet();
    expect(await logs(id)).toEqual([{ status: "error", trigger: "manual", error_code: "ITEM_LOGIN_REQUIRED" }]);
  });
});

describe("the schedule", () => {
  it("queues connections not tried within the interval, not paused, waiting or disconnected ones", async () => {
    await quiet();
    const due = await connection();
    const stale = await connection();
    const fresh = await connection();
    const paused = await connection();
    const waiting = await connection();
    const gone = await connection();
    await query(em(), `update connections set last_attempt_at = now() where id <> all(?::uuid[])`, [
      `{${due},${stale}}`,
    ]);
    await query(
      em(),
      `update connections set last_attempt_at = now() - interval '2 hours', status = 'error',
      error_code = 'X', error_message = 'Y' where id = ?`,
      [stale],
    );
    await query(em(), `update connections set last_attempt_at = null, paused = true where id = ?`, [paused]);
    await query(
      em(),
      `update connections set last_attempt_at = null, status = 'pending_reauth', error_code = 'X',
      error_message = 'Y' where id = ?`,
      [waiting],
    );
    await query(
      em(),
      `update connections set last_attempt_at = null, status = 'disconnected', credentials = null
      where id = ?`,
      [gone],
    );
    expect(fresh).toBeTruthy();
    expect(await cores[1].scheduler.queueDueSyncs()).toBe(2);
    await waitFor(
      async () => (await logs(due)).length === 1 && (await logs(stale)).length === 1,
      "the scheduled syncs",
    );
    expect((await logs(due))[0].trigger).toBe("schedule");
    for (const id of [fresh, paused, waiting, gone]) expect(await logs(id)).toEqual([]);
  });
});

describe("shutdown", () => {
  it("stops a running sync after the page it is committing, keeping that page", async () => {
    // Only the core being stopped may take the job.
    await Promise.all(cores.map((c) => c.scheduler.stop()));
    const orm = await openOrm(url, 4);
    const core = createSyncRuntime(
      orm,
      { ...coreConfigFromEnv({ DATABASE_URL: url }), encryptionKey: TEST_ENCRYPTION_KEY },
      memoryLogger(),
      {
        registry: new ProviderRegistry([provider, new CsvProvider()]),
        hooks: [],
        scheduler: { pollingIntervalSeconds: 0.5, retryDelaySeconds: 60, schedule: false },
      },
    );
    await core.scheduler.start();
    const id = await connection();
    const log = provider.log.length;
    // The sync starts after the pages earlier tests pushed: the engine reads ahead and joins the pages that
    // wait (services/sync/page-batches.ts), and earlier pages waiting would be joined into its first commit.
    await query(em(), `update connections set cursor = ? where id = ?`, [String(log), id]);
    provider.push({ added: [tx("stop-1")] }, { added: [tx("stop-2")] }, { added: [tx("stop-3")] });
    const reached = provider.blockAfter(1);
    await core.requestSync(id, "manual");
    await reached;
    const stopping = core.scheduler.stop();
    provider.release();
    await stopping;
    await closeOrm(orm);
    // The engine reads a page ahead while it commits the one before: the page being committed when the core
    // was asked to stop (stop-1) is kept; the page read ahead (stop-2) is not committed, and the next sync
    // reads it again.
    const [c] = await query<{ cursor: string }>(em(), `select cursor from connections where id = ?`, [id]);
    expect(c.cursor).toBe(String(log + 1));
    const stored = await query<{ p: string }>(
      em(),
      `select provider_transaction_id as p from transactions t join accounts a on a.id = t.account_id
       where a.connection_id = ? and provider_transaction_id like 'stop-%' order by 1`,
      [id],
    );
    expect(stored.map((r) => r.p)).toEqual(["stop-1"]);
    expect(await logs(id)).toMatchObject([{ status: "interrupted", error_code: "INTERRUPTED" }]);
  });
});
