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

const PENDING = `
  select j.id, case j.state when 'retry' then 'retrying' else 'waiting' end as state,
    ${iso("j.created_on")} as "requestedAt", ${iso("j.start_after")} as "nextAttemptAt",
    -- pg-boss counts a retry when it starts: a job waiting for its retry has failed once more than that.
    j.retry_count + case when j.state = 'retry' then 1 else 0 end as retries
  from ${JOB_SCHEMA}.job j`;

/**
 * The connection's sync job that waits to start, if any (a retry first, else
 * the oldest waiting one), made to start now: its `start_after` moves to now
 * when it was later (a retry's backoff, a deferral while the connection was
 * busy). A running job is not one: it may have read the provider before
 * whatever prompted the request. pg-boss keys sync jobs by the connection's
 * UUID, and its workers take a job whose start_after has passed.
 */
export async function startPendingSyncJobNow(em: Em, connectionId: string): Promise<PendingSyncRow | undefined> {
  const [row] = await query<PendingSyncRow>(
    em,
    `with pending as (
       select id from ${JOB_SCHEMA}.job
       where name = ? and singleton_key = ? and state in ('created', 'retry')
       order by case state when 'retry' then 0 else 1 end, created_on
       limit 1
       for update skip locked),
     moved as (
       update ${JOB_SCHEMA}.job j set start_after = least(j.start_after, now())
       from pending p where j.name = ? and j.id = p.id
       returning j.*)
     ${PENDING.replace(`from ${JOB_SCHEMA}.job j`, "from moved j")}`,
    [SYNC_QUEUE, connectionId, SYNC_QUEUE],
  );
  return row;
}

/** The connection's sync job that waits to start, if any, as startPendingSyncJobNow finds it (without moving it). */
export async function pendingSyncJob(em: Em, connectionId: string): Promise<PendingSyncRow | undefined> {
  const [row] = await query<PendingSyncRow>(
    em,
    `${PENDING}
     where j.name = ? and j.singleton_key = ? and j.state in ('created', 'retry')
     order by case j.state when 'retry' then 0 else 1 end, j.created_on
     limit 1`,
    [SYNC_QUEUE, connectionId],
  );
  return row;
}

/**
 * Moves a connection's waiting job (by pg-boss singleton key) to start within
 * `seconds` when it was due later, e.g. a scheduled sync queued under a longer
 * COFFER_SYNC_INTERVAL than the one the core runs with now. Returns whether one moved.
 */
export async function startWaitingSyncJobWithin(em: Em, singletonKey: string, seconds: number): Promise<boolean> {
  const rows = await query<{ id: string }>(
    em,
    `update ${JOB_SCHEMA}.job set start_after = now() + make_interval(secs => ?)
     where name = ? and singleton_key = ? and state = 'created' and start_after > now() + make_interval(secs => ?)
     returning id`,
    [seconds, SYNC_QUEUE, singletonKey, seconds],
  );
  return rows.length > 0;
}
