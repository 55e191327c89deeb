import type { RestRoute } from "../route.js";
import { accountRoutes } from "./accounts.js";
import { authRoutes } from "./auth.js";
import { categoryRoutes } from "./categories.js";
import { loginRoutes } from "./logins.js";
import { counterpartyRoutes } from "./counterparties.js";
import { reportRoutes } from "./reports.js";
import { seriesRoutes } from "./series.js";
import { syncRoutes } from "./sync.js";
import { ruleRoutes } from "./rules.js";
import { systemRoutes } from "./system.js";
import { tagRoutes } from "./tags.js";
import { transactionReadRoutes } from "./transactions-read.js";
import { transactionWriteRoutes } from "./transactions-write.js";
import { userRoutes } from "./users.js";

export const allRoutes: RestRoute[] = [
  ...systemRoutes,
  ...authRoutes,
  ...userRoutes,
  ...loginRoutes,
  ...transactionReadRoutes,
  ...transactionWriteRoutes,
  ...accountRoutes,
  ...categoryRoutes,
  ...tagRoutes,
  ...counterpartyRoutes,
  ...reportRoutes,
  ...seriesRoutes,
  ...syncRoutes,
  ...ruleRoutes,
];
