import type { RestRoute } from "../route.js";

/** Category, tags, metadata, comments, annotations, batch-categorize, delete/restore of transactions. */
export const transactionWriteRoutes: RestRoute[] = [];
