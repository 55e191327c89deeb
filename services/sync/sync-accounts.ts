import { BALANCE } from "../../common/money.js";
import { cleanText as cleanProviderText } from "../../common/text.js";
import { CURRENCY } from "../../common/validation.js";
import type { Em } from "../db/orm.js";
import { pgArray, query } from "../db/sql.js";
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
          query<{ id: string; provider_account_id: string; name: string; inserted: boolean }>(
            sp,
            `insert into accounts as a (id, short_id, user_id, connection_id, provider, provider_account_id, name,
           official_name, type, subtype, mask, balance_current, balance_available, balance_limit, iso_currency_code)
         select gen_random_uuid(), x.short_id, ?, ?, ?, x.pid, x.name, x.official_name, x.type, x.subtype, x.mask,
           x.cur::numeric, x.avail::numeric, x.lim::numeric, x.ccy
         from unnest(?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[], ?::text[],
           ?::text[], ?::text[]) as x(short_id, pid, name, official_name, type, subtype, mask, cur, avail, lim, ccy)
         on conflict (connection_id, provider_account_id) where connection_id is not null do update set
           official_name = excluded.official_name, type = excluded.type, subtype = excluded.subtype,
           mask = excluded.mask, iso_currency_code = excluded.iso_currency_code,
           balance_current = case when num_nonnulls(excluded.balance_current, excluded.balance_available,
             excluded.balance_limit) = 0 then a.balance_current else excluded.balance_current end,
           balance_available = case when num_nonnulls(excluded.balance_current, excluded.balance_available,
             excluded.balance_limit) = 0 then a.balance_available else excluded.balance_available end,
           balance_limit = case when num_nonnulls(excluded.balance_current, excluded.balance_available,
             excluded.balance_limit) = 0 then a.balance_limit else excluded.balance_limit end,
           updated_at = now()
         where (a.official_name, a.type, a.subtype, a.mask, a.iso_currency_code, a.balance_current,
             a.balance_available, a.balance_limit) is distinct from
           (excluded.official_name, excluded.type, excluded.subtype, excluded.mask, excluded.iso_currency_code,
             case when num_nonnulls(excluded.balance_current, excluded.balance_available, excluded.balance_limit) = 0
               then a.balance_current else excluded.balance_current end,
             case when num_nonnulls(excluded.balance_current, excluded.balance_available, excluded.balance_limit) = 0
               then a.balance_available else excluded.balance_available end,
             case when num_nonnulls(excluded.balance_current, excluded.balance_available, excluded.balance_limit) = 0
               then a.balance_limit else excluded.balance_limit end)
         returning a.id, a.provider_account_id, a.name, (a.xmax = 0) as inserted`,
            [
              conn.userId,
              conn.id,
              conn.provider,
              pgArray(list.map(() => newShortId())),
              pgArray(list.map((a) => a.providerAccountId)),
              pgArray(list.map((a) => cleanText(a.name, 200) ?? cleanText(a.mask, 200) ?? "Account")),
              pgArray(list.map((a) => cleanText(a.officialName, 200))),
              pgArray(list.map((a) => a.type)),
              pgArray(list.map((a) => cleanText(a.subtype, 64))),
              pgArray(list.map((a) => cleanText(a.mask, 8))),
              pgArray(list.map((a) => balance(a.balanceCurrent))),
              pgArray(list.map((a) => balance(a.balanceAvailable))),
              pgArray(list.map((a) => balance(a.balanceLimit))),
              pgArray(list.map((a) => a.isoCurrencyCode)),
            ],
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
    const all = await query<{ id: string; provider_account_id: string; iso_currency_code: string }>(
      tx,
      `select id, provider_account_id, iso_currency_code from accounts where connection_id = ?`,
      [conn.id],
    );
    return {
      byProviderId: new Map(
        all.map((r) => [r.provider_account_id, { id: r.id, isoCurrencyCode: r.iso_currency_code }]),
      ),
      skipped,
    };
  });
}
