import { AMOUNT } from "../../common/money.js";
import { CURRENCY, isCalendarDate } from "../../common/validation.js";
import type { Em } from "../db/orm.js";
import { pgArray, query } from "../db/sql.js";
import { lockConnectionCursor, updateConnectionCursor } from "../db/tables/connections.js";
import { addSyncLogPage } from "../db/tables/sync-logs.js";
import { retryOnShortIdClash } from "../ids/insert.js";
import { newShortId } from "../ids/short-id.js";
import type { Actor } from "../ledger/actor.js";
import { recordAnnotations } from "../ledger/annotations.js";
import type { NewTransactionValues } from "../rules/context-loader.js";
import { PageRules, type RunSummary } from "../rules/runner.js";
import { canonicalAmount } from "../shared/validate.js";
import type { ProviderName, ProviderTransaction, SyncPage } from "./providers/provider.js";
import { cleanText, type SyncedAccount } from "./sync-accounts.js";

/** Everything a page needs besides itself: which connection, its accounts, how categories map. */
export interface PageContext {
  connectionId: string;
  provider: ProviderName;
  syncLogId: string;
  /** The cursor the connection holds before this page; a page never commits over someone else's. */
  cursorBefore: string | null;
  accounts: Map<string, SyncedAccount>;
  /** The seeded category a provider category maps to (services/sync/category-map.ts), as a category UUID. */
  categoryOf: (primary: string | null, detailed: string | null) => string | null;
  actor: Actor;
  /** How many row reports the sync log holds already (it keeps the first MAX_LOGGED_SKIPS). */
  loggedSkips: number;
}

export interface PageResult {
  added: number;
  modified: number;
  removed: number;
  unchanged: number;
  skipped: { row: string; reason: string }[];
  insertedIds: string[];
  updatedIds: string[];
  removedIds: string[];
  /** What the rules did to this page's new and changed rows. */
  rules: RunSummary;
}

/** The sync log keeps this many row reports; its skipped_count counts them all. */
export const MAX_LOGGED_SKIPS = 100;

/** The connection was disconnected while it synced: the page is not applied. */
export class ConnectionGone extends Error {
  constructor() {
    super("The connection was disconnected during the sync");
    this.name = "ConnectionGone";
  }
}

/** Another writer moved the cursor under this sync (the sync lock makes that impossible; this guards it). */
export class CursorMoved extends Error {
  constructor() {
    super("The connection's cursor changed during the sync");
    this.name = "CursorMoved";
  }
}

interface Row {
  /** The UUID the row gets if it is new (a stored row keeps its own). */
  id: string;
  accountId: string;
  ptid: string;
  amount: string;
  currency: string;
  date: string;
  authorizedDate: string | null;
  name: string;
  merchant: string | null;
  primary: string | null;
  detailed: string | null;
  pending: boolean;
  pendingPtid: string | null;
  categoryId: string | null;
}

/** A provider row checked and shaped for the database, or why it cannot be stored. */
function normalise(ctx: PageContext, t: ProviderTransaction): Row | { reason: string } {
  const account = ctx.accounts.get(t.providerAccountId);
  if (!account) return { reason: "its account is not among the connection's accounts" };
  const ptid = cleanText(t.providerTransactionId, 300);
  if (!ptid) return { reason: "it has no transaction id" };
  if (typeof t.amount !== "string" || !AMOUNT.test(t.amount.trim())) {
    return { reason: "its amount is not a decimal with at most 2 places and 10 digits" };
  }
  if (!isCalendarDate(t.date)) return { reason: "its date is not a YYYY-MM-DD calendar date" };
  const currency = (t.isoCurrencyCode ?? "").trim().toUpperCase();
  if (!CURRENCY.test(currency)) return { reason: "its currency is not an ISO 4217 code" };
  const primary = cleanText(t.categoryPrimary, 200);
  const detailed = cleanText(t.categoryDetailed, 200);
  return {
    id: crypto.randomUUID(),
    accountId: account.id,
    ptid,
    amount: canonicalAmount(t.amount),
    currency,
    date: t.date,
    authorizedDate: t.authorizedDate && isCalendarDate(t.authorizedDate) ? t.authorizedDate : null,
    name: cleanText(t.name, 1000) ?? "(no description)",
    merchant: cleanText(t.merchantName, 500),
    primary,
    detailed,
    pending: t.pending === true,
    pendingPtid: cleanText(t.pendingTransactionId, 300),
    categoryId: ctx.categoryOf(primary, detailed),
  };
}

const keyOf = (accountId: string, ptid: string) => `${accountId}\u0000${ptid}`;

/**
 * Commits one page in one database transaction: its upserts, the carry-over
 * from pending rows to the rows that replace them, its removals, the stored
 * pending rows its complete windows no longer hold, the connection's cursor,
 * and the sync log's counters. Either all of it is committed or none, so a
 * crash between pages loses nothing and the next sync continues from the
 * last committed cursor; a page applied twice changes nothing the second time.
 *
 * The enabled rules run on the page's inserted and changed rows last, in
 * the same database transaction (services/rules/runner.ts): a page is never
 * committed without its rules having run, and a replayed page, which inserts
 * and changes nothing, never runs them twice.
 */
export async function applyPage(em: Em, ctx: PageContext, page: SyncPage): Promise<PageResult> {
  const skipped = [...page.skipped];
  const rows = new Map<string, Row>();
  for (const t of [...page.added, ...page.modified]) {
    const r = normalise(ctx, t);
    if ("reason" in r) {
      skipped.push({ row: t.sourceRef ?? `${t.providerAccountId}/${t.providerTransactionId}`, reason: r.reason });
      continue;
    }
    // A row listed twice (added, then modified) is stored as its last version.
    rows.set(keyOf(r.accountId, r.ptid), r);
  }
  const list = [...rows.values()];

  return em.transactional(async (tx) => {
    const conn = await lockConnectionCursor(tx, ctx.connectionId);
    if (!conn || conn.status === "disconnected") throw new ConnectionGone();
    if (conn.cursor !== ctx.cursorBefore) throw new CursorMoved();

    // The rows that are new (and continue no pending row) are judged by the rules before they are
    // written, so they are inserted as the rules leave them, never written twice.
    const stored = list.length ? await storedKeys(tx, ctx, list) : new Set<string>();
    const unseen = list.filter((r) => !r.pendingPtid && !stored.has(keyOf(r.accountId, r.ptid)));
    const rules = await PageRules.prepare(tx, unseen.map(newValues(ctx)), ctx.actor);
    const judged = new Set(unseen.map((r) => r.id));

    const written = list.length ? await upsertRows(tx, ctx, list, rules) : [];
    const insertedIds = written.filter((w) => w.inserted).map((w) => w.id);
    const updatedIds = written.filter((w) => !w.inserted).map((w) => w.id);
    const idByKey = new Map(written.map((w) => [keyOf(w.account_id, w.provider_transaction_id), w.id]));

    // Posted rows that replace a pending one (only when newly inserted: a replayed page carries nothing twice).
    const fresh = new Set(insertedIds);
    const successors = list.filter((r) => r.pendingPtid && fresh.has(idByKey.get(keyOf(r.accountId, r.ptid))!));
    const carried = successors.length ? await carryOver(tx, ctx, successors, idByKey) : { successors: [], live: [] };
    const superseded = carried.live;

    const removedIds = [
      ...superseded,
      ...(await removeListed(tx, ctx, page)),
      ...(await removeVanishedPending(tx, ctx, page, list)),
    ];

    const toLog = skipped.slice(0, Math.max(0, MAX_LOGGED_SKIPS - ctx.loggedSkips));
    const unchanged = list.length - written.length;
    await addSyncLogPage(tx, ctx.syncLogId, {
      added: insertedIds.length,
      modified: updatedIds.length,
      removed: removedIds.length,
      unchanged,
      skipped: skipped.length,
      logged: toLog,
    });
    await updateConnectionCursor(tx, ctx.connectionId, page.nextCursor);
    // A posted row that took over its pending row continues that transaction (pending → posted is a
    // change of its provider data): on_create rules ran on the pending row, so they do not run again.
    // Last: it locks the rules whose hit counts it adds until the page commits.
    const continued = new Set(carried.successors);
    // A row judged and inserted, even one this page then removed, was written as the rules left it:
    // its changes are annotated and its matches counted.
    const ruled = await rules.finish({
      inserted: insertedIds.filter((id) => judged.has(id)),
      created: insertedIds.filter((id) => !judged.has(id) && !continued.has(id)),
      changed: [...updatedIds, ...carried.successors],
    });
    return {
      added: insertedIds.length,
      modified: updatedIds.length,
      removed: removedIds.length,
      unchanged,
      skipped,
      insertedIds,
      updatedIds,
      removedIds,
      rules: ruled,
    };
  });
}

interface Written {
  id: string;
  account_id: string;
  provider_transaction_id: string;
  inserted: boolean;
}

/** Which of the page's rows are stored already (live, removed or deleted), by keyOf. */
async function storedKeys(tx: Em, ctx: PageContext, list: Row[]): Promise<Set<string>> {
  const rows = await query<{ account_id: string; ptid: string }>(
    tx,
    `select t.account_id, t.provider_transaction_id as ptid
     from unnest(?::uuid[], ?::text[]) as k(account_id, ptid)
     join transactions t on t.account_id = k.account_id and t.provider = ? and t.provider_transaction_id = k.ptid`,
    [pgArray(list.map((r) => r.accountId)), pgArray(list.map((r) => r.ptid)), ctx.provider],
  );
  return new Set(rows.map((r) => keyOf(r.account_id, r.ptid)));
}

/** The category source of a row as the provider maps it: the provider's own, or none. */
const providerSource = (r: Row) => (r.categoryId === null ? null : ("system" as const));

/** A new row as the rules judge it before it is inserted. */
const newValues =
  (ctx: PageContext) =>
  (r: Row): NewTransactionValues => ({
    id: r.id,
    shortId: "",
    accountId: r.accountId,
    amount: r.amount,
    date: r.date,
    provider: ctx.provider,
    providerName: r.name,
    providerMerchantName: r.merchant,
    providerCategoryPrimary: r.primary,
    providerCategoryDetailed: r.detailed,
    pending: r.pending,
    categoryId: r.categoryId,
    categorySource: providerSource(r),
  });

/** Who may be overridden by the provider's category: nobody chose one, or it was the provider's own. */
const PROVIDER_OWNS_CATEGORY = `(t.category_source is null or t.category_source = 'system')`;

/**
 * Inserts new rows and updates changed ones, keyed on (account, provider,
 * provider transaction id). A row a person deleted is never touched (it
 * stays deleted); a row the provider removed comes back when the provider
 * sends it again. Rows that did not change are not written (and not
 * returned). The category follows the provider's only while nobody else chose one.
 * A new row is inserted with what the rules made of it (`rules.valuesOf`).
 */
async function upsertRows(tx: Em, ctx: PageContext, list: Row[], rules: PageRules): Promise<Written[]> {
  const ruled = list.map((r) => rules.valuesOf(r.id));
  const arrays = [
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
    pgArray(list.map((r, i) => (ruled[i] ? ruled[i].categoryId : r.categoryId))),
    pgArray(list.map((r, i) => (ruled[i] ? ruled[i].categorySource : providerSource(r)))),
    pgArray(ruled.map((v) => (v && v.tagIds.length ? `{${v.tagIds.join(",")}}` : "{}"))),
    pgArray(ruled.map((v) => (v ? JSON.stringify(v.metadata) : "{}"))),
    pgArray(ruled.map((v) => v?.counterpartyId ?? null)),
  ];
  return retryOnShortIdClash(() =>
    tx.transactional((sp) =>
      query<Written>(
        sp,
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
        [ctx.provider, pgArray(list.map(() => newShortId())), ...arrays],
      ),
    ),
  );
}

/**
 * Pending → posted: a new posted row naming the pending row it replaces
 * (pendingTransactionId) takes over what people and rules gave the pending
 * row: a category a person, an agent or a rule chose, tags, metadata, the
 * counterparty, the comments (moved), and its deletion if a person deleted
 * it. The pending row is found whether it is still live or was already
 * removed by an earlier page (removed rows are kept for this); a live one is
 * removed now. Returns the posted rows that took a pending row over, and the
 * pending rows removed here.
 */
async function carryOver(
  tx: Em,
  ctx: PageContext,
  successors: Row[],
  idByKey: Map<string, string>,
): Promise<{ successors: string[]; live: string[] }> {
  const pairs = await query<{ new_id: string; old_id: string; old_short_id: string; comments: number; live: boolean }>(
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
    [
      pgArray(successors.map((r) => idByKey.get(keyOf(r.accountId, r.ptid))!)),
      pgArray(successors.map((r) => r.accountId)),
      pgArray(successors.map((r) => r.pendingPtid)),
      ctx.provider,
    ],
  );
  if (pairs.length === 0) return { successors: [], live: [] };
  const live = pairs.filter((p) => p.live).map((p) => p.old_id);
  if (live.length) {
    await query(
      tx,
      `update transactions set deleted_at = now(), provider_removed_at = now()
       where id = any(?::uuid[]) and deleted_at is null`,
      [pgArray(live)],
    );
  }
  await recordAnnotations(
    tx,
    ctx.actor,
    pairs.map((p) => ({
      entityType: "transaction" as const,
      entityId: p.new_id,
      transactionId: p.new_id,
      action: "carried_over",
      details: { from_transaction_id: p.old_short_id, comments: p.comments },
    })),
  );
  return { successors: pairs.map((p) => p.new_id), live };
}

/** The rows the provider says are gone (its removal feed), unless a person deleted them already. */
async function removeListed(tx: Em, ctx: PageContext, page: SyncPage): Promise<string[]> {
  const listed = page.removed.flatMap((r) => {
    const account = ctx.accounts.get(r.providerAccountId);
    return account ? [{ accountId: account.id, ptid: r.providerTransactionId }] : [];
  });
  if (listed.length === 0) return [];
  const rows = await query<{ id: string }>(
    tx,
    `update transactions t set deleted_at = now(), provider_removed_at = now()
     from unnest(?::uuid[], ?::text[]) as x(account_id, ptid)
     where t.account_id = x.account_id and t.provider = ? and t.provider_transaction_id = x.ptid
       and t.deleted_at is null
     returning t.id`,
    [pgArray(listed.map((l) => l.accountId)), pgArray(listed.map((l) => l.ptid)), ctx.provider],
  );
  return rows.map((r) => r.id);
}

/**
 * Window-based providers (Teller, SimpleFIN) have no removal feed: a page
 * that holds every transaction of an account within [from, to] means a
 * stored pending row of that account in the window that the page lacks is
 * gone at the bank (it posted under another id, or was dropped).
 */
async function removeVanishedPending(tx: Em, ctx: PageContext, page: SyncPage, list: Row[]): Promise<string[]> {
  const windows = page.windows.flatMap((w) => {
    const account = ctx.accounts.get(w.providerAccountId);
    return account && isCalendarDate(w.from) && isCalendarDate(w.to) ? [{ accountId: account.id, ...w }] : [];
  });
  if (windows.length === 0) return [];
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
      pgArray(windows.map((w) => w.accountId)),
      pgArray(windows.map((w) => w.from)),
      pgArray(windows.map((w) => w.to)),
      ctx.provider,
      pgArray(list.map((r) => r.accountId)),
      pgArray(list.map((r) => r.ptid)),
    ],
  );
  return rows.map((r) => r.id);
}
