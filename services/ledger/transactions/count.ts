import type { Em } from "../../db/orm.js";
import { countMatchingTransactions } from "../../db/queries/transaction-pages.js";
import { resolveFilter, type TransactionFilterInput } from "./filter.js";

/** How many live (not soft-deleted) transactions the filters match: for planning pagination. */
export async function countTransactions(em: Em, f: TransactionFilterInput | undefined): Promise<bigint> {
  return countMatchingTransactions(em, (await resolveFilter(em, f)).predicate);
}
