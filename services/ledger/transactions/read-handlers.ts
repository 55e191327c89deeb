import type { ServiceImpl } from "@connectrpc/connect";
import type { TransactionService } from "../../../gen/coffer/v1/transactions_pb.js";
import type { CoreDeps } from "../../deps.js";

/** TransactionService reads: list (cursor-paginated), count, summary, get. */
export function transactionReadHandlers(_deps: CoreDeps): Partial<ServiceImpl<typeof TransactionService>> {
  return {};
}
