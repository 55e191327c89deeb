import type { MessageInitShape } from "@bufbuild/protobuf";
import {
  SummarizeTransactionsResponseSchema,
  TransactionSchema,
  type TransactionFilterSchema,
} from "../../../gen/coffer/v1/transactions_pb.js";
import { toRest } from "../../shared/rest-json.js";
import type { RestRoute } from "../route.js";

const SLUG_LIST = "^\\s*[a-z0-9_]{1,64}(\\s*,\\s*[a-z0-9_]{1,64})*\\s*$";
const slugList = { type: "array", maxItems: 50, items: { type: "string", pattern: SLUG_LIST, maxLength: 2000 } };
const date = { type: "string", pattern: "^\\d{4}-\\d{2}-\\d{2}$" };
const amount = { type: "string", pattern: "^-?\\d{1,10}(\\.\\d{1,2})?$" };
const id = { type: "string", minLength: 1, maxLength: 64 };

/** The filters every read takes (query parameters; the core validates meaning, this validates form). */
const filterParams = {
  start_date: date,
  end_date: date,
  account_id: id,
  user_id: id,
  category_slug: { type: "string", pattern: "^[a-z0-9_]{1,64}$" },
  min_amount: amount,
  max_amount: amount,
  pending: { type: "boolean" },
  search: { type: "string", maxLength: 500 },
  search_mode: { type: "string", enum: ["contains", "words", "fuzzy"] },
  // Comma-separated, repeated (?tags=a&tags=b), or both.
  tags: slugList,
  any_tag: slugList,
};

const querystring = (extra: Record<string, object>) => ({
  type: "object",
  properties: { ...filterParams, ...extra },
  additionalProperties: false,
});

function filterOf(q: Record<string, any>): MessageInitShape<typeof TransactionFilterSchema> {
  return {
    startDate: q.start_date,
    endDate: q.end_date,
    accountId: q.account_id,
    userId: q.user_id,
    categorySlug: q.category_slug,
    minAmount: q.min_amount,
    maxAmount: q.max_amount,
    pending: q.pending,
    search: q.search,
    searchMode: q.search_mode,
    tags: q.tags ?? [],
    anyTag: q.any_tag ?? [],
  };
}

/** GET /transactions, /transactions/count, /transactions/summary, /transactions/:id. */
export const transactionReadRoutes: RestRoute[] = [
  {
    method: "GET",
    url: "/api/v1/transactions",
    schema: {
      querystring: querystring({
        limit: { type: "integer", minimum: 1, maximum: 500 },
        cursor: { type: "string", maxLength: 8192 },
        sort_by: { type: "string", enum: ["date", "amount", "name"] },
        sort_order: { type: "string", enum: ["asc", "desc"] },
      }),
    },
    async handler({ core, opts, query }) {
      const r = await core.transactions.listTransactions(
        { filter: filterOf(query), limit: query.limit ?? 0, cursor: query.cursor ?? "", sortBy: query.sort_by ?? "", sortOrder: query.sort_order ?? "" },
        opts,
      );
      return { transactions: r.transactions.map((t) => toRest(TransactionSchema, t)), next_cursor: r.nextCursor, has_more: r.hasMore };
    },
  },
  {
    method: "GET",
    url: "/api/v1/transactions/count",
    schema: { querystring: querystring({}) },
    async handler({ core, opts, query }) {
      const r = await core.transactions.countTransactions({ filter: filterOf(query) }, opts);
      return { count: Number(r.count) };
    },
  },
  {
    method: "GET",
    url: "/api/v1/transactions/summary",
    schema: { querystring: querystring({ group_by: { type: "string", enum: ["category", "month", "week", "day"] } }) },
    async handler({ core, opts, query }) {
      const r = await core.transactions.summarizeTransactions({ filter: filterOf(query), groupBy: query.group_by ?? "" }, opts);
      return toRest(SummarizeTransactionsResponseSchema, r);
    },
  },
  {
    method: "GET",
    url: "/api/v1/transactions/:id",
    async handler({ core, opts, params }) {
      return toRest(TransactionSchema, (await core.transactions.getTransaction({ id: params.id }, opts)).transaction!);
    },
  },
];
