import type { RestRoute } from "../route.js";

/** GET /transactions, /transactions/count, /transactions/summary, /transactions/:id. */
export const transactionReadRoutes: RestRoute[] = [];
