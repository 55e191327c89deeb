import pg from "pg";

/**
 * SQL over pgboss.job: a sync job waiting, retrying or running now. The schedule's next sync of a
 * connection, queued when a sync ends to start an interval later, is not pending.
 */
export const PENDING_SYNC_JOB = `name = 'coffer-sync' and state in ('created', 'retry', 'active')
  and not (state = 'created' and singleton_key like '%:schedule' and start_after > now() + interval '10 minutes')`;

export interface SyncJob {
  trigger: string;
  state: string;
  output: Record<string, unknown> | null;
}

/**
 * The sync jobs ever queued for a connection (by UUID or short id), oldest
 * first, read from pg-boss's tables; not the schedule's own (its next sync,
 * queued an interval ahead whenever a sync ends). A request queues its job
 * before it answers, so this is the witness that one did or did not ask for a
 * sync: no need to wait and see whether a sync shows up.
 */
export async function syncJobsOf(databaseUrl: string, connection: string): Promise<SyncJob[]> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<SyncJob>(
      `with c as (select id::text as id from connections where id::text = $1 or short_id = $1)
       select j.data->>'trigger' as trigger, j.state::text as state, j.output
       from (select data, state, output, created_on, name from pgboss.job
             union all select data, state, output, created_on, name from pgboss.archive) j
       where j.name = 'coffer-sync' and j.data->>'connectionId' = (select id from c)
         and not coalesce((j.data->>'scheduled')::boolean, false)
       order by j.created_on`,
      [connection],
    );
    return rows;
  } finally {
    await client.end();
  }
}
