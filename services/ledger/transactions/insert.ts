import type { Em } from "../../db/orm.js";
import { findImportedTransactions } from "../../db/tables/transactions.js";
import {
  insertImportedTransactions,
  storedProviderKeys,
  type ProviderKey,
} from "../../db/tables/transactions-import.js";
import { validation } from "../../errors/coffer-error.js";
import { newShortId } from "../../ids/short-id.js";
import { UUID, isCalendarDate } from "../../../common/validation.js";
import { canonicalAmount, parseCurrency } from "../../shared/validate.js";
import type { CategorySource } from "../../db/entities/index.js";

/** A transaction as an importer (sync, CSV, demo) hands it over. */
export interface NewTransaction {
  accountId: string;
  amount: string;
  isoCurrencyCode: string;
  date: string;
  authorizedDate?: string | null;
  provider: string;
  providerTransactionId: string;
  providerName: string;
  providerMerchantName?: string | null;
  providerCategoryPrimary?: string | null;
  providerCategoryDetailed?: string | null;
  pending?: boolean;
  categoryId?: string | null;
  categorySource?: CategorySource | null;
  tagIds?: string[];
  metadata?: Record<string, unknown>;
  counterpartyId?: string | null;
}

/**
 * Inserts transactions in batches, skipping ones already imported (same
 * account, provider and provider transaction id). Returns the ids of the rows
 * inserted. Rows are validated before anything is written.
 */
export async function insertTransactions(em: Em, items: NewTransaction[], batchSize = 1000): Promise<string[]> {
  const rows = items.map((t, i) => {
    if (!isCalendarDate(t.date)) throw new Error(`transaction ${i}: date must be YYYY-MM-DD`);
    return {
      id: crypto.randomUUID(),
      account_id: t.accountId,
      amount: canonicalAmount(t.amount),
      iso_currency_code: parseCurrency(t.isoCurrencyCode),
      date: t.date,
      authorized_date: t.authorizedDate ?? null,
      provider: t.provider,
      provider_transaction_id: t.providerTransactionId,
      provider_name: t.providerName,
      provider_merchant_name: t.providerMerchantName ?? null,
      provider_category_primary: t.providerCategoryPrimary ?? null,
      provider_category_detailed: t.providerCategoryDetailed ?? null,
      pending: t.pending ?? false,
      category_id: t.categoryId ?? null,
      category_source: t.categoryId ? (t.categorySource ?? "system") : null,
      tag_ids: t.tagIds ?? [],
      metadata: JSON.stringify(t.metadata ?? {}),
      counterparty_id: t.counterpartyId ?? null,
    };
  });
  const inserted: string[] = [];
  for (let i = 0; i < rows.length; i += batchSize) {
    let pending = rows.slice(i, i + batchSize);
    for (let attempt = 0; pending.length > 0; attempt++) {
      if (attempt === 5) throw new Error("could not allocate unique short ids");
      const out = await insertImportedTransactions(
        em,
        pending.map((r) => ({ ...r, short_id: newShortId() })),
      );
      const done = new Set(out);
      inserted.push(...done);
      // A row skipped for a duplicate provider id is done; one skipped for a short-id clash is retried.
      const retry = await shortIdClashes(
        em,
        pending.filter((r) => !done.has(r.id)),
      );
      pending = retry;
    }
  }
  return inserted;
}

/**
 * The live (not deleted) transactions an importer already brought into an
 * account, by provider transaction id → transaction id. Ids not found are
 * left out.
 */
export async function findImportedTransactionIds(
  em: Em,
  req: { accountId: string; provider: string; providerTransactionIds: string[] },
): Promise<Map<string, string>> {
  if (!UUID.test(req.accountId)) throw validation("account_id must be a UUID");
  if (req.providerTransactionIds.length === 0) return new Map();
  const rows = await findImportedTransactions(em, req);
  return new Map(rows.map((r) => [r.provider_transaction_id, r.id]));
}

async function shortIdClashes<T extends ProviderKey>(em: Em, skipped: T[]): Promise<T[]> {
  if (skipped.length === 0) return [];
  const existing = await storedProviderKeys(em, skipped);
  const key = (r: ProviderKey) => `${r.account_id}\u0000${r.provider}\u0000${r.provider_transaction_id}`;
  const dup = new Set(existing.map(key));
  return skipped.filter((r) => !dup.has(key(r)));
}
