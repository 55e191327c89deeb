import { JOB_SCHEMA, SYNC_QUEUE } from "../job-queue-schema.js";
import type { Em } from "../orm.js";
import { iso, query } from "../sql.js";

/** A sync job of one connection that has not started yet: pg-boss's row, in Coffer's words. */
export interface PendingSyncRow {
  state: "waiting" | "retrying";
  requestedAt: string;
  /** When it may start. */
  nextAttemptAt: string;
  /** Tries of it that failed so far. */
  retries: number;
}

/**
 * The connection's sync job that waits to start, if any: a retry (it failed
 * transiently and waits for its next try) first, else the oldest waiting one.
 * A running job is not one: it may have read the provider before whatever
 * prompted a new request. pg-boss keys sync jobs by the connection's UUID.
 */
export async function pendingSyncJob(em: Em, connectionId: string): Promise<PendingSyncRow | undefined> {
  const [row] = await query<PendingSyncRow>(
    em,
    `select case j.state when 'retry' then 'retrying' else 'waiting' end as state,
       ${iso("j.created_on")} as "requestedAt", ${iso("j.start_after")} as "nextAttemptAt",
       -- pg-boss counts a retry when it starts: a job waiting for its retry has failed once more than that.
       j.retry_count + case when j.state = 'retry' then 1 else 0 end as retries
     from ${JOB_SCHEMA}.job j
     where j.name = ? and j.singleton_key = ? and j.state in ('created', 'retry')
     order by case j.state when 'retry' then 0 else 1 end, j.created_on
     limit 1`,
    [SYNC_QUEUE, connectionId],
  );
  return row;
}
