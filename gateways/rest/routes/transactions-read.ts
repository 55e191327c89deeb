import { z } from "zod";
import { SummarizeTransactionsResponseSchema, TransactionSchema } from "../../../gen/coffer/v1/transactions_pb.js";
import { restShapeOf, toRest } from "../../shared/rest-json.js";
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
    response: z.object({
      transactions: z.array(restShapeOf(TransactionSchema)),
      next_cursor: z.string(),
      has_more: z.boolean(),
    }),
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
    response: z.object({ count: z.number().int() }),
    query: filters,
    async handler({ core, opts, query }) {
      const r = await core.transactions.countTransactions({ filter: filterOf(query) }, opts);
      return { count: Number(r.count) };
    },
  }),
  defineRoute({
    method: "GET",
    url: "/api/v1/transactions/summary",
    response: restShapeOf(SummarizeTransactionsResponseSchema),
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
    response: restShapeOf(TransactionSchema),
    async handler({ core, opts, params }) {
      return toRest(TransactionSchema, (await core.transactions.getTransaction({ id: params.id }, opts)).transaction!);
    },
  }),
];
