import { UUID, isCalendarDate } from "../../../common/validation.js";
import type { Em } from "../../db/orm.js";
import {
  currentTransactionPage,
  snapshotTransactionPage,
  type PageRow,
  type SortField,
  type SortOrder,
} from "../../db/queries/transaction-pages.js";
import { isLiveTransaction } from "../../db/tables/transactions.js";
import { CofferError } from "../../errors/coffer-error.js";
import { decodeCursor, encodeCursor, filterHash, invalidCursor, type CursorFields } from "../../pagination/cursor.js";
import type { CursorKeyring } from "../../pagination/cursor-keys.js";
import { parseLimit } from "../../pagination/limit.js";
import { resolveFilter, type TransactionFilterInput } from "./filter.js";
import type { TransactionView } from "./view.js";
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
export type { SortField, SortOrder };

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
    rows = await currentTransactionPage(em, filter.predicate, by, order, fetch);
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
    rows = await snapshotTransactionPage(em, filter.predicate, order, c, fetch);
    snapshot = { w: c.w, t: c.t };
  }

  const hasMore = rows.length > limit;
  const page = hasMore ? rows.slice(0, limit) : rows;
  if (by !== "date") return { transactions: page, nextCursor: "", hasMore: false };

  let nextCursor = "";
  if (hasMore) {
    const last = page[page.length - 1];
    // Every later page keeps the first page's snapshot and time (the core's clock: the cursor's age is judged by it).
    snapshot ??= { w: rows[0].snapshot, t: epochSeconds(clockOf(em)) };
    const fields = { d: last.date, i: last.id, f: hash, w: snapshot.w, t: snapshot.t };
    nextCursor = encodeCursor(fields, await keys.signingKey(em));
  }
  return { transactions: page, nextCursor, hasMore };
}
