import type { Em } from "../orm.js";
import { iso, query } from "../sql.js";

/** How a transaction is presented: one SELECT wrapper shared by the single read and the list's pages. */

/** The columns of `transactions` (and `transaction_versions`), in one list for every query that reads rows. */
export const TRANSACTION_COLUMNS = [
  "id",
  "short_id",
  "account_id",
  "amount",
  "iso_currency_code",
  "date",
  "authorized_date",
  "provider",
  "provider_transaction_id",
  "provider_name",
  "provider_merchant_name",
  "provider_category_primary",
  "provider_category_detailed",
  "pending",
  "category_id",
  "category_source",
  "tag_ids",
  "metadata",
  "counterparty_id",
  "series_id",
  "deleted_at",
  "created_at",
  "updated_at",
  "seq",
] as const;

/**
 * Wraps any SELECT that yields transaction rows (alias `t`, columns as in
 * TRANSACTION_COLUMNS) with what a presented transaction needs: account,
 * owner, category, counterparty, series and tag slugs. Joins run on the page only.
 * Dates, timestamps and amounts come out as text so nothing is parsed by JS
 * floats or local time zones. Columns are named as TransactionView's fields.
 */
export function viewSql(inner: string): string {
  return `
    select t.id, t.short_id as "shortId", t.amount::text as amount, t.iso_currency_code as "isoCurrencyCode",
      to_char(t.date, 'YYYY-MM-DD') as date, to_char(t.authorized_date, 'YYYY-MM-DD') as "authorizedDate",
      coalesce(t.provider_merchant_name, t.provider_name) as name,
      t.provider, t.provider_transaction_id as "providerTransactionId", t.provider_name as "providerName",
      t.provider_merchant_name as "providerMerchantName", t.provider_category_primary as "providerCategoryPrimary",
      t.provider_category_detailed as "providerCategoryDetailed", t.pending, t.category_source as "categorySource",
      t.metadata, ${iso("t.deleted_at")} as "deletedAt", ${iso("t.created_at")} as "createdAt",
      ${iso("t.updated_at")} as "updatedAt",
      a.short_id as "accountId", a.name as "accountName", u.short_id as "userId", u.name as "userName",
      coalesce(c.slug, 'uncategorized') as "categorySlug",
      coalesce(c.display_name,
        (select display_name from categories where slug = 'uncategorized')) as "categoryDisplayName",
      pc.slug as "categoryParentSlug",
      cp.short_id as "counterpartyId", cp.name as "counterpartyName",
      s.short_id as "seriesId", s.name as "seriesName",
      coalesce((select array_agg(g.slug order by g.slug) from tags g where g.id = any(t.tag_ids)), '{}') as tags
    from (${inner}) t
    join accounts a on a.id = t.account_id
    join users u on u.id = a.user_id
    left join categories c on c.id = t.category_id
    left join categories pc on pc.id = c.parent_id
    left join counterparties cp on cp.id = t.counterparty_id
    left join series s on s.id = t.series_id`;
}

/**
 * A transaction as the API shows it: the row with its account, owner,
 * category, counterparty, series and tag slugs. References (accountId, userId,
 * counterpartyId, seriesId) are short ids; dates and timestamps are UTC ISO text;
 * `name` is the merchant's name, else the bank's text.
 */
export interface TransactionView {
  id: string;
  shortId: string;
  accountId: string;
  accountName: string;
  userId: string;
  userName: string;
  amount: string;
  isoCurrencyCode: string;
  date: string;
  authorizedDate: string | null;
  name: string;
  provider: string;
  providerTransactionId: string;
  providerName: string;
  providerMerchantName: string | null;
  providerCategoryPrimary: string | null;
  providerCategoryDetailed: string | null;
  pending: boolean;
  categorySlug: string;
  categoryDisplayName: string;
  categoryParentSlug: string | null;
  categorySource: string | null;
  tags: string[];
  metadata: Record<string, unknown>;
  counterpartyId: string | null;
  counterpartyName: string | null;
  /** The recurring series it belongs to (short id), if any. */
  seriesId: string | null;
  seriesName: string | null;
  deletedAt: string | null;
  createdAt: string;
  updatedAt: string;
}

/** One presented transaction by UUID (deleted or not). */
export async function transactionViewById(em: Em, id: string): Promise<TransactionView | undefined> {
  const [row] = await query<TransactionView>(em, viewSql(`select * from transactions where id = ?`), [id]);
  return row;
}
