import type { CategorySource } from "../entities/index.js";
import type { Em } from "../orm.js";
import { pgArray, query, table } from "../sql.js";

/**
 * Every statement that writes `transactions`, and the reads whose main table
 * it is. "How can a transaction change?" is answered by this file: each
 * writer below is named for the change it makes. The version trigger
 * (transactions_version) records the earlier version of a row changed here.
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

// ---------------------------------------------------------------- locks

/** What a single-row write reads under its lock. */
export interface LockedTransactionRow {
  id: string;
  short_id: string;
  category_id: string | null;
  category_slug: string;
  category_source: CategorySource | null;
  tag_ids: string[];
  metadata: Record<string, unknown>;
  deleted_at: string | null;
}

/** One row (deleted or not), locked until the surrounding transaction ends, with its category's slug. */
export async function lockTransactionRow(tx: Em, id: string): Promise<LockedTransactionRow | null> {
  const [row] = await query<LockedTransactionRow>(
    tx,
    `select t.id, t.short_id, t.category_id, coalesce(c.slug, 'uncategorized') as category_slug, t.category_source,
       t.tag_ids::text[] as tag_ids, t.metadata, t.deleted_at::text as deleted_at
     from transactions t left join categories c on c.id = t.category_id
     where t.id = ?
     for update of t`,
    [id],
  );
  return row ?? null;
}

/** What a batch categorization reads under its lock. */
export interface LockedCategoryRow {
  id: string;
  category_id: string | null;
  category_source: CategorySource | null;
  slug: string;
  deleted: boolean;
}

/** The rows' categories, locked in id order (so two overlapping batches cannot deadlock). */
export async function lockTransactionCategories(tx: Em, ids: readonly string[]): Promise<LockedCategoryRow[]> {
  return query<LockedCategoryRow>(
    tx,
    `select t.id, t.category_id, t.category_source, coalesce(c.slug, 'uncategorized') as slug,
       t.deleted_at is not null as deleted
     from transactions t left join categories c on c.id = t.category_id
     where t.id = any(?::uuid[])
     order by t.id
     for update of t`,
    [pgArray(ids)],
  );
}

/** What a counterparty assignment reads under its lock. */
export interface LockedCounterpartyRow {
  id: string;
  short_id: string;
  counterparty_id: string | null;
  deleted: boolean;
}

/** The rows' counterparties, locked in id order. */
export async function lockTransactionCounterparties(tx: Em, ids: readonly string[]): Promise<LockedCounterpartyRow[]> {
  return query<LockedCounterpartyRow>(
    tx,
    `select id, short_id, counterparty_id, deleted_at is not null as deleted from transactions
     where id = any(?::uuid[]) order by id for update`,
    [pgArray(ids)],
  );
}

/** The parts of a transaction row a series change reads. */
export interface SeriesMemberRow {
  id: string;
  short_id: string;
  series_id: string | null;
  iso_currency_code: string;
  amount: string;
  date: string;
  deleted: boolean;
}

/** The rows a series change names, locked in id order. */
export async function lockSeriesMembers(tx: Em, ids: readonly string[]): Promise<SeriesMemberRow[]> {
  return query<SeriesMemberRow>(
    tx,
    `select id, short_id, series_id, iso_currency_code, amount::text as amount, to_char(date, 'YYYY-MM-DD') as date,
       deleted_at is not null as deleted
     from transactions where id = any(?::uuid[]) order by id for update`,
    [pgArray(ids)],
  );
}

// ---------------------------------------------------------------- a person's or an agent's changes

export async function softDeleteTransaction(tx: Em, id: string): Promise<void> {
  await query(tx, `update transactions set deleted_at = now() where id = ?`, [id]);
}

/** A row the provider had removed and a person brings back is theirs now: live, without the removal mark. */
export async function restoreDeletedTransaction(tx: Em, id: string): Promise<void> {
  await query(tx, `update transactions set deleted_at = null, provider_removed_at = null where id = ?`, [id]);
}

export async function setTransactionTagIds(tx: Em, id: string, tagIds: readonly string[]): Promise<void> {
  await query(tx, `update transactions set tag_ids = ?::uuid[] where id = ?`, [pgArray(tagIds), id]);
}

export async function setTransactionMetadata(tx: Em, id: string, metadata: Record<string, unknown>): Promise<void> {
  await query(tx, `update transactions set metadata = ?::jsonb where id = ?`, [JSON.stringify(metadata), id]);
}

/** Sets (or, with a null category and source, resets) the category of these rows. */
export async function setTransactionsCategory(
  tx: Em,
  ids: readonly string[],
  categoryId: string | null,
  source: CategorySource | null,
): Promise<void> {
  await query(tx, `update transactions set category_id = ?, category_source = ? where id = any(?::uuid[])`, [
    categoryId,
    source,
    pgArray(ids),
  ]);
}

export async function setTransactionsCounterparty(
  tx: Em,
  ids: readonly string[],
  counterpartyId: string | null,
): Promise<void> {
  await query(tx, `update transactions set counterparty_id = ?::uuid where id = any(?::uuid[])`, [
    counterpartyId,
    pgArray(ids),
  ]);
}

/**
 * Moves every transaction of category `fromId` to `toId` (null: uncategorized).
 * `keepSource`: a merge keeps how each transaction got its category;
 * uncategorizing clears the source too. Returns the rows moved and their source before.
 */
export async function moveTransactionsToCategory(
  tx: Em,
  fromId: string,
  toId: string | null,
  keepSource: boolean,
): Promise<{ id: string; previous_source: string | null }[]> {
  return query<{ id: string; previous_source: string | null }>(
    tx,
    `with old as (select id, category_source from transactions where category_id = ? for update)
     update transactions t set category_id = ?::uuid, category_source = ${keepSource ? "t.category_source" : "null"}
     from old where t.id = old.id
     returning t.id, old.category_source as previous_source`,
    [fromId, toId],
  );
}

/** Takes a tag off every transaction carrying it; returns those rows. */
export async function removeTagFromTransactions(tx: Em, tagId: string): Promise<string[]> {
  const rows = await query<{ id: string }>(
    tx,
    `update transactions set tag_ids = array_remove(tag_ids, ?::uuid) where tag_ids @> array[?::uuid] returning id`,
    [tagId, tagId],
  );
  return rows.map((r) => r.id);
}

/** Puts rows into a series, each only if it still belongs to none. Returns the ids linked. */
export async function linkTransactionsToSeries(tx: Em, seriesId: string, ids: readonly string[]): Promise<string[]> {
  const rows = await query<{ id: string }>(
    tx,
    `update transactions set series_id = ?::uuid where id = any(?::uuid[]) and series_id is null returning id`,
    [seriesId, pgArray(ids)],
  );
  return rows.map((r) => r.id);
}

/** Takes rows out of a series (those that belong to it). */
export async function unlinkTransactionsFromSeries(tx: Em, seriesId: string, ids: readonly string[]): Promise<void> {
  await query(tx, `update transactions set series_id = null where id = any(?::uuid[]) and series_id = ?::uuid`, [
    pgArray(ids),
    seriesId,
  ]);
}

// ---------------------------------------------------------------- importers

/** A row as an importer (demo data, tests' seeds) inserts it. */
export interface ImportedTransactionRow {
  id: string;
  short_id: string;
  account_id: string;
  amount: string;
  iso_currency_code: string;
  date: string;
  authorized_date: string | null;
  provider: string;
  provider_transaction_id: string;
  provider_name: string;
  provider_merchant_name: string | null;
  provider_category_primary: string | null;
  provider_category_detailed: string | null;
  pending: boolean;
  category_id: string | null;
  category_source: CategorySource | null;
  tag_ids: string[];
  metadata: string;
  counterparty_id: string | null;
}

/** Inserts rows, skipping any that clashes on a unique key; returns the ids inserted. */
export async function insertImportedTransactions(em: Em, rows: readonly ImportedTransactionRow[]): Promise<string[]> {
  const out: { id: string }[] = await table(em, "transactions")
    .insert(rows as ImportedTransactionRow[])
    .onConflict()
    .ignore()
    .returning("id");
  return out.map((r) => r.id);
}

export type ProviderKey = { account_id: string; provider: string; provider_transaction_id: string };

/** Which of these (account, provider, provider transaction id) keys are stored. */
export async function storedProviderKeys(em: Em, keys: readonly ProviderKey[]): Promise<ProviderKey[]> {
  return (await table(em, "transactions")
    .select("account_id", "provider", "provider_transaction_id")
    .whereIn(
      ["account_id", "provider", "provider_transaction_id"],
      keys.map((r) => [r.account_id, r.provider, r.provider_transaction_id]),
    )) as ProviderKey[];
}

// ---------------------------------------------------------------- the sync engine

/** Which of a page's (account, provider transaction id) keys are stored already (live, removed or deleted). */
export async function storedSyncKeys(
  tx: Em,
  provider: string,
  keys: { accountIds: readonly string[]; ptids: readonly string[] },
): Promise<{ account_id: string; ptid: string }[]> {
  return query<{ account_id: string; ptid: string }>(
    tx,
    `select t.account_id, t.provider_transaction_id as ptid
     from unnest(?::uuid[], ?::text[]) as k(account_id, ptid)
     join transactions t on t.account_id = k.account_id and t.provider = ? and t.provider_transaction_id = k.ptid`,
    [pgArray(keys.accountIds), pgArray(keys.ptids), provider],
  );
}

/** A synced row as the page writes it, with what the rules made of it when it is new. */
export interface SyncedTransactionRow {
  id: string;
  shortId: string;
  accountId: string;
  amount: string;
  currency: string;
  date: string;
  authorizedDate: string | null;
  ptid: string;
  name: string;
  merchant: string | null;
  primary: string | null;
  detailed: string | null;
  pending: boolean;
  categoryId: string | null;
  categorySource: CategorySource | null;
  tagIds: readonly string[];
  metadata: Record<string, unknown>;
  counterpartyId: string | null;
}

/** A row the page upsert wrote. */
export interface WrittenSyncRow {
  id: string;
  account_id: string;
  provider_transaction_id: string;
  inserted: boolean;
}

/** Who may be overridden by the provider's category: nobody chose one, or it was the provider's own. */
const PROVIDER_OWNS_CATEGORY = `(t.category_source is null or t.category_source = 'system')`;

/**
 * Inserts new rows and updates changed ones, keyed on (account, provider,
 * provider transaction id). A row a person deleted is never touched (it
 * stays deleted); a row the provider removed comes back when the provider
 * sends it again. Rows that did not change are not written (and not
 * returned). The category follows the provider's only while nobody else
 * chose one; tags, metadata and the counterparty are written on insert only.
 */
export async function upsertSyncedTransactions(
  tx: Em,
  provider: string,
  list: readonly SyncedTransactionRow[],
): Promise<WrittenSyncRow[]> {
  const arrays = [
    pgArray(list.map((r) => r.shortId)),
    pgArray(list.map((r) => r.id)),
    pgArray(list.map((r) => r.accountId)),
    pgArray(list.map((r) => r.amount)),
    pgArray(list.map((r) => r.currency)),
    pgArray(list.map((r) => r.date)),
    pgArray(list.map((r) => r.authorizedDate)),
    pgArray(list.map((r) => r.ptid)),
    pgArray(list.map((r) => r.name)),
    pgArray(list.map((r) => r.merchant)),
    pgArray(list.map((r) => r.primary)),
    pgArray(list.map((r) => r.detailed)),
    pgArray(list.map((r) => (r.pending ? "t" : "f"))),
    pgArray(list.map((r) => r.categoryId)),
    pgArray(list.map((r) => r.categorySource)),
    pgArray(list.map((r) => (r.tagIds.length ? `{${r.tagIds.join(",")}}` : "{}"))),
    pgArray(list.map((r) => JSON.stringify(r.metadata))),
    pgArray(list.map((r) => r.counterpartyId)),
  ];
  return query<WrittenSyncRow>(
    tx,
    `insert into transactions as t (id, short_id, account_id, amount, iso_currency_code, date, authorized_date,
       provider, provider_transaction_id, provider_name, provider_merchant_name, provider_category_primary,
       provider_category_detailed, pending, category_id, category_source, tag_ids, metadata, counterparty_id)
     select x.id, x.short_id, x.account_id, x.amount, x.ccy, x.date, x.authorized_date, ?, x.ptid,
       x.name, x.merchant, x.cat_primary, x.cat_detailed, x.pending, x.category_id, x.category_source,
       x.tag_ids::uuid[], x.metadata::jsonb, x.counterparty_id
     from unnest(?::text[], ?::uuid[], ?::uuid[], ?::numeric[], ?::text[], ?::date[], ?::date[], ?::text[],
       ?::text[], ?::text[], ?::text[], ?::text[], ?::boolean[], ?::uuid[], ?::text[], ?::text[], ?::text[],
       ?::uuid[])
       as x(short_id, id, account_id, amount, ccy, date, authorized_date, ptid, name, merchant, cat_primary,
         cat_detailed, pending, category_id, category_source, tag_ids, metadata, counterparty_id)
     on conflict (account_id, provider, provider_transaction_id) do update set
       amount = excluded.amount, iso_currency_code = excluded.iso_currency_code, date = excluded.date,
       authorized_date = excluded.authorized_date, provider_name = excluded.provider_name,
       provider_merchant_name = excluded.provider_merchant_name,
       provider_category_primary = excluded.provider_category_primary,
       provider_category_detailed = excluded.provider_category_detailed, pending = excluded.pending,
       category_id = case when ${PROVIDER_OWNS_CATEGORY} then excluded.category_id else t.category_id end,
       category_source = case when ${PROVIDER_OWNS_CATEGORY} then excluded.category_source
         else t.category_source end,
       deleted_at = case when t.provider_removed_at is not null then null else t.deleted_at end,
       provider_removed_at = null
     where (t.deleted_at is null or t.provider_removed_at is not null)
       and (t.amount, t.iso_currency_code, t.date, t.authorized_date, t.provider_name, t.provider_merchant_name,
         t.provider_category_primary, t.provider_category_detailed, t.pending, t.provider_removed_at,
         case when ${PROVIDER_OWNS_CATEGORY} then t.category_id end)
       is distinct from (excluded.amount, excluded.iso_currency_code, excluded.date, excluded.authorized_date,
         excluded.provider_name, excluded.provider_merchant_name, excluded.provider_category_primary,
         excluded.provider_category_detailed, excluded.pending, null::timestamptz,
         case when ${PROVIDER_OWNS_CATEGORY} then excluded.category_id end)
     returning t.id, t.account_id, t.provider_transaction_id, (t.xmax = 0) as inserted`,
    [provider, ...arrays],
  );
}

/** A pending row a new posted row took over. */
export interface CarriedOverRow {
  new_id: string;
  old_id: string;
  old_short_id: string;
  /** How many comments moved to the posted row. */
  comments: number;
  /** Whether the pending row was still live (not removed yet). */
  live: boolean;
}

/**
 * Pending → posted: each new posted row (`newIds[i]`, in `accountIds[i]`)
 * takes over what people and rules gave the pending row it names
 * (`pendingPtids[i]`): a category a person, an agent or a rule chose, tags,
 * metadata, the counterparty, the comments (moved), and its deletion if a
 * person deleted it. The pending row is found whether it is live or removed.
 */
export async function carryOverPendingTransactions(
  tx: Em,
  provider: string,
  successors: { newIds: readonly string[]; accountIds: readonly string[]; pendingPtids: readonly string[] },
): Promise<CarriedOverRow[]> {
  return query<CarriedOverRow>(
    tx,
    `with pairs as (
       select x.new_id, p.id as old_id, p.short_id as old_short_id, p.category_id, p.category_source, p.tag_ids,
         p.metadata, p.counterparty_id, p.deleted_at is not null and p.provider_removed_at is null as person_deleted,
         p.deleted_at is null as live
       from unnest(?::uuid[], ?::uuid[], ?::text[]) as x(new_id, account_id, pending_ptid)
       join transactions p
         on p.account_id = x.account_id and p.provider = ? and p.provider_transaction_id = x.pending_ptid
       where p.id <> x.new_id
     ), carried as (
       update transactions n set
         category_id = case when pairs.category_source in ('user', 'agent', 'rule') then pairs.category_id
           else n.category_id end,
         category_source = case when pairs.category_source in ('user', 'agent', 'rule') then pairs.category_source
           else n.category_source end,
         tag_ids = array(select distinct u from unnest(n.tag_ids || pairs.tag_ids) u order by u),
         metadata = pairs.metadata || n.metadata,
         counterparty_id = coalesce(n.counterparty_id, pairs.counterparty_id),
         deleted_at = case when pairs.person_deleted then now() else n.deleted_at end
       from pairs where n.id = pairs.new_id
       returning n.id
     ), moved as (
       update comments c set transaction_id = pairs.new_id from pairs where c.transaction_id = pairs.old_id
       returning c.transaction_id
     )
     select pairs.new_id, pairs.old_id, pairs.old_short_id, pairs.live,
       (select count(*)::int from moved where moved.transaction_id = pairs.new_id) as comments
     from pairs`,
    [pgArray(successors.newIds), pgArray(successors.accountIds), pgArray(successors.pendingPtids), provider],
  );
}

/** Marks live rows removed by their provider. */
export async function markProviderRemoved(tx: Em, ids: readonly string[]): Promise<void> {
  await query(
    tx,
    `update transactions set deleted_at = now(), provider_removed_at = now()
     where id = any(?::uuid[]) and deleted_at is null`,
    [pgArray(ids)],
  );
}

/** The rows a provider's removal feed names, unless a person deleted them already; returns those removed. */
export async function removeListedTransactions(
  tx: Em,
  provider: string,
  keys: { accountIds: readonly string[]; ptids: readonly string[] },
): Promise<string[]> {
  const rows = await query<{ id: string }>(
    tx,
    `update transactions t set deleted_at = now(), provider_removed_at = now()
     from unnest(?::uuid[], ?::text[]) as x(account_id, ptid)
     where t.account_id = x.account_id and t.provider = ? and t.provider_transaction_id = x.ptid
       and t.deleted_at is null
     returning t.id`,
    [pgArray(keys.accountIds), pgArray(keys.ptids), provider],
  );
  return rows.map((r) => r.id);
}

/**
 * Removes the live pending rows of each account dated within its window
 * [from, to] that are not among `kept` (the page's keys); returns those removed.
 */
export async function removeVanishedPendingTransactions(
  tx: Em,
  provider: string,
  windows: { accountIds: readonly string[]; from: readonly string[]; to: readonly string[] },
  kept: { accountIds: readonly string[]; ptids: readonly string[] },
): Promise<string[]> {
  const rows = await query<{ id: string }>(
    tx,
    `update transactions t set deleted_at = now(), provider_removed_at = now()
     from unnest(?::uuid[], ?::date[], ?::date[]) as w(account_id, from_date, to_date)
     where t.account_id = w.account_id and t.provider = ? and t.pending and t.deleted_at is null
       and t.date between w.from_date and w.to_date
       and not exists (select 1 from unnest(?::uuid[], ?::text[]) as k(account_id, ptid)
                       where k.account_id = t.account_id and k.ptid = t.provider_transaction_id)
     returning t.id`,
    [
      pgArray(windows.accountIds),
      pgArray(windows.from),
      pgArray(windows.to),
      provider,
      pgArray(kept.accountIds),
      pgArray(kept.ptids),
    ],
  );
  return rows.map((r) => r.id);
}

// ---------------------------------------------------------------- the rules

/** The values the rules leave on a stored row, at the version (seq) they read. */
export interface RuledRow {
  id: string;
  seq: string;
  category_id: string | null;
  category_source: CategorySource | null;
  tag_ids: string[];
  metadata: Record<string, unknown>;
  counterparty_id: string | null;
}

/**
 * Writes the rules' values in one statement; with `checkVersion`, only rows
 * still at the version read. Returns the ids written.
 */
export async function writeRuledTransactions(
  tx: Em,
  rows: readonly RuledRow[],
  opts: { checkVersion: boolean },
): Promise<string[]> {
  const updated = await query<{ id: string }>(
    tx,
    `update transactions t set category_id = v.category_id, category_source = v.category_source,
       tag_ids = v.tag_ids, metadata = v.metadata, counterparty_id = v.counterparty_id
     from jsonb_to_recordset(?::jsonb) as v(id uuid, seq bigint, category_id uuid, category_source text,
       tag_ids uuid[], metadata jsonb, counterparty_id uuid)
     where t.id = v.id and t.deleted_at is null${opts.checkVersion ? " and t.seq = v.seq" : ""}
     returning t.id`,
    [JSON.stringify(rows)],
  );
  return updated.map((r) => r.id);
}

/**
 * Locks live rows in id order (the rows a rule changes without changing
 * their columns, e.g. it only adds a comment); with `checkVersion`, only
 * rows still at the version read. Returns the ids locked.
 */
export async function lockTransactionsAtVersion(
  tx: Em,
  rows: readonly { id: string; seq: string }[],
  opts: { checkVersion: boolean },
): Promise<string[]> {
  const locked = await query<{ id: string }>(
    tx,
    `select t.id from transactions t join jsonb_to_recordset(?::jsonb) as v(id uuid, seq bigint) on t.id = v.id
     where t.deleted_at is null${opts.checkVersion ? " and t.seq = v.seq" : ""} order by t.id for update of t`,
    [JSON.stringify(rows)],
  );
  return locked.map((r) => r.id);
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
