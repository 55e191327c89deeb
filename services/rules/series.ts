import type { Em } from "../db/orm.js";

/*
 * Recurring series (the `series` table and transactions.series_id) come with
 * their own migration, not yet on this branch. The rules engine reaches them
 * only through this module, so wiring them in touches nothing else:
 * - seriesOf will read transactions.series_id (joined to series.short_id);
 * - findSeries will look a series up by short id or UUID;
 * - assignSeries will set transactions.series_id where it is null.
 * Until then no transaction is in a series and no series exists, so a rule
 * cannot name one (assign_series is refused as an unknown series).
 */

export interface SeriesFacts {
  /** The series' short id, "" when the transaction is in none. */
  series: string;
  inSeries: boolean;
}

/** The series of each transaction, by transaction id. */
export async function seriesOf(_em: Em, transactionIds: readonly string[]): Promise<Map<string, SeriesFacts>> {
  // Reads transactions.series_id once series land; today no transaction is in a series.
  return new Map(transactionIds.map((id) => [id, { series: "", inSeries: false }]));
}

/** The series a rule action names (short id or UUID), or null when there is no such series. */
export async function findSeries(_em: Em, _raw: string): Promise<{ id: string; shortId: string } | null> {
  // Looks the series table up once series land; today there are none.
  return null;
}

/**
 * Puts transactions into series (assign_series fills only rows that have
 * none). Unreachable until series exist: findSeries refuses every
 * assign_series action at write time.
 */
export async function assignSeries(
  _tx: Em,
  assignments: readonly { transactionId: string; seriesShortId: string }[],
): Promise<void> {
  if (assignments.length > 0)
    throw new Error("assign_series needs the series table, which this database does not have");
}
