import type { ServiceImpl } from "@connectrpc/connect";
import type { TransactionService } from "../../../gen/coffer/v1/transactions_pb.js";
import type { CoreDeps } from "../../deps.js";

/** TransactionService writes: category, tags, metadata, comments, annotations, delete/restore. */
export function transactionWriteHandlers(_deps: CoreDeps): Partial<ServiceImpl<typeof TransactionService>> {
  return {};
}
