import type { Em } from "../db/orm.js";
import { CofferError } from "../errors/coffer-error.js";
import { resolveTransactionId } from "../ledger/transactions/view.js";
import { TRUE, truthOf, type TransactionContext, type Trigger } from "./engine/index.js";
import { parseText } from "../shared/validate.js";
import { loadContexts } from "./context-loader.js";
import { loadReferenceMaps, ruleCategory } from "./references.js";
import { enabledRuleRows } from "../db/tables/rules.js";
import { compileRules } from "./rules.js";

/**
 * find_matching_rules: which active (enabled) rules match one stored
 * transaction, or a merchant name, in pipeline order. Each rule is judged on
 * its own (no pipeline), whatever its trigger. A merchant is a context
 * holding only the two name fields; a condition that also needs another
 * field (an amount, the category, tags) is then unknown, not true, so such a
 * rule is not reported (see engine/evaluate.ts). Conditionless rules match
 * everything: they are listed with matchAll, and not counted as coverage.
 */

export interface RuleCoverage {
  shortId: string;
  name: string;
  setsCategory: string | null;
  trigger: Trigger;
  priority: number;
  enabled: boolean;
  hitCount: number;
  matchAll: boolean;
}

export interface Coverage {
  /** Rules whose conditions match (conditionless rules are listed but not counted). */
  matchedCount: number;
  rules: RuleCoverage[];
}

const MAX_MERCHANT = 500;
const present = (s: string | undefined): s is string => s !== undefined && s.trim() !== "";

export async function findMatchingRules(
  em: Em,
  input: { transactionId?: string; merchant?: string },
): Promise<Coverage> {
  const byTransaction = present(input.transactionId);
  const byMerchant = present(input.merchant);
  if (byTransaction === byMerchant) {
    throw new CofferError(
      "INVALID_PARAMETER",
      byTransaction
        ? "give exactly one of transaction_id and merchant, not both"
        : "give exactly one of transaction_id (a transaction's id or short id) and merchant (a merchant name)",
    );
  }
  const maps = await loadReferenceMaps(em);
  let ctx: TransactionContext;
  if (byTransaction) {
    const id = await resolveTransactionId(em, input.transactionId!.trim());
    [{ context: ctx }] = await loadContexts(em, [id], maps);
  } else {
    const merchant = parseText(input.merchant, "merchant", { max: MAX_MERCHANT }, "INVALID_PARAMETER");
    ctx = { providerName: merchant, providerMerchantName: merchant };
  }
  const rows = await enabledRuleRows(em);
  const rules = await compileRules(em, rows, maps);
  const out: RuleCoverage[] = [];
  rows.forEach((row, i) => {
    const rule = rules[i];
    if (truthOf(rule.conditions, ctx) !== TRUE) return;
    out.push({
      shortId: row.short_id,
      name: row.name,
      setsCategory: ruleCategory(row.actions, maps)?.slug ?? null,
      trigger: row.trigger,
      priority: row.priority,
      enabled: row.enabled,
      hitCount: Number(row.hit_count),
      matchAll: rule.conditions.root === null,
    });
  });
  return { matchedCount: out.filter((r) => !r.matchAll).length, rules: out };
}
