import { FLAG_TAG, type RuleAction, type SeriesTarget } from "./actions.js";
import { forgetLowered, type TransactionContext } from "./context.js";
import { conditionsMatch } from "./evaluate.js";
import { METADATA_PREFIX } from "./fields.js";
import { sameJson } from "./json.js";
import type { CompiledConditions } from "./tree.js";

/**
 * The rule pipeline for one transaction: pure, deterministic, no I/O. It
 * runs rules on a working copy and returns what changed and which rule
 * changed it; writing the changes and their annotations is the runner's
 * job (services/rules/runner.ts).
 */

import { RULE_TRIGGERS as TRIGGERS } from "../../../common/enums.js";
export { TRIGGERS };
export type Trigger = (typeof TRIGGERS)[number];

/** What happened to a transaction: it arrived, or the provider changed its data. */
export type SyncEvent = "create" | "change";

/** on_create fires for new rows, on_change for rows whose provider data changed, always for both. */
export const firesOn = (trigger: Trigger, event: SyncEvent): boolean =>
  trigger === "always" || (trigger === "on_create" ? event === "create" : event === "change");

export type CategorySource = "user" | "agent" | "rule" | "system";

/** A category a person or an agent chose is never overwritten by a rule; system and rule ones may be refined. */
export const categoryLocked = (source: CategorySource | null): boolean => source === "user" || source === "agent";

export interface RuleRef {
  id: string;
  shortId: string;
  name: string;
}

export interface CompiledRule extends RuleRef {
  priority: number;
  /** created_at as fixed-width UTC text with microseconds, so text order is time order. */
  createdAt: string;
  trigger: Trigger;
  conditions: CompiledConditions;
  actions: RuleAction[];
}

/**
 * Pipeline order: priority ascending, then older rules first, then id. The
 * tie-breakers matter because a later set_category wins: two rules of equal
 * priority must always run in the same order, on every sync and every core,
 * or the same transaction could end up in different categories.
 */
export function pipelineOrder<R extends Pick<CompiledRule, "priority" | "createdAt" | "id">>(rules: readonly R[]): R[] {
  return [...rules].sort(
    (a, b) =>
      a.priority - b.priority ||
      (a.createdAt < b.createdAt ? -1 : a.createdAt > b.createdAt ? 1 : 0) ||
      (a.id < b.id ? -1 : a.id > b.id ? 1 : 0),
  );
}

/** The stored values the pipeline may change, beside the context it judges conditions on. */
export interface TransactionState {
  categoryId: string | null;
  categorySource: CategorySource | null;
  counterpartyId: string | null;
}

export interface PipelineLimits {
  maxMetadataKeys: number;
  maxMetadataBytes: number;
}

export interface PipelineResult {
  /** Rules whose conditions matched, in the order they ran. */
  matched: RuleRef[];
  category: {
    from: string;
    to: string;
    toId: string | null;
    previousSource: CategorySource | null;
    by: RuleRef;
  } | null;
  tagsAdded: { slug: string; by: RuleRef; flagReason?: string | null }[];
  tagsRemoved: { slug: string; by: RuleRef }[];
  /** Metadata keys set and removed, grouped by the rule that last touched them. */
  metadata: { by: RuleRef; set: string[]; removed: string[] }[];
  counterparty: { fromId: string | null; toId: string; toName: string; by: RuleRef } | null;
  /** The series assigned: its short id ("" when it is created on writing) and the action's target. */
  series: { to: string; target: SeriesTarget; by: RuleRef } | null;
  comments: { content: string; by: RuleRef }[];
  /** The values after the pass (equal to the input where nothing changed). */
  after: {
    categoryId: string | null;
    categorySource: CategorySource | null;
    tags: string[];
    metadata: Record<string, unknown>;
    counterpartyId: string | null;
    series: string;
  };
  changed: boolean;
}

const byteLength = (v: unknown) => new TextEncoder().encode(JSON.stringify(v)).length;

/**
 * Runs `rules` (already in pipeline order and chosen for the event) on one
 * transaction. Every rule is judged against the working copy, so category,
 * tags, metadata, counterparty and series set by an earlier rule are what a
 * later rule sees; a later set_category wins. A set_metadata that would break
 * the metadata limits is skipped.
 */
export function runPipeline(
  rules: readonly CompiledRule[],
  input: TransactionContext,
  state: TransactionState,
  limits: PipelineLimits,
): PipelineResult {
  const tagsBefore = [...(input.tags ?? [])];
  const metadataBefore = input.metadata ?? {};
  // A Map, not an object: a key such as "__proto__" must stay a plain key.
  const metadata = new Map(Object.entries(metadataBefore));
  const ctx: TransactionContext = { ...input, tags: [...tagsBefore], metadata: metadataBefore, lowered: {} };
  let categoryId = state.categoryId;
  let categorySource = state.categorySource;
  let counterpartyId = state.counterpartyId;

  const matched: RuleRef[] = [];
  let categoryBy: RuleRef | null = null;
  const tagBy = new Map<string, { by: RuleRef; flagReason?: string | null }>();
  const metadataBy = new Map<string, RuleRef>();
  let counterpartyBy: RuleRef | null = null;
  let seriesBy: { target: SeriesTarget; by: RuleRef } | null = null;
  const comments: PipelineResult["comments"] = [];

  const addTag = (slug: string, by: RuleRef, flagReason?: string | null) => {
    const tags = ctx.tags as string[];
    if (!tags.includes(slug)) tags.push(slug);
    tagBy.set(slug, flagReason === undefined ? { by } : { by, flagReason });
  };
  const setMetadata = (by: RuleRef, key: string, change: (m: Map<string, unknown>) => void) => {
    const next = new Map(metadata);
    change(next);
    const obj = Object.fromEntries(next);
    if (next.size > limits.maxMetadataKeys || byteLength(obj) > limits.maxMetadataBytes) return;
    change(metadata);
    ctx.metadata = obj;
    metadataBy.set(key, by);
    forgetLowered(ctx, `${METADATA_PREFIX}${key}`);
  };

  for (const rule of rules) {
    if (!conditionsMatch(rule.conditions, ctx)) continue;
    const by: RuleRef = { id: rule.id, shortId: rule.shortId, name: rule.name };
    matched.push(by);
    for (const a of rule.actions) {
      switch (a.type) {
        case "set_category":
          if (categoryLocked(categorySource) || a.categoryId === categoryId) break;
          categoryId = a.categoryId;
          categorySource = "rule";
          ctx.category = a.slug;
          forgetLowered(ctx, "category");
          categoryBy = by;
          break;
        case "add_tag":
          addTag(a.slug, by);
          break;
        case "flag":
          addTag(FLAG_TAG, by, a.reason);
          break;
        case "remove_tag": {
          const tags = ctx.tags as string[];
          const i = tags.indexOf(a.slug);
          if (i >= 0) tags.splice(i, 1);
          tagBy.set(a.slug, { by });
          break;
        }
        case "set_metadata":
          setMetadata(by, a.key, (m) => m.set(a.key, a.value));
          break;
        case "remove_metadata":
          if (metadata.has(a.key)) setMetadata(by, a.key, (m) => m.delete(a.key));
          break;
        case "assign_counterparty":
          if (counterpartyId === a.counterpartyId) break;
          counterpartyId = a.counterpartyId;
          ctx.counterparty = a.name;
          forgetLowered(ctx, "counterparty");
          counterpartyBy = by;
          break;
        case "assign_series":
          // Fills only a transaction that has no series yet.
          if (ctx.inSeries) break;
          ctx.series = a.seriesId;
          ctx.inSeries = true;
          forgetLowered(ctx, "series");
          seriesBy = { target: a.target, by };
          break;
        case "add_comment":
          comments.push({ content: a.content, by });
          break;
      }
    }
  }

  // What changed, compared with the input (a change undone by a later rule is no change).
  if (categoryId === state.categoryId) categorySource = state.categorySource;
  const category =
    categoryId !== state.categoryId && categoryBy
      ? {
          from: input.category ?? "uncategorized",
          to: ctx.category ?? "uncategorized",
          toId: categoryId,
          previousSource: state.categorySource,
          by: categoryBy,
        }
      : null;
  const tagsAfter = ctx.tags as string[];
  const tagsAdded = tagsAfter.filter((t) => !tagsBefore.includes(t)).map((slug) => ({ slug, ...tagBy.get(slug)! }));
  const tagsRemoved = tagsBefore
    .filter((t) => !tagsAfter.includes(t))
    .map((slug) => ({ slug, by: tagBy.get(slug)!.by }));
  const metadataAfter = Object.fromEntries(metadata);
  const metadataChanges = new Map<string, { by: RuleRef; set: string[]; removed: string[] }>();
  for (const [key, by] of metadataBy) {
    const had = Object.prototype.hasOwnProperty.call(metadataBefore, key);
    const has = metadata.has(key);
    const kind =
      has && (!had || !sameJson(metadataBefore[key], metadata.get(key))) ? "set" : had && !has ? "removed" : null;
    if (!kind) continue;
    let entry = metadataChanges.get(by.id);
    if (!entry) metadataChanges.set(by.id, (entry = { by, set: [], removed: [] }));
    entry[kind].push(key);
  }
  const counterparty =
    counterpartyId !== state.counterpartyId && counterpartyBy && counterpartyId !== null
      ? { fromId: state.counterpartyId, toId: counterpartyId, toName: ctx.counterparty ?? "", by: counterpartyBy }
      : null;
  const series = seriesBy && !input.inSeries ? { to: ctx.series ?? "", ...seriesBy } : null;
  const metadataList = [...metadataChanges.values()];
  return {
    matched,
    category,
    tagsAdded,
    tagsRemoved,
    metadata: metadataList,
    counterparty,
    series,
    comments,
    after: {
      categoryId,
      categorySource,
      tags: tagsAfter,
      metadata: metadataAfter,
      counterpartyId,
      series: ctx.series ?? "",
    },
    changed:
      category !== null ||
      tagsAdded.length > 0 ||
      tagsRemoved.length > 0 ||
      metadataList.length > 0 ||
      counterparty !== null ||
      series !== null ||
      comments.length > 0,
  };
}
