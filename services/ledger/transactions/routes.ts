import type { ConnectRouter } from "@connectrpc/connect";
import { TransactionService } from "../../../gen/coffer/v1/transactions_pb.js";
import type { CoreDeps } from "../../deps.js";
import { transactionReadHandlers } from "./read-handlers.js";
import { transactionWriteHandlers } from "./write-handlers.js";

export function transactionRoutes(router: ConnectRouter, deps: CoreDeps) {
  router.service(TransactionService, { ...transactionReadHandlers(deps), ...transactionWriteHandlers(deps) });
}
