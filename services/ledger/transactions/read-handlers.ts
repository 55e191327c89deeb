import type { HandlerContext, ServiceImpl } from "@connectrpc/connect";
import type { ListTransactionsRequest, TransactionService } from "../../../gen/coffer/v1/transactions_pb.js";
import { emOf, kLog } from "../../context.js";
import type { CoreDeps } from "../../deps.js";
import { countTransactions } from "./count.js";
import { listTransactions, purgeTransactionVersionsSoon, type ListResult } from "./list.js";
import { summarizeTransactions } from "./summary.js";
import { loadTransaction, resolveTransactionId } from "./view.js";

/** TransactionService reads: list (cursor-paginated), count, summary, get. */
export function transactionReadHandlers(deps: CoreDeps): Partial<ServiceImpl<typeof TransactionService>> {
  return {
    async listTransactions(req, ctx) {
      return await listPage(deps, req, ctx);
    },
    async countTransactions(req, ctx) {
      return { count: await countTransactions(emOf(ctx), req.filter) };
    },
    async summarizeTransactions(req, ctx) {
      return await summarizeTransactions(emOf(ctx), req.filter, req.groupBy);
    },
    async getTransaction(req, ctx) {
      const em = emOf(ctx);
      return { transaction: await loadTransaction(em, await resolveTransactionId(em, req.id)) };
    },
  };
}

async function listPage(deps: CoreDeps, req: Pick<ListTransactionsRequest, "filter" | "limit" | "cursor" | "sortBy" | "sortOrder">, ctx: HandlerContext): Promise<ListResult> {
  const page = await listTransactions(emOf(ctx), req);
  purgeTransactionVersionsSoon(
    () => deps.orm.em.fork(),
    (err) => ctx.values.get(kLog)?.warn({ err }, "purging old transaction versions failed"),
  );
  return page;
}
