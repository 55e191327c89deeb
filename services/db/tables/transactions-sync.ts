import type { CategorySource } from "../entities/index.js";
import type { Em } from "../orm.js";
import { pgArray, query } from "../sql.js";

/**
 * The statements of a sync page (services/sync/apply-page.ts): which rows are
 * stored, the page's upsert, pending → posted carry-over and the provider's
 * removals. Each runs once per page, on arrays of the page's rows.
 */

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
