import type { CategorySource } from "../entities/index.js";
import type { Em } from "../orm.js";
import { table } from "../sql.js";

/** The statements of importers that write rows as given (demo data, tests' seeds). */

// ---------------------------------------------------------------- importers

/** A row as an importer (demo data, tests' seeds) inserts it. */
export interface ImportedTransactionRow {
  id: string;
  short_id: string;
  account_id: string;
  amount: string;
  iso_currency_code: string;
  date: string;
  authorized_date: string | null;
  provider: string;
  provider_transaction_id: string;
  provider_name: string;
  provider_merchant_name: string | null;
  provider_category_primary: string | null;
  provider_category_detailed: string | null;
  pending: boolean;
  category_id: string | null;
  category_source: CategorySource | null;
  tag_ids: string[];
  metadata: string;
  counterparty_id: string | null;
}

/** Inserts rows, skipping any that clashes on a unique key; returns the ids inserted. */
export async function insertImportedTransactions(em: Em, rows: readonly ImportedTransactionRow[]): Promise<string[]> {
  const out: { id: string }[] = await table(em, "transactions")
    .insert(rows as ImportedTransactionRow[])
    .onConflict()
    .ignore()
    .returning("id");
  return out.map((r) => r.id);
}

export type ProviderKey = { account_id: string; provider: string; provider_transaction_id: string };

/** Which of these (account, provider, provider transaction id) keys are stored. */
export async function storedProviderKeys(em: Em, keys: readonly ProviderKey[]): Promise<ProviderKey[]> {
  return (await table(em, "transactions")
    .select("account_id", "provider", "provider_transaction_id")
    .whereIn(
      ["account_id", "provider", "provider_transaction_id"],
      keys.map((r) => [r.account_id, r.provider, r.provider_transaction_id]),
    )) as ProviderKey[];
}
