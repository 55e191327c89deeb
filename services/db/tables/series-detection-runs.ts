import type { Em } from "../orm.js";
import { query } from "../sql.js";

export async function insertSeriesDetectionRun(
  em: Em,
  r: {
    trigger: string;
    minConfidence: string;
    proposals: number;
    created: number;
    extended: number;
    linked: number;
    startedAt: Date;
  },
): Promise<void> {
  await query(
    em,
    `insert into series_detection_runs (id, trigger, min_confidence, proposals, series_created, series_extended,
       transactions_linked, started_at, finished_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, clock_timestamp())`,
    [crypto.randomUUID(), r.trigger, r.minConfidence, r.proposals, r.created, r.extended, r.linked, r.startedAt],
  );
}

/** When the last automatic run (daily or after a sync) finished, or null. */
export async function lastAutomaticDetectionAt(em: Em): Promise<Date | null> {
  const [last] = await query<{ at: Date | string | null }>(
    em,
    `select max(finished_at) as at from series_detection_runs where trigger in ('nightly', 'sync')`,
  );
  return last.at === null ? null : new Date(last.at);
}
