import { SEARCH_MODES, SUMMARY_GROUPS } from "../../common/enums.js";
import type { MessageInitShape } from "@bufbuild/protobuf";
import { z } from "zod";
import type { TransactionFilterSchema } from "../../gen/coffer/v1/transactions_pb.js";
import { amountText, amountTextOrNumber, date, ref, slug, slugList } from "./params.js";

/**
 * The transaction filters, defined once for both gateways: GET /transactions
 * (and /count, /summary) take them as query parameters, query_transactions
 * and transaction_summary as tool arguments. The only difference is how an
 * amount may be written: REST query text is always a string, an agent may
 * send a JSON number.
 */
function filterShape<A extends z.ZodType<string | number>>(amount: A) {
  return {
    start_date: date.optional().describe("YYYY-MM-DD, inclusive"),
    end_date: date.optional().describe("YYYY-MM-DD, exclusive"),
    account_id: ref.optional().describe("account short id or UUID (list_accounts)"),
    user_id: ref.optional().describe("household member short id or UUID (list_users)"),
    category_slug: slug.optional().describe("category slug; a parent includes its children; 'uncategorized' for none"),
    min_amount: amount.optional().describe("inclusive; amounts are signed (positive = money out)"),
    max_amount: amount.optional().describe("inclusive; e.g. max_amount 0 for money in only"),
    pending: z.boolean().optional(),
    search: z.string().max(500).optional().describe("matches the name and merchant; comma-separated terms are ORed"),
    search_mode: z
      .enum(SEARCH_MODES)
      .optional()
      .describe("contains (default, substring), words (whole words), fuzzy (typo-tolerant)"),
    tags: slugList.optional().describe("tag slugs the transaction must all carry (array or comma-separated)"),
    any_tag: slugList.optional().describe("tag slugs of which the transaction carries at least one"),
    series_id: ref.optional().describe("recurring series short id or UUID (list_series): its transactions"),
    in_series: z.boolean().optional().describe("true: only transactions in some recurring series; false: in none"),
  };
}

export const transactionFilterShape = {
  /** Query parameters: amounts are text. */
  rest: filterShape(amountText),
  /** Tool arguments: amounts are text or numbers. */
  mcp: filterShape(amountTextOrNumber),
};

/** Paging and order of a transaction list (GET /transactions, query_transactions). */
export const transactionListShape = {
  limit: z.number().int().min(1).max(500).optional().describe("page size, 1-500, default 50"),
  cursor: z.string().max(8192).optional().describe("next_cursor of the previous page; omit for the first page"),
  sort_by: z
    .enum(["date", "amount", "name"])
    .optional()
    .describe("date (default, paginated), amount or name (one page)"),
  sort_order: z.enum(["asc", "desc"]).optional().describe("default desc for date and amount, asc for name"),
};

/** Grouping of a transaction summary (GET /transactions/summary, transaction_summary). */
export const transactionSummaryShape = {
  group_by: z.enum(SUMMARY_GROUPS).optional().describe("category (default), month, week or day"),
};

/** Filter values as either gateway received them (after validation against the shapes above). */
export type FilterValues = z.input<z.ZodObject<typeof transactionFilterShape.mcp>>;

const list = (v: string | string[] | undefined) => (v === undefined ? [] : Array.isArray(v) ? v : [v]);
const amount = (v: number | string | undefined) => (v === undefined ? undefined : String(v));

/** Validated filter values → the core's TransactionFilter (the core splits comma-separated slugs). */
export function filterOf(v: FilterValues): MessageInitShape<typeof TransactionFilterSchema> {
  return {
    startDate: v.start_date,
    endDate: v.end_date,
    accountId: v.account_id,
    userId: v.user_id,
    categorySlug: v.category_slug,
    minAmount: amount(v.min_amount),
    maxAmount: amount(v.max_amount),
    pending: v.pending,
    search: v.search,
    searchMode: v.search_mode,
    tags: list(v.tags),
    anyTag: list(v.any_tag),
    seriesId: v.series_id,
    inSeries: v.in_series,
  };
}
