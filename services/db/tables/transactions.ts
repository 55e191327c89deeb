import type { Em } from "../orm.js";
import { pgArray, query } from "../sql.js";

/**
 * The reads whose main table is `transactions`. Its writers are split by
 * who changes a row, so that "how can a transaction change?" is answered by
 * four files: transactions-edits.ts (a person's or an agent's changes and
 * their locks), transactions-sync.ts (the sync engine's page),
 * transactions-rules.ts (the rules pass) and transactions-import.ts (demo
 * data and seeds). The version trigger (transactions_version) records the
 * earlier version of a row changed by any of them.
 */

/** How a row is named in a lookup: its UUID or its short id. */
type IdLookup = { column: "id" | "short_id"; value: string };

// ---------------------------------------------------------------- lookups

/** The UUID of the transaction a lookup names (soft-deleted ones only when asked), or null. */
export async function findTransactionId(
  em: Em,
  lookup: IdLookup,
  opts: { includeDeleted?: boolean } = {},
): Promise<string | null> {
  const [row] = await query<{ id: string }>(
    em,
    `select id from transactions where ${lookup.column} = ?${opts.includeDeleted ? "" : " and deleted_at is null"}`,
    [lookup.value],
  );
  return row?.id ?? null;
}

/** The live transactions among these UUIDs and short ids. */
export async function findLiveTransactionsByIds(
  em: Em,
  uuids: readonly string[],
  shortIds: readonly string[],
): Promise<{ id: string; short_id: string }[]> {
  return query<{ id: string; short_id: string }>(
    em,
    `select id, short_id from transactions
     where (id = any(?::uuid[]) or short_id = any(?::text[])) and deleted_at is null`,
    [pgArray(uuids), pgArray(shortIds)],
  );
}

/** Which of these UUIDs name live transactions. */
export async function liveTransactionIds(em: Em, ids: readonly string[]): Promise<Set<string>> {
  if (ids.length === 0) return new Set();
  const rows = await query<{ id: string }>(
    em,
    `select id from transactions where id = any(?::uuid[]) and deleted_at is null`,
    [pgArray(ids)],
  );
  return new Set(rows.map((r) => r.id));
}

/** Whether a live transaction has this UUID. */
export async function isLiveTransaction(em: Em, id: string): Promise<boolean> {
  const rows = await query(em, `select 1 from transactions where id = ?::uuid and deleted_at is null`, [id]);
  return rows.length > 0;
}

/** The short id of a transaction (deleted or not), or null. */
export async function findTransactionShortId(em: Em, id: string): Promise<string | null> {
  const [row] = await query<{ short_id: string }>(em, `select short_id from transactions where id = ?`, [id]);
  return row?.short_id ?? null;
}

/** Live rows an importer brought into an account, by provider transaction id. */
export async function findImportedTransactions(
  em: Em,
  req: { accountId: string; provider: string; providerTransactionIds: readonly string[] },
): Promise<{ id: string; provider_transaction_id: string }[]> {
  return query<{ id: string; provider_transaction_id: string }>(
    em,
    `select id, provider_transaction_id from transactions
     where account_id = ? and provider = ? and provider_transaction_id = any(?::text[]) and deleted_at is null`,
    [req.accountId, req.provider, pgArray(req.providerTransactionIds)],
  );
}

/** The sum of each account's live transactions, in cents (accounts without any are left out). */
export async function sumCentsByAccount(
  em: Em,
  accountIds: readonly string[],
): Promise<{ account_id: string; cents: string }[]> {
  return query<{ account_id: string; cents: string }>(
    em,
    `select account_id, (sum(amount) * 100)::bigint::text as cents from transactions
     where account_id = any(?::uuid[]) and deleted_at is null group by account_id`,
    [pgArray(accountIds)],
  );
}

// ---------------------------------------------------------------- reads for other areas

/** How many live transactions there are. */
export async function countLiveTransactions(em: Em): Promise<number> {
  const [row] = await query<{ n: string }>(em, `select count(*)::text as n from transactions where deleted_at is null`);
  return Number(row.n);
}

/** Short ids by UUID of these transactions (deleted or not; unknown ones are left out). */
export async function transactionShortIds(em: Em, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await query<{ id: string; short_id: string }>(
    em,
    `select id, short_id from transactions where id = any(?::uuid[])`,
    [pgArray(ids)],
  );
  return new Map(rows.map((r) => [r.id, r.short_id]));
}

/** The series (short id, or null) each of these transactions belongs to. */
export async function transactionSeries(
  em: Em,
  ids: readonly string[],
): Promise<{ id: string; series: string | null }[]> {
  return query<{ id: string; series: string | null }>(
    em,
    `select t.id, s.short_id as series from transactions t left join series s on s.id = t.series_id
     where t.id = any(?::uuid[])`,
    [pgArray(ids)],
  );
}

/** A transaction as series detection reads it, with the series it belongs to. */
export interface DetectionMemberRow {
  id: string;
  short_id: string;
  series_id: string | null;
  series_short_id: string | null;
  series_name: string | null;
  series_status: string | null;
}

export async function detectionMembers(em: Em, ids: readonly string[]): Promise<DetectionMemberRow[]> {
  return query<DetectionMemberRow>(
    em,
    `select t.id, t.short_id, t.series_id, s.short_id as series_short_id, s.name as series_name,
       s.status as series_status
     from transactions t left join series s on s.id = t.series_id where t.id = any(?::uuid[])`,
    [pgArray(ids)],
  );
}

/**
 * Every posted (not pending), live transaction in the shape `T` names (the
 * series detector's): the rows come out of SQL in that shape, so a million
 * of them are read without a second copy.
 */
export async function postedHistory<T>(em: Em): Promise<T[]> {
  return query<T & object>(
    em,
    `select t.id, to_char(t.date, 'YYYY-MM-DD') as date, t.amount::text as amount, t.iso_currency_code as currency,
       t.counterparty_id as "counterpartyId", cp.name as "counterpartyName",
       t.provider_merchant_name as "merchantName", t.provider_name as name,
       t.provider_category_detailed as "categoryDetailed"
     from transactions t left join counterparties cp on cp.id = t.counterparty_id
     where t.deleted_at is null and not t.pending`,
  );
}

/** A currency other than `currency` among a series' live transactions, or null. */
export async function otherSeriesCurrency(em: Em, seriesId: string, currency: string): Promise<string | null> {
  const [row] = await query<{ iso_currency_code: string }>(
    em,
    `select distinct iso_currency_code from transactions
     where series_id = ? and deleted_at is null and iso_currency_code <> ? limit 1`,
    [seriesId, currency],
  );
  return row?.iso_currency_code ?? null;
}

/** A series' transactions (deleted or not), locked in id order. */
export async function lockSeriesTransactions(tx: Em, seriesId: string): Promise<string[]> {
  const rows = await query<{ id: string }>(
    tx,
    `select id from transactions where series_id = ? order by id for update`,
    [seriesId],
  );
  return rows.map((r) => r.id);
}

/** The smallest and largest amount of a series' transactions (null when it has none). */
export async function seriesAmountRange(em: Em, seriesId: string): Promise<{ lo: string | null; hi: string | null }> {
  const [row] = await query<{ lo: string | null; hi: string | null }>(
    em,
    `select min(amount)::text as lo, max(amount)::text as hi from transactions where series_id = ?`,
    [seriesId],
  );
  return row;
}
