import type { RestRoute } from "../route.js";
import { authRoutes } from "./auth.js";
import { systemRoutes } from "./system.js";
import { transactionReadRoutes } from "./transactions-read.js";
import { transactionWriteRoutes } from "./transactions-write.js";
import { userRoutes } from "./users.js";

export const allRoutes: RestRoute[] = [
  ...systemRoutes,
  ...authRoutes,
  ...userRoutes,
  ...transactionReadRoutes,
  ...transactionWriteRoutes,
];
