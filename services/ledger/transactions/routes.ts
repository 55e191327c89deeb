import type { ConnectRouter } from "@connectrpc/connect";
import { TransactionPageService } from "../../../gen/coffer/internal/v1/pages_pb.js";
import { TransactionService } from "../../../gen/coffer/v1/transactions_pb.js";
import type { CoreDeps } from "../../deps.js";
import { transactionPageHandlers, transactionReadHandlers } from "./read-handlers.js";
import { transactionWriteHandlers } from "./write-handlers.js";

export function transactionRoutes(router: ConnectRouter, deps: CoreDeps) {
  router.service(TransactionService, { ...transactionReadHandlers(deps), ...transactionWriteHandlers(deps) });
  router.service(TransactionPageService, transactionPageHandlers(deps));
}
