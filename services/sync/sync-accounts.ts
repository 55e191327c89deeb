import { BALANCE } from "../../common/money.js";
import { cleanText as cleanProviderText } from "../../common/text.js";
import { CURRENCY } from "../../common/validation.js";
import type { Em } from "../db/orm.js";
import { connectionAccounts, upsertSyncedAccounts } from "../db/tables/accounts.js";
import { retryOnShortIdClash } from "../ids/insert.js";
import { newShortId } from "../ids/short-id.js";
import { ACCOUNT_TYPES } from "../ledger/accounts/accounts.js";
import type { Actor } from "../ledger/actor.js";
import { recordAnnotations } from "../ledger/annotations.js";
import type { ProviderAccount } from "./providers/provider.js";

/** A connection's account as the engine files transactions into it. */
export interface SyncedAccount {
  id: string;
  isoCurrencyCode: string;
}

/** Text from a provider as Coffer stores it (the text rule's provider half, common/text.ts). */
export const cleanText = (s: string | null, max = 500): string | null => cleanProviderText(s, max);

const balance = (v: string | null) => (v !== null && BALANCE.test(v.trim()) ? v.trim() : null);

/**
 * Creates or updates the connection's accounts from the provider's list, in
 * one transaction: new ones are created for the connection's owner (and
 * annotated), known ones get the provider's balances and details. The name a
 * person gave an account, and whether they hid it, are theirs: the provider
 * never overwrites them. When the provider reports no balance at all, the
 * stored ones are kept. Returns every account of the connection by the
 * provider's account id, and the accounts it could not take (with why).
 */
export async function upsertAccounts(
  em: Em,
  actor: Actor,
  conn: { id: string; userId: string; provider: string },
  accounts: ProviderAccount[],
): Promise<{ byProviderId: Map<string, SyncedAccount>; skipped: { row: string; reason: string }[] }> {
  const skipped: { row: string; reason: string }[] = [];
  const rows = new Map<string, ProviderAccount & { type: string }>();
  for (const a of accounts) {
    const currency = a.isoCurrencyCode?.trim().toUpperCase() ?? "";
    const providerAccountId = cleanText(a.providerAccountId, 200);
    if (!providerAccountId) {
      skipped.push({ row: "account", reason: "an account without an id was left out" });
      continue;
    }
    if (!CURRENCY.test(currency)) {
      skipped.push({ row: `account ${providerAccountId}`, reason: `currency "${currency}" is not an ISO 4217 code` });
      continue;
    }
    const type = (ACCOUNT_TYPES as readonly string[]).includes(a.type) ? a.type : "other";
    rows.set(providerAccountId, { ...a, providerAccountId, isoCurrencyCode: currency, type });
  }
  return em.transactional(async (tx) => {
    if (rows.size > 0) {
      const list = [...rows.values()];
      const created = await retryOnShortIdClash(() =>
        tx.transactional((sp) =>
          upsertSyncedAccounts(
            sp,
            conn,
            list.map((a) => ({
              shortId: newShortId(),
              providerAccountId: a.providerAccountId,
              name: cleanText(a.name, 200) ?? cleanText(a.mask, 200) ?? "Account",
              officialName: cleanText(a.officialName, 200),
              type: a.type,
              subtype: cleanText(a.subtype, 64),
              mask: cleanText(a.mask, 8),
              balanceCurrent: balance(a.balanceCurrent),
              balanceAvailable: balance(a.balanceAvailable),
              balanceLimit: balance(a.balanceLimit),
              isoCurrencyCode: a.isoCurrencyCode,
            })),
          ),
        ),
      );
      const inserted = created.filter((r) => r.inserted);
      await recordAnnotations(
        tx,
        actor,
        inserted.map((r) => ({
          entityType: "account" as const,
          entityId: r.id,
          action: "created",
          details: { name: r.name, provider: conn.provider, provider_account_id: r.provider_account_id },
        })),
      );
    }
    const all = await connectionAccounts(tx, conn.id);
    return {
      byProviderId: new Map(
        all.map((r) => [r.provider_account_id, { id: r.id, isoCurrencyCode: r.iso_currency_code }]),
      ),
      skipped,
    };
  });
}
