import type { TRANSACTION_SORT_FIELDS } from "../../../common/enums.js";
import type { Em } from "../orm.js";
import { query } from "../sql.js";
import type { TransactionPredicate } from "./transaction-filter.js";
import { TRANSACTION_COLUMNS, viewSql, type TransactionView } from "./transaction-view.js";

/**
 * The statements of GET /transactions: a page of presented transactions that
 * match a predicate (the current rows, or a later page of the date sort as of
 * the first page's snapshot), and the count. Sort and order come from closed
 * sets; the page size is a checked integer; everything else is a parameter.
 */

export type SortField = (typeof TRANSACTION_SORT_FIELDS)[number];
export type SortOrder = "asc" | "desc";

/** A presented row with the snapshot the statement read in (what a cursor continues from). */
export type PageRow = TransactionView & { snapshot: string };

/** Where a later page of the date sort starts: after (date, id), as of snapshot `w`. */
export interface SnapshotPosition {
  d: string;
  i: string;
  w: string;
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

/**
 * Presents the raw rows `page` yields, in sort order, with the snapshot the
 * statement read in (for the cursor). The page is a materialized CTE so the
 * planner settles it apart from the presentation joins: planning one big join
 * tree took longer than running it.
 */
function presented(page: string, by: SortField, order: SortOrder): string {
  return `with page as materialized (${page})
    select v.*, pg_current_snapshot()::text as snapshot
    from (${viewSql("select * from page")}) v order by ${presentedOrderBy(by, order)}`;
}

/** First page, or the one page of the amount and name sorts: the current rows, at most `fetch`. */
export async function currentTransactionPage(
  em: Em,
  filter: TransactionPredicate,
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
  return query<PageRow>(em, presented(inner, by, order), [...filter.params], { prepare: true });
}

/**
 * A later page of the date sort, as of the first page's snapshot: current rows
 * that snapshot saw, plus earlier versions it saw of rows changed since. For
 * each row exactly one version qualifies (or none), so the union has no
 * duplicates; both parts use the same filter and keyset.
 */
export async function snapshotTransactionPage(
  em: Em,
  filter: TransactionPredicate,
  order: SortOrder,
  c: SnapshotPosition,
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

/** How many live (not soft-deleted) transactions match. */
export async function countMatchingTransactions(em: Em, filter: TransactionPredicate): Promise<bigint> {
  const rows = await query<{ n: string }>(
    em,
    `select count(*)::text as n from transactions t where t.deleted_at is null and (${filter.sql})`,
    [...filter.params],
  );
  return BigInt(rows[0].n);
}
