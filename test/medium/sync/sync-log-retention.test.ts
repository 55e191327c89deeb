import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { coreConfigFromEnv } from "../../../services/config.js";
import { closeOrm, openOrm, type Orm } from "../../../services/db/orm.js";
import { query } from "../../../services/db/sql.js";
import { newShortId } from "../../../services/ids/short-id.js";
import { purgeSyncLogs, purgeSyncLogsTask } from "../../../services/sync/retention.js";
import { createTestDatabase } from "../../helpers/db.js";
import { newUser } from "../../helpers/ledger.js";

// Sync logs are kept COFFER_SYNC_LOG_RETENTION_DAYS (default 90): older finished ones go, except each
// connection's newest; a run still marked running stays whatever its age.

let orm: Orm;
const em = () => orm.em.fork();

beforeAll(async () => {
  orm = await openOrm(await createTestDatabase(), 2);
});
afterAll(async () => {
  if (orm) await closeOrm(orm);
});

async function connection(): Promise<string> {
  const user = await newUser(em(), "Retention");
  const id = crypto.randomUUID();
  await query(
    em(),
    `insert into connections (id, short_id, user_id, provider, provider_item_id, credentials)
     values (?, ?, ?, 'csv', ?, '\\x00')`,
    [id, newShortId(), user.id, `item-${id}`],
  );
  return id;
}

/** A sync log of the connection that started (and ended) `daysAgo` days ago. */
async function log(connectionId: string, daysAgo: number, status = "success"): Promise<void> {
  await query(
    em(),
    `insert into sync_logs (id, short_id, connection_id, trigger, status, started_at, finished_at)
     values (?, ?, ?, 'schedule', ?, now() - make_interval(days => ?), now() - make_interval(days => ?))`,
    [crypto.randomUUID(), newShortId(), connectionId, status, daysAgo, daysAgo],
  );
}

const ages = async (connectionId: string) =>
  (
    await query<{ days: number; status: string }>(
      em(),
      `select extract(day from now() - started_at)::int as days, status from sync_logs
       where connection_id = ? order by started_at desc`,
      [connectionId],
    )
  ).map((r) => `${r.days}:${r.status}`);

describe("sync log retention", () => {
  it("deletes finished logs past the retention, keeping each connection's newest and running ones", async () => {
    const busy = await connection();
    await log(busy, 1);
    await log(busy, 89, "error");
    await log(busy, 91);
    await log(busy, 120, "interrupted");
    await log(busy, 200, "running");
    // A connection that has not synced for half a year keeps its last log.
    const idle = await connection();
    await log(idle, 180, "error");
    await log(idle, 181);

    expect(await purgeSyncLogs(em(), 90)).toBe(3);
    expect(await ages(busy)).toEqual(["1:success", "89:error", "200:running"]);
    expect(await ages(idle)).toEqual(["180:error"]);
    expect(await purgeSyncLogs(em(), 90)).toBe(0);

    // A shorter retention, as COFFER_SYNC_LOG_RETENTION_DAYS sets it, through the core's periodic task.
    const config = coreConfigFromEnv({ DATABASE_URL: "postgres://x/y", COFFER_SYNC_LOG_RETENTION_DAYS: "30" });
    expect(config.syncLogRetentionDays).toBe(30);
    await purgeSyncLogsTask.run(em(), config);
    expect(await ages(busy)).toEqual(["1:success", "200:running"]);
  });
});
