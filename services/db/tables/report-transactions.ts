import type { Em } from "../orm.js";
import { pgArray, query } from "../sql.js";

/** Links a report to its transactions, in the order given. */
export async function insertReportTransactions(em: Em, reportId: string, transactionIds: string[]): Promise<void> {
  await query(
    em,
    `insert into report_transactions (report_id, transaction_id, position)
     select ?, t.id, t.n - 1 from unnest(?::uuid[]) with ordinality as t(id, n)`,
    [reportId, pgArray(transactionIds)],
  );
}
