import { AMOUNT } from "../../common/money.js";
import { CURRENCY, isCalendarDate } from "../../common/validation.js";
import type { Em } from "../db/orm.js";
import { lockConnectionCursor, updateConnectionCursor } from "../db/tables/connections.js";
import { addSyncLogPage } from "../db/tables/sync-logs.js";
import {
  carryOverPendingTransactions,
  markProviderRemoved,
  removeListedTransactions,
  removeVanishedPendingTransactions,
  storedSyncKeys,
  upsertSyncedTransactions,
  type SyncedTransactionRow,
  type WrittenSyncRow,
} from "../db/tables/transactions-sync.js";
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
 * `page` may be several provider pages joined (services/sync/page-batches.ts):
 * `providerPages` says how many, for the sync log.
 *
 * The enabled rules run on the page's inserted and changed rows last, in
 * the same database transaction (services/rules/runner.ts): a page is never
 * committed without its rules having run, and a replayed page, which inserts
 * and changes nothing, never runs them twice.
 */
export async function applyPage(em: Em, ctx: PageContext, page: SyncPage, providerPages = 1): Promise<PageResult> {
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
      pages: providerPages,
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

/** Which of the page's rows are stored already (live, removed or deleted), by keyOf. */
async function storedKeys(tx: Em, ctx: PageContext, list: Row[]): Promise<Set<string>> {
  const rows = await storedSyncKeys(tx, ctx.provider, {
    accountIds: list.map((r) => r.accountId),
    ptids: list.map((r) => r.ptid),
  });
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

/**
 * Writes the page's rows (upsertSyncedTransactions): a new row is inserted
 * with what the rules made of it (`rules.valuesOf`). Rows that did not
 * change are not written (and not returned).
 */
async function upsertRows(tx: Em, ctx: PageContext, list: Row[], rules: PageRules): Promise<WrittenSyncRow[]> {
  const rows = list.map((r): Omit<SyncedTransactionRow, "shortId"> => {
    const ruled = rules.valuesOf(r.id);
    return {
      ...r,
      categoryId: ruled ? ruled.categoryId : r.categoryId,
      categorySource: ruled ? ruled.categorySource : providerSource(r),
      tagIds: ruled?.tagIds ?? [],
      metadata: ruled?.metadata ?? {},
      counterpartyId: ruled?.counterpartyId ?? null,
    };
  });
  // Each attempt in a savepoint with fresh short ids, so a clash does not abort the page.
  return retryOnShortIdClash(() =>
    tx.transactional((sp) =>
      upsertSyncedTransactions(
        sp,
        ctx.provider,
        rows.map((r) => ({ ...r, shortId: newShortId() })),
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
  const pairs = await carryOverPendingTransactions(tx, ctx.provider, {
    newIds: successors.map((r) => idByKey.get(keyOf(r.accountId, r.ptid))!),
    accountIds: successors.map((r) => r.accountId),
    pendingPtids: successors.map((r) => r.pendingPtid!),
  });
  if (pairs.length === 0) return { successors: [], live: [] };
  const live = pairs.filter((p) => p.live).map((p) => p.old_id);
  if (live.length) await markProviderRemoved(tx, live);
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
  return removeListedTransactions(tx, ctx.provider, {
    accountIds: listed.map((l) => l.accountId),
    ptids: listed.map((l) => l.ptid),
  });
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
  return removeVanishedPendingTransactions(
    tx,
    ctx.provider,
    { accountIds: windows.map((w) => w.accountId), from: windows.map((w) => w.from), to: windows.map((w) => w.to) },
    { accountIds: list.map((r) => r.accountId), ptids: list.map((r) => r.ptid) },
  );
}
