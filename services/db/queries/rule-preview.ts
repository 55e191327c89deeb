import type { Em } from "../orm.js";
import { query } from "../sql.js";

/** The statements of preview_rule beyond the context scan: its transaction's limits and the samples it shows. */

/**
 * Makes the current database transaction read-only with one statement
 * timeout for all its statements (a whole number of milliseconds, at least 1).
 */
export async function limitPreviewTransaction(tx: Em, statementTimeoutMs: number): Promise<void> {
  if (!Number.isSafeInteger(statementTimeoutMs) || statementTimeoutMs < 1) {
    throw new Error(`not a statement timeout: ${statementTimeoutMs}`);
  }
  await query(tx, "set transaction read only");
  // SET takes no bind parameters; the number is checked above.
  await query(tx, `set local statement_timeout = ${statementTimeoutMs}`);
}

export interface PreviewSampleRow {
  short_id: string;
  /** YYYY-MM-DD. */
  date: string;
  /** Decimal text. */
  amount: string;
  name: string;
  provider_category_primary: string | null;
  category_id: string | null;
}

/** These transactions (by short id), newest first (date, then short id, descending). */
export async function previewSampleRows(em: Em, shortIds: readonly string[]): Promise<PreviewSampleRow[]> {
  return query<PreviewSampleRow>(
    em,
    `select t.short_id, to_char(t.date, 'YYYY-MM-DD') as date, t.amount::text as amount,
       coalesce(t.provider_merchant_name, t.provider_name) as name, t.provider_category_primary, t.category_id
     from transactions t where t.short_id = any(?::text[])
     order by t.date desc, t.short_id desc`,
    [`{${shortIds.join(",")}}`],
  );
}
