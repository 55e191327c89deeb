import { SummarizeTransactionsResponseSchema, TransactionSchema } from "../../../gen/coffer/v1/transactions_pb.js";
import { toRest } from "../../shared/rest-json.js";
import {
  filterOf,
  transactionFilterShape,
  transactionListShape,
  transactionSummaryShape,
} from "../../shared/transaction-filter.js";
import { defineRoute, type RestRoute } from "../route.js";

/** The filters every read takes (the core validates meaning, these schemas validate form). */
const filters = transactionFilterShape.rest;

/** GET /transactions, /transactions/count, /transactions/summary, /transactions/:id. */
export const transactionReadRoutes: RestRoute[] = [
  defineRoute({
    method: "GET",
    url: "/api/v1/transactions",
    query: { ...filters, ...transactionListShape },
    async handler({ core, opts, query }) {
      const r = await core.transactions.listTransactions(
        {
          filter: filterOf(query),
          limit: query.limit ?? 0,
          cursor: query.cursor ?? "",
          sortBy: query.sort_by ?? "",
          sortOrder: query.sort_order ?? "",
        },
        opts,
      );
      return {
        transactions: r.transactions.map((t) => toRest(TransactionSchema, t)),
        next_cursor: r.nextCursor,
        has_more: r.hasMore,
      };
    },
  }),
  defineRoute({
    method: "GET",
    url: "/api/v1/transactions/count",
    query: filters,
    async handler({ core, opts, query }) {
      const r = await core.transactions.countTransactions({ filter: filterOf(query) }, opts);
      return { count: Number(r.count) };
    },
  }),
  defineRoute({
    method: "GET",
    url: "/api/v1/transactions/summary",
    query: { ...filters, ...transactionSummaryShape },
    async handler({ core, opts, query }) {
      const r = await core.transactions.summarizeTransactions(
        { filter: filterOf(query), groupBy: query.group_by ?? "" },
        opts,
      );
      return toRest(SummarizeTransactionsResponseSchema, r);
    },
  }),
  defineRoute({
    method: "GET",
    url: "/api/v1/transactions/:id",
    async handler({ core, opts, params }) {
      return toRest(TransactionSchema, (await core.transactions.getTransaction({ id: params.id }, opts)).transaction!);
    },
  }),
];
