import type { CategorySource } from "../entities/index.js";
import type { Em } from "../orm.js";
import { pgArray, query } from "../sql.js";

/**
 * The statements that change a transaction on a person's or an agent's
 * request (categorize, tag, delete, series membership…), and the row locks
 * those changes take first. The reads are in transactions.ts.
 */

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
