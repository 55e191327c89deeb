import { AccountEntity, type Account } from "../../db/entities/index.js";
import type { Em } from "../../db/orm.js";
import { sumCentsByAccount } from "../../db/tables/transactions.js";
import { validation } from "../../errors/coffer-error.js";
import { UUID } from "../../../common/validation.js";
import type { Actor } from "../actor.js";
import { recordAnnotation } from "../annotations.js";
import { parseBalance, resolveAccount } from "./accounts.js";
import { nowOf } from "../../clock.js";
import { BALANCE, canonicalMoney } from "../../../common/money.js";

type BalanceField = "balanceCurrent" | "balanceAvailable" | "balanceLimit";
const FIELDS: [BalanceField, string][] = [
  ["balanceCurrent", "balance_current"],
  ["balanceAvailable", "balance_available"],
  ["balanceLimit", "balance_limit"],
];

/**
 * Sets the balances of an account that no provider keeps up to date (a manual
 * one): each field given is set, "" clears it, a field left out is kept. The
 * change is annotated like any other account change; a call that changes
 * nothing writes nothing.
 */
export async function setAccountBalances(
  em: Em,
  actor: Actor,
  req: { id: string } & Partial<Record<BalanceField, string>>,
): Promise<string> {
  const wanted = FIELDS.flatMap(([field, column]) => {
    const raw = req[field];
    if (raw === undefined) return [];
    return [{ field, column, to: raw.trim() === "" ? null : parseBalance(raw, column) }];
  });
  return em.transactional(async (tx) => {
    const a = await resolveAccount(tx, req.id);
    const set: Partial<Account> = {};
    const changes: Record<string, { from: unknown; to: unknown }> = {};
    for (const { field, column, to } of wanted) {
      // The stored value as numeric text ("42.5" or "42.50"), in the same canonical spelling.
      const from = a[field] === null ? null : canonicalMoney(String(a[field]), BALANCE);
      if (from === to) continue;
      set[field] = to;
      changes[column] = { from, to };
    }
    if (Object.keys(changes).length === 0) return a.id;
    await tx.nativeUpdate(AccountEntity, { id: a.id }, { ...set, updatedAt: nowOf(tx) });
    await recordAnnotation(tx, actor, {
      entityType: "account",
      entityId: a.id,
      action: "updated",
      details: { changes },
    });
    return a.id;
  });
}

/** The sum of each account's live transactions in integer cents (summed in SQL as NUMERIC); 0 when it has none. */
export async function netCentsByAccount(em: Em, accountIds: string[]): Promise<Map<string, bigint>> {
  if (accountIds.some((id) => !UUID.test(id))) throw validation("account ids must be UUIDs");
  const rows = await sumCentsByAccount(em, accountIds);
  const sums = new Map(rows.map((r) => [r.account_id, BigInt(r.cents)]));
  return new Map(accountIds.map((id) => [id, sums.get(id.toLowerCase()) ?? 0n]));
}
