import type { ConnectRouter } from "@connectrpc/connect";
import { authRoutes } from "./auth/routes.js";
import type { CoreDeps } from "./deps.js";
import { systemRoutes } from "./system/routes.js";
import { userRoutes } from "./users/routes.js";
import { transactionRoutes } from "./ledger/transactions/routes.js";
import { accountRoutes } from "./ledger/accounts/routes.js";
import { categoryRoutes } from "./ledger/categories/routes.js";
import { counterpartyRoutes } from "./ledger/counterparties/routes.js";
import { tagRoutes } from "./ledger/tags/routes.js";
import { reportRoutes } from "./reports/routes.js";
import { seriesRoutes } from "./series/routes.js";
import { syncRoutes } from "./sync/routes.js";
import { ruleRoutes } from "./rules/routes.js";

/** Every area's Connect services, composed. */
export function routes(deps: CoreDeps) {
  return (router: ConnectRouter) => {
    systemRoutes(router, deps);
    authRoutes(router, deps);
    userRoutes(router);
    transactionRoutes(router, deps);
    accountRoutes(router);
    categoryRoutes(router);
    tagRoutes(router);
    counterpartyRoutes(router);
    reportRoutes(router);
    seriesRoutes(router);
    syncRoutes(router, deps.sync, deps.cursorKeys);
    ruleRoutes(router, deps);
  };
}
