import { JOB_SCHEMA, SYNC_QUEUE } from "../job-queue-schema.js";
import type { Em } from "../orm.js";
import { iso, query } from "../sql.js";

/** A sync job of one connection that has not ended: pg-boss's row, in Coffer's words. */
export interface PendingSyncRow {
  state: "waiting" | "retrying" | "running";
  requestedAt: string;
  /** When a waiting or retrying job may start; null while it runs. */
  nextAttemptAt: string | null;
  retries: number;
}

/**
 * The connection's sync job that is waiting, retrying (failed, to be tried
 * again) or running, if any: the running one first, then a retry, then the
 * oldest waiting one. pg-boss keys sync jobs by the connection's UUID.
 */
export async function pendingSyncJob(em: Em, connectionId: string): Promise<PendingSyncRow | undefined> {
  const [row] = await query<PendingSyncRow>(
    em,
    `select case j.state when 'active' then 'running' when 'retry' then 'retrying' else 'waiting' end as state,
       ${iso("j.created_on")} as "requestedAt",
       case when j.state = 'active' then null else ${iso("j.start_after")} end as "nextAttemptAt",
       j.retry_count as retries
     from ${JOB_SCHEMA}.job j
     where j.name = ? and j.singleton_key = ? and j.state in ('created', 'retry', 'active')
     order by case j.state when 'active' then 0 when 'retry' then 1 else 2 end, j.created_on
     limit 1`,
    [SYNC_QUEUE, connectionId],
  );
  return row;
}
