import type { Em } from "../orm.js";
import { query } from "../sql.js";

/**
 * The statements on `transaction_versions`: the earlier versions of changed
 * transactions, written by the transactions_version trigger only
 * (Migration0003TransactionSnapshots); the cursor pages read them with `transactions`.
 */

/** Deletes the versions superseded more than `retentionSeconds` before `now`; returns how many. */
export async function deleteVersionsOlderThan(em: Em, now: Date, retentionSeconds: number): Promise<number> {
  const rows = await query<{ n: string }>(
    em,
    `with gone as (delete from transaction_versions
                   where superseded_at < ?::timestamptz - make_interval(secs => ?) returning 1)
     select count(*)::text as n from gone`,
    [now, retentionSeconds],
  );
  return Number(rows[0].n);
}
