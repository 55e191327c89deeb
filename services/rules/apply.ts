import type { Em } from "../db/orm.js";
import { bothPredicates, transactionPredicate, type TransactionPredicate } from "../db/queries/transaction-filter.js";
import { prefilter } from "../db/queries/rule-prefilter.js";
import { validation } from "../errors/coffer-error.js";
import type { Actor } from "../ledger/actor.js";
import { recordAnnotation } from "../ledger/annotations.js";
import { parseDate } from "../shared/validate.js";
import { conditionsMatch, firesOn, runPipeline } from "./engine/index.js";
import { scanContexts } from "./context-loader.js";
import { loadReferenceMaps } from "./references.js";
import { ruleRowById } from "../db/tables/rules.js";
import { compileRules, loadEnabledRules, resolveRuleId } from "./rules.js";
import { runOn, writeHitCounts, type HitCounts, type RunSummary } from "./runner.js";
import { METADATA_LIMITS } from "../ledger/transactions/metadata.js";

/**
 * Retroactive apply: rules run on transactions already stored, all or
 * nothing in one database transaction. A first pass reads the candidates
 * without locks and finds the ones rules match; runOn then locks those,
 * judges them again (the rows may have changed meanwhile) and writes the
 * changes, annotations and hit counts like a sync does.
 */

export interface DateRange {
  /** Inclusive, YYYY-MM-DD. */
  startDate?: string;
  /** Exclusive, YYYY-MM-DD. */
  endDate?: string;
}

function parseRange(raw: DateRange): { predicate: TransactionPredicate; range: Record<string, string> } {
  const start = raw.startDate?.trim() ? parseDate(raw.startDate, "start_date", "VALIDATION_ERROR") : undefined;
  const end = raw.endDate?.trim() ? parseDate(raw.endDate, "end_date", "VALIDATION_ERROR") : undefined;
  if (start && end && start >= end) throw validation("start_date must be before end_date (end_date is exclusive)");
  const range: Record<string, string> = {};
  if (start) range.start_date = start;
  if (end) range.end_date = end;
  return { predicate: transactionPredicate({ startDate: start, endDate: end }), range };
}

/**
 * Runs one rule (enabled or not, whatever its trigger) on the stored
 * transactions in the range. Returns how many it matched and changed.
 */
export async function applyRule(em: Em, actor: Actor, rawId: string, raw: DateRange): Promise<RunSummary> {
  const range = parseRange(raw);
  const id = await resolveRuleId(em, rawId);
  return em.transactional(async (tx) => {
    const maps = await loadReferenceMaps(tx);
    const [rule] = await compileRules(tx, [(await ruleRowById(tx, id))!], maps);
    const ids: string[] = [];
    await scanContexts(tx, {
      where: bothPredicates(range.predicate, prefilter(rule.conditions)),
      fields: rule.conditions.fields,
      maps,
      withIds: true,
      onBatch(batch) {
        for (const t of batch) if (conditionsMatch(rule.conditions, t.context)) ids.push(t.id);
      },
    });
    const hits: HitCounts = new Map();
    const summary = await runOn(tx, ids, [rule], maps, actor, hits);
    await writeHitCounts(tx, hits);
    await recordAnnotation(tx, actor, {
      entityType: "rule",
      entityId: id,
      action: "applied",
      details: { name: rule.name, ...range.range, matched: summary.matched, changed: summary.changed },
    });
    return summary;
  });
}

const LIMITS = { maxMetadataKeys: METADATA_LIMITS.maxKeys, maxMetadataBytes: METADATA_LIMITS.maxBytes };

/**
 * Runs the pipeline of every enabled rule that fires on a change (trigger
 * on_change or always) on the stored transactions in the range, as if each
 * had just changed. on_create rules only run when a transaction arrives;
 * apply one of them with applyRule.
 */
export async function applyAllRules(em: Em, actor: Actor, raw: DateRange): Promise<RunSummary> {
  const range = parseRange(raw);
  return em.transactional(async (tx) => {
    const maps = await loadReferenceMaps(tx);
    const rules = (await loadEnabledRules(tx, maps)).rules.filter((r) => firesOn(r.trigger, "change"));
    if (rules.length === 0) return { matched: 0, changed: 0 };
    const ids: string[] = [];
    await scanContexts(tx, {
      where: range.predicate,
      fields: "all",
      maps,
      withIds: true,
      onBatch(batch) {
        for (const t of batch) if (runPipeline(rules, t.context, t.state, LIMITS).matched.length > 0) ids.push(t.id);
      },
    });
    const hits: HitCounts = new Map();
    const summary = await runOn(tx, ids, rules, maps, actor, hits);
    await writeHitCounts(tx, hits);
    return summary;
  });
}
