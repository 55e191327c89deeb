import type { Actor } from "../../ledger/actor.js";
import type { Em } from "../orm.js";
import { pgArray, query } from "../sql.js";

/** Every rejection: the detection key, the amount range and the transactions it covers. */
export async function listSeriesRejections(
  em: Em,
): Promise<{ key: string | null; lo: string; hi: string; ids: string[] }[]> {
  return query<{ key: string | null; lo: string; hi: string; ids: string[] }>(
    em,
    `select detection_key as key, amount_min::text as lo, amount_max::text as hi, transaction_ids::text[] as ids
     from series_rejections`,
  );
}

/** A proposal someone said is wrong, by its detection key and amount range. */
export async function insertProposalRejection(
  em: Em,
  r: { key: string; amountMin: string; amountMax: string; actor: Actor },
): Promise<void> {
  await query(
    em,
    `insert into series_rejections (id, detection_key, amount_min, amount_max, cause,
       created_by_type, created_by_id, created_by_name)
     values (?, ?, ?, ?, 'rejected', ?, ?, ?)`,
    [crypto.randomUUID(), r.key, r.amountMin, r.amountMax, r.actor.type, r.actor.id, r.actor.name],
  );
}

/**
 * A deleted series, remembered so detection never proposes it again: its
 * members' amount range, or its expected amount ± tolerance when it has none.
 */
export async function insertDeletedSeriesRejection(
  em: Em,
  r: {
    detectionKey: string | null | undefined;
    lo: string | null;
    hi: string | null;
    expectedAmount: string;
    amountTolerance: string;
    transactionIds: string[];
    seriesName: string;
    actor: Actor;
  },
): Promise<void> {
  await query(
    em,
    `insert into series_rejections (id, detection_key, amount_min, amount_max, transaction_ids, cause, series_name,
       created_by_type, created_by_id, created_by_name)
     values (?, ?, coalesce(?::numeric, ?::numeric - ?::numeric), coalesce(?::numeric, ?::numeric + ?::numeric),
       ?::uuid[], 'deleted', ?, ?, ?, ?)`,
    [
      crypto.randomUUID(),
      r.detectionKey ?? null,
      r.lo,
      r.expectedAmount,
      r.amountTolerance,
      r.hi,
      r.expectedAmount,
      r.amountTolerance,
      pgArray(r.transactionIds),
      r.seriesName,
      r.actor.type,
      r.actor.id,
      r.actor.name,
    ],
  );
}
