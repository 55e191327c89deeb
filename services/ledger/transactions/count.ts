import type { Em } from "../../db/orm.js";
import { query } from "../../db/sql.js";
import { resolveFilter, type TransactionFilterInput } from "./filter.js";

/** How many live (not soft-deleted) transactions the filters match: for planning pagination. */
export async function countTransactions(em: Em, f: TransactionFilterInput | undefined): Promise<bigint> {
  const filter = await resolveFilter(em, f);
  const rows = await query<{ n: string }>(
    em,
    `select count(*)::text as n from transactions t where t.deleted_at is null and (${filter.sql})`,
    filter.params,
  );
  return BigInt(rows[0].n);
}
