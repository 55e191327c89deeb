import { UUID, isCalendarDate } from "../../../common/validation.js";
import type { Em } from "../../db/orm.js";
import { query } from "../../db/sql.js";
import { isLiveTransaction } from "../../db/tables/transactions.js";
import { CofferError } from "../../errors/coffer-error.js";
import { decodeCursor, encodeCursor, filterHash, invalidCursor, type CursorFields } from "../../pagination/cursor.js";
import type { CursorKeyring } from "../../pagination/cursor-keys.js";
import { parseLimit } from "../../pagination/limit.js";
import { resolveFilter, type ResolvedFilter, type TransactionFilterInput } from "./filter.js";
import { TRANSACTION_COLUMNS, viewSql, type TransactionView } from "./view.js";
import { clockOf, epochSeconds } from "../../clock.js";

/**
 * GET /transactions. The date sort (default) is cursor-paginated on
 * (date, id), newest first, a total order. Pages after the first read the
 * snapshot the first page was read in (see Migration0003TransactionSnapshots):
 * rows written after page 1 never appear, rows changed after page 1 appear as
 * they were then, so nothing is repeated and nothing skipped. The amount and
 * name sorts return one page (top `limit`) and take no cursor.
 */

import { TRANSACTION_SORT_FIELDS as SORT_FIELDS } from "../../../common/enums.js";
export { SORT_FIELDS };
export type SortField = (typeof SORT_FIELDS)[number];
export type SortOrder = "asc" | "desc";

/** Cursors (and so the row versions kept for them) live this long. */
export const CURSOR_MAX_AGE_SECONDS = 24 * 3600;

export interface ListInput {
  filter?: TransactionFilterInput;
  /** 0 = the default. */
  limit: number;
  cursor: string;
  sortBy: string;
  sortOrder: string;
}

export interface ListResult {
  transactions: TransactionView[];
  nextCursor: string;
  hasMore: boolean;
}

const DEFAULT_ORDER: Record<SortField, SortOrder> = { date: "desc", amount: "desc", name: "asc" };

export function parseSort(sortBy: string, sortOrder: string): { by: SortField; order: SortOrder } {
  const by = (sortBy.trim() || "date") as SortField;
  if (!SORT_FIELDS.includes(by))
    throw new CofferError("INVALID_PARAMETER", `sort_by must be one of ${SORT_FIELDS.join(", ")}`);
  const order = (sortOrder.trim() || DEFAULT_ORDER[by]) as SortOrder;
  if (order !== "asc" && order !== "desc") throw new CofferError("INVALID_PARAMETER", "sort_order must be asc or desc");
  return { by, order };
}

/** ORDER BY over stored rows aliased `a`; it matches the indexes of migrations 0002 and 0003. */
function orderBy(a: string, by: SortField, order: SortOrder): string {
  switch (by) {
    case "date":
      return `${a}.date ${order}, ${a}.id ${order}`;
    case "amount":
      return `${a}.amount ${order}, ${a}.id ${order}`;
    case "name":
      return `lower(coalesce(${a}.provider_merchant_name, ${a}.provider_name)) ${order}, ${a}.id ${order}`;
  }
}

/**
 * The same order over presented rows (viewSql, alias `v`), whose amount is
 * text; their date text sorts like the date.
 */
function presentedOrderBy(by: SortField, order: SortOrder): string {
  switch (by) {
    case "date":
      return `v.date ${order}, v.id ${order}`;
    case "amount":
      return `v.amount::numeric ${order}, v.id ${order}`;
    case "name":
      return `lower(v.name) ${order}, v.id ${order}`;
  }
}

const cols = (alias: string) => TRANSACTION_COLUMNS.map((c) => `${alias}.${c}`).join(", ");
const COLS = cols("t");

/**
 * The rows of `transactions` whose ids `keys` selects (a query yielding `id`).
 * Date pages find their ids first: with transactions_date_id_index covering
 * the names and the writer, that is an index-only scan however many rows a
 * search filter skips; only the rows returned are then read from the table.
 */
const rowsOf = (keys: string) => `select ${cols("r")} from (${keys}) k join transactions r on r.id = k.id`;

/**
 * The page size is written into the SQL rather than bound: a statement without
 * parameters (the unfiltered first page) then keeps one cached plan, where a
 * bound LIMIT made PostgreSQL plan every call again (a generic plan for an
 * unknown LIMIT is far worse, so it never switched). Only validated integers get here.
 */
function sqlInt(n: number): string {
  if (!Number.isSafeInteger(n) || n < 1) throw new Error(`not a page size: ${n}`);
  return String(n);
}

type PageRow = TransactionView & { snapshot: string; read_at: string };

/**
 * Presents the raw rows `page` yields, in sort order, with the snapshot the
 * statement read in and the database clock (for the cursor). The page is a
 * materialized CTE so the planner settles it apart from the presentation
 * joins: planning one big join tree took longer than running it.
 */
function presented(page: string, by: SortField, order: SortOrder): string {
  return `with page as materialized (${page})
    select v.*, pg_current_snapshot()::text as snapshot, floor(extract(epoch from now()))::bigint::text as read_at
    from (${viewSql("select * from page")}) v order by ${presentedOrderBy(by, order)}`;
}

/** First page, or the one page of the amount and name sorts: the current rows. */
async function currentPage(
  em: Em,
  filter: ResolvedFilter,
  by: SortField,
  order: SortOrder,
  fetch: number,
): Promise<PageRow[]> {
  const where = `t.deleted_at is null and (${filter.sql})`;
  const inner =
    by === "date"
      ? rowsOf(
          `select t.id from transactions t where ${where} order by ${orderBy("t", by, order)} limit ${sqlInt(fetch)}`,
        )
      : `select ${COLS} from transactions t where ${where} order by ${orderBy("t", by, order)} limit ${sqlInt(fetch)}`;
  return query<PageRow>(em, presented(inner, by, order), filter.params, { prepare: true });
}

/**
 * A later page of the date sort, as of the first page's snapshot: current rows
 * that snapshot saw, plus earlier versions it saw of rows changed since. For
 * each row exactly one version qualifies (or none), so the union has no
 * duplicates; both parts use the same filter and keyset.
 */
async function snapshotPage(
  em: Em,
  filter: ResolvedFilter,
  order: SortOrder,
  c: CursorFields,
  fetch: number,
): Promise<PageRow[]> {
  const after = order === "desc" ? "<" : ">";
  const keyset = `(t.date, t.id) ${after} (?::date, ?::uuid)`;
  const sort = orderBy("t", "date", order);
  const inner = `select * from (
      (${rowsOf(`select t.id from transactions t
        where t.deleted_at is null and pg_visible_in_snapshot(t.xact, ?::pg_snapshot)
          and (${filter.sql}) and ${keyset}
        order by ${sort} limit ${sqlInt(fetch)}`)})
      union all
      (select ${COLS} from transaction_versions t
        where t.superseded_xact >= pg_snapshot_xmin(?::pg_snapshot)
          and not pg_visible_in_snapshot(t.superseded_xact, ?::pg_snapshot)
          and pg_visible_in_snapshot(t.xact, ?::pg_snapshot)
          and t.deleted_at is null and (${filter.sql}) and ${keyset}
        order by ${sort} limit ${sqlInt(fetch)})
    ) t order by ${sort} limit ${sqlInt(fetch)}`;
  const params = [c.w, ...filter.params, c.d, c.i, c.w, c.w, c.w, ...filter.params, c.d, c.i];
  return query<PageRow>(em, presented(inner, "date", order), params, { prepare: true });
}

const SNAPSHOT = /^(\d{1,20}):(\d{1,20}):((?:\d{1,20})(?:,\d{1,20})*)?$/;

/** Whether `w` is a pg_snapshot PostgreSQL accepts: 1 <= xmin <= xip... < xmax, ascending. */
function validSnapshot(w: string): boolean {
  const m = SNAPSHOT.exec(w);
  if (!m) return false;
  const xmin = BigInt(m[1]);
  const xmax = BigInt(m[2]);
  if (xmin < 1n || xmin > xmax || xmax >= 2n ** 63n) return false;
  let last = xmin;
  for (const part of m[3] ? m[3].split(",") : []) {
    const xip = BigInt(part);
    if (xip < last || xip >= xmax) return false;
    last = xip;
  }
  return true;
}

/**
 * The cursor's position must be one Coffer could have issued, so SQL never
 * sees a bad cast: the signature says Coffer wrote it, this says it still
 * makes sense (a signing key that leaked, or a bug, cannot reach SQL either).
 */
function checkPosition(c: CursorFields): void {
  if (!isCalendarDate(c.d) || !UUID.test(c.i) || c.i !== c.i.toLowerCase() || !validSnapshot(c.w)) {
    throw invalidCursor("cursor is malformed");
  }
}

async function anchorExists(em: Em, id: string): Promise<boolean> {
  return isLiveTransaction(em, id);
}

export async function listTransactions(em: Em, req: ListInput, keys: CursorKeyring): Promise<ListResult> {
  const limit = parseLimit(req.limit);
  const { by, order } = parseSort(req.sortBy, req.sortOrder);
  const cursorRaw = req.cursor.trim();
  if (cursorRaw !== "" && by !== "date") {
    throw invalidCursor(`sort_by=${by} returns a single page and takes no cursor (only the date sort is paginated)`);
  }
  const filter = await resolveFilter(em, req.filter);
  const hash = filterHash({ filter: filter.canonical, sort_by: by, sort_order: order });
  const fetch = limit + 1; // one more than asked tells whether there is more

  let rows: PageRow[];
  let snapshot: { w: string; t: number } | null = null;
  if (cursorRaw === "") {
    rows = await currentPage(em, filter, by, order, fetch);
  } else {
    const c = await decodeCursor(cursorRaw, {
      filterHash: hash,
      maxAgeSeconds: CURSOR_MAX_AGE_SECONDS,
      secretFor: (generation) => keys.secretFor(em, generation),
      now: epochSeconds(clockOf(em)),
    });
    checkPosition(c);
    if (!(await anchorExists(em, c.i)))
      throw invalidCursor("the transaction this cursor continues from no longer exists");
    rows = await snapshotPage(em, filter, order, c, fetch);
    snapshot = { w: c.w, t: c.t };
  }

  const hasMore = rows.length > limit;
  const page = hasMore ? rows.slice(0, limit) : rows;
  if (by !== "date") return { transactions: page, nextCursor: "", hasMore: false };

  let nextCursor = "";
  if (hasMore) {
    const last = page[page.length - 1];
    // Every later page keeps the first page's snapshot and time.
    snapshot ??= { w: rows[0].snapshot, t: Number(rows[0].read_at) };
    const fields = { d: last.date, i: last.id, f: hash, w: snapshot.w, t: snapshot.t };
    nextCursor = encodeCursor(fields, await keys.signingKey(em));
  }
  return { transactions: page, nextCursor, hasMore };
}
