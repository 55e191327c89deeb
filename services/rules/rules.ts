import { RULE_TRIGGER_ALIASES } from "../../common/enums.js";
import type { Em } from "../db/orm.js";
import {
  deleteRuleRow,
  enabledRuleRows,
  insertRule,
  ruleIdByLookup,
  ruleRowById,
  setRuleRowEnabled,
  updateRuleRow,
  type RuleChanges,
  type RuleRow,
} from "../db/tables/rules.js";
import { CofferError, notFound, validation } from "../errors/coffer-error.js";
import { parseId } from "../ids/resolve-id.js";
import { newShortId } from "../ids/short-id.js";
import type { Actor } from "../ledger/actor.js";
import { recordAnnotation } from "../ledger/annotations.js";
import { parseText, type InputErrorCode } from "../shared/validate.js";
import {
  RuleValidationError,
  TRIGGERS,
  compileConditions,
  parseActions,
  pipelineOrder,
  sameJson,
  type CompiledConditions,
  type CompiledRule,
  type Trigger,
} from "./engine/index.js";
import {
  loadReferenceMaps,
  normalizeConditionIds,
  presentActions,
  ruleCategory,
  runnableActions,
  storeActions,
  type ReferenceMaps,
  type StoredAction,
} from "./references.js";

/** A rule as the API shows it. Timestamps are UTC ISO text. */
export interface RuleView {
  id: string;
  shortId: string;
  name: string;
  conditions: Record<string, unknown>;
  actions: Record<string, unknown>[];
  trigger: Trigger;
  /** The category its set_category action sets, if any. */
  categorySlug: string | null;
  categoryDisplayName: string | null;
  priority: number;
  enabled: boolean;
  hitCount: number;
  lastHitAt: string | null;
  createdByType: "user" | "agent" | "system";
  /** The short id of the API key that created it (null for the built-in rule). */
  createdById: string | null;
  createdByName: string;
  createdAt: string;
  updatedAt: string;
}

export type { RuleRow };

export function presentRule(r: RuleRow, maps: ReferenceMaps): RuleView {
  const category = ruleCategory(r.actions, maps);
  return {
    id: r.id,
    shortId: r.short_id,
    name: r.name,
    conditions: r.conditions,
    actions: presentActions(r.actions, maps),
    trigger: r.trigger,
    categorySlug: category?.slug ?? null,
    categoryDisplayName: category?.displayName ?? null,
    priority: r.priority,
    enabled: r.enabled,
    hitCount: Number(r.hit_count),
    lastHitAt: r.last_hit_at,
    createdByType: r.created_by_type,
    createdById: r.created_by_id,
    createdByName: r.created_by_name,
    createdAt: r.created_at,
    updatedAt: r.updated_at,
  };
}

/** The UUID of a rule named by UUID or short id; NOT_FOUND otherwise. */
export async function resolveRuleId(em: Em, raw: string): Promise<string> {
  const lookup = parseId(raw.trim());
  const id = lookup ? await ruleIdByLookup(em, lookup) : undefined;
  if (!id) throw notFound("Rule");
  return id;
}

export async function loadRule(em: Em, id: string): Promise<RuleView> {
  const row = await ruleRowById(em, id);
  if (!row) throw notFound("Rule");
  return presentRule(row, await loadReferenceMaps(em));
}

// ---- input checks ----------------------------------------------------------

const MAX_NAME = 200;
/** Largest condition tree, as JSON. */
export const MAX_CONDITIONS_BYTES = 64 * 1024;
export const PRIORITY_RANGE = { min: -1_000_000, max: 1_000_000 } as const;
export const DEFAULT_PRIORITY = 100;
export const DEFAULT_TRIGGER: Trigger = "always";

/** A grammar error as the API reports it: 400 VALIDATION_ERROR, "path: problem". */
export function asValidation<T>(f: () => T): T {
  try {
    return f();
  } catch (e) {
    if (e instanceof RuleValidationError) throw validation(e.message);
    throw e;
  }
}

export const parseRuleName = (raw: string | undefined) => parseText(raw, "name", { max: MAX_NAME });

/** A trigger; on_update is accepted as another name for on_change. */
export function parseTrigger(raw: string, code: InputErrorCode = "VALIDATION_ERROR"): Trigger {
  const t = raw.trim();
  if (Object.hasOwn(RULE_TRIGGER_ALIASES, t)) return RULE_TRIGGER_ALIASES[t as keyof typeof RULE_TRIGGER_ALIASES];
  if (!(TRIGGERS as readonly string[]).includes(t)) {
    throw new CofferError(code, `trigger must be one of ${TRIGGERS.join(", ")} (on_update is accepted for on_change)`);
  }
  return t as Trigger;
}

export function parsePriority(raw: number): number {
  if (!Number.isInteger(raw) || raw < PRIORITY_RANGE.min || raw > PRIORITY_RANGE.max) {
    throw validation(`priority must be a whole number from ${PRIORITY_RANGE.min} to ${PRIORITY_RANGE.max}`);
  }
  return raw;
}

/**
 * A condition tree: grammar first (with the path of a bad node), then its
 * account and user ids. Returns the tree to store and its compiled form.
 */
export async function parseConditions(
  em: Em,
  raw: unknown,
): Promise<{ tree: Record<string, unknown>; compiled: CompiledConditions }> {
  if (raw === undefined) throw validation("conditions is required ({} matches every transaction)");
  const tree = structuredClone(raw) as Record<string, unknown>;
  const compiled = asValidation(() => compileConditions(tree));
  const bytes = Buffer.byteLength(JSON.stringify(tree));
  if (bytes > MAX_CONDITIONS_BYTES) {
    throw validation(`conditions may be at most ${MAX_CONDITIONS_BYTES} bytes as JSON (got ${bytes})`);
  }
  await normalizeConditionIds(em, compiled);
  return { tree, compiled };
}

async function parseRuleActions(em: Em, raw: unknown): Promise<StoredAction[]> {
  if (raw === undefined) throw validation("actions is required");
  return storeActions(
    em,
    asValidation(() => parseActions(raw)),
  );
}

// ---- writes ----------------------------------------------------------------

export interface RuleInput {
  name?: string;
  conditions?: unknown;
  actions?: unknown;
  trigger?: string;
  priority?: number;
  enabled?: boolean;
}

/** Creates a rule; the calling key is its creator. Returns its id. */
export async function createRule(em: Em, actor: Actor, input: RuleInput): Promise<string> {
  const name = parseRuleName(input.name);
  const { tree } = await parseConditions(em, input.conditions);
  const actions = await parseRuleActions(em, input.actions);
  const trigger = input.trigger === undefined ? DEFAULT_TRIGGER : parseTrigger(input.trigger);
  const priority = input.priority === undefined ? DEFAULT_PRIORITY : parsePriority(input.priority);
  const enabled = input.enabled ?? true;
  return em.transactional(async (tx) => {
    const id = crypto.randomUUID();
    for (let attempt = 0; ; attempt++) {
      if (attempt === 5) throw new Error("could not allocate a unique short id for a rule");
      const inserted = await insertRule(tx, {
        id,
        shortId: newShortId(),
        name,
        conditions: tree,
        actions,
        trigger,
        priority,
        enabled,
        actor,
      });
      if (inserted) break;
    }
    await recordAnnotation(tx, actor, {
      entityType: "rule",
      entityId: id,
      action: "created",
      details: { name, trigger, priority, enabled },
    });
    return id;
  });
}

/** Changes the fields given; the others stay. Returns the rule's id. */
export async function updateRule(em: Em, actor: Actor, rawId: string, input: RuleInput): Promise<string> {
  const id = await resolveRuleId(em, rawId);
  const next: RuleChanges = {};
  if (input.name !== undefined) next.name = parseRuleName(input.name);
  if (input.conditions !== undefined) next.conditions = (await parseConditions(em, input.conditions)).tree;
  if (input.actions !== undefined) next.actions = await parseRuleActions(em, input.actions);
  if (input.trigger !== undefined) next.trigger = parseTrigger(input.trigger);
  if (input.priority !== undefined) next.priority = parsePriority(input.priority);
  if (input.enabled !== undefined) next.enabled = input.enabled;
  await em.transactional(async (tx) => {
    const row = await ruleRowById(tx, id, { lock: true });
    if (!row) throw notFound("Rule");
    const current: Record<string, unknown> = { ...row };
    const changes: Record<string, { from: unknown; to: unknown }> = {};
    for (const [k, v] of Object.entries(next)) {
      if (!sameJson(current[k], v)) changes[k] = { from: current[k], to: v };
    }
    if (Object.keys(changes).length === 0) return;
    await updateRuleRow(tx, id, Object.fromEntries(Object.keys(changes).map((k) => [k, next[k as keyof RuleChanges]])));
    await recordAnnotation(tx, actor, {
      entityType: "rule",
      entityId: id,
      action: "updated",
      details: { name: row.name, changes },
    });
  });
  return id;
}

export async function setRuleEnabled(em: Em, actor: Actor, rawId: string, enabled: boolean): Promise<string> {
  const id = await resolveRuleId(em, rawId);
  await em.transactional(async (tx) => {
    const name = await setRuleRowEnabled(tx, id, enabled);
    if (name === undefined) return;
    await recordAnnotation(tx, actor, {
      entityType: "rule",
      entityId: id,
      action: enabled ? "enabled" : "disabled",
      details: { name },
    });
  });
  return id;
}

export async function deleteRule(em: Em, actor: Actor, rawId: string): Promise<void> {
  const id = await resolveRuleId(em, rawId);
  await em.transactional(async (tx) => {
    const gone = await deleteRuleRow(tx, id);
    if (!gone) throw notFound("Rule");
    await recordAnnotation(tx, actor, {
      entityType: "rule",
      entityId: id,
      action: "deleted",
      details: { short_id: gone.short_id, name: gone.name, hit_count: Number(gone.hit_count) },
    });
  });
}

// ---- rules ready to run ----------------------------------------------------

/**
 * Compiled condition trees by their stored JSON: the sync compiles the
 * enabled rules for every page, and a tree (its RE2 patterns, and what their
 * memos remember) is the same until the rule changes. Bounded: it starts
 * over when full.
 */
const compiledTrees = new Map<string, CompiledConditions>();
const MAX_COMPILED_TREES = 5000;

function compiledTree(raw: unknown): CompiledConditions {
  const key = JSON.stringify(raw);
  let c = compiledTrees.get(key);
  if (!c) {
    c = compileConditions(raw);
    if (compiledTrees.size >= MAX_COMPILED_TREES) compiledTrees.clear();
    compiledTrees.set(key, c);
  }
  return c;
}

/** Compiles stored rules (valid when saved) with their actions resolved. */
export async function compileRules(em: Em, rows: RuleRow[], maps: ReferenceMaps): Promise<CompiledRule[]> {
  const actions = await runnableActions(
    em,
    rows.map((r) => r.actions),
    maps,
  );
  return rows.map((r, i) => ({
    id: r.id,
    shortId: r.short_id,
    name: r.name,
    priority: r.priority,
    createdAt: r.created_key,
    trigger: r.trigger,
    conditions: compiledTree(r.conditions),
    actions: actions[i],
  }));
}

/** The enabled rules, compiled, in pipeline order. */
export async function loadEnabledRules(
  em: Em,
  maps: ReferenceMaps,
): Promise<{ rules: CompiledRule[]; rows: RuleRow[] }> {
  const rows = await enabledRuleRows(em);
  const rules = pipelineOrder(await compileRules(em, rows, maps));
  return { rules, rows };
}
