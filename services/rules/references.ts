import type { Em } from "../db/orm.js";
import { accountShortIdByLookup } from "../db/tables/accounts.js";
import { allCategories } from "../db/tables/categories.js";
import { findCounterpartiesByIds } from "../db/tables/counterparties.js";
import { allTags } from "../db/tables/tags.js";
import { userShortIdByLookup } from "../db/tables/users.js";
import { validation } from "../errors/coffer-error.js";
import { parseId } from "../ids/resolve-id.js";
import { UNCATEGORIZED } from "../ledger/taxonomy.js";
import {
  leavesOf,
  type ActionInput,
  type CompiledConditions,
  type MetadataScalar,
  type RuleAction,
} from "./engine/index.js";
import { findAssignTarget, parseAssignSeriesParams } from "../series/rules-hooks.js";

/**
 * What rules refer to, resolved against the database: categories and tags
 * by id (stored) and slug (shown), counterparties and series by short id,
 * accounts and users in conditions by short id.
 */

/** An action as the rules table stores it. */
export type StoredAction =
  /** category_id null: uncategorized. */
  | { type: "set_category"; category_id: string | null }
  | { type: "add_tag" | "remove_tag"; tag_id: string }
  | { type: "assign_counterparty"; counterparty_id: string }
  /** By the series' short id, or by name (created on first use with create_if_missing). */
  | { type: "assign_series"; series_id: string }
  | { type: "assign_series"; series_name: string; create_if_missing?: true }
  | { type: "add_comment"; content: string }
  | { type: "set_metadata"; key: string; value: MetadataScalar }
  | { type: "remove_metadata"; key: string }
  | { type: "flag"; reason?: string };

/** Categories and tags by id and by slug (both tables are small; they are read whole). */
export interface ReferenceMaps {
  categories: Map<string, { slug: string; displayName: string }>;
  categoryIdBySlug: Map<string, string>;
  tags: Map<string, string>;
  tagIdBySlug: Map<string, string>;
}

export async function loadReferenceMaps(em: Em): Promise<ReferenceMaps> {
  const [categories, tags] = await Promise.all([allCategories(em), allTags(em)]);
  return {
    categories: new Map(categories.map((c) => [c.id, { slug: c.slug, displayName: c.display_name }])),
    categoryIdBySlug: new Map(categories.map((c) => [c.slug, c.id])),
    tags: new Map(tags.map((t) => [t.id, t.slug])),
    tagIdBySlug: new Map(tags.map((t) => [t.slug, t.id])),
  };
}

/** The slug a transaction's category_id shows as. */
export const categorySlugOf = (maps: ReferenceMaps, id: string | null): string =>
  id === null ? UNCATEGORIZED : (maps.categories.get(id)?.slug ?? UNCATEGORIZED);

async function counterpartiesByRef(
  em: Em,
  refs: string[],
): Promise<Map<string, { id: string; shortId: string; name: string }>> {
  const lookups = refs.map((r) => ({ raw: r, lookup: parseId(r) }));
  const ids = lookups.filter((l) => l.lookup?.column === "id").map((l) => l.lookup!.value);
  const shortIds = lookups.filter((l) => l.lookup?.column === "short_id").map((l) => l.lookup!.value);
  if (ids.length === 0 && shortIds.length === 0) return new Map();
  const rows = await findCounterpartiesByIds(em, ids, shortIds);
  const out = new Map<string, { id: string; shortId: string; name: string }>();
  for (const r of rows) {
    const found = { id: r.id, shortId: r.short_id, name: r.name };
    out.set(r.id, found);
    out.set(r.short_id, found);
  }
  return out;
}

/**
 * Resolves what actions name into what is stored: an unknown category, tag,
 * counterparty or series is a VALIDATION_ERROR naming the action.
 */
export async function storeActions(em: Em, actions: ActionInput[]): Promise<StoredAction[]> {
  const maps = await loadReferenceMaps(em);
  const counterparties = await counterpartiesByRef(
    em,
    actions.flatMap((a) => (a.type === "assign_counterparty" ? [a.counterparty_id] : [])),
  );
  const stored: StoredAction[] = [];
  for (const [i, a] of actions.entries()) {
    const at = `actions[${i}]`;
    switch (a.type) {
      case "set_category": {
        if (a.category_slug === UNCATEGORIZED) {
          stored.push({ type: a.type, category_id: null });
          break;
        }
        const id = maps.categoryIdBySlug.get(a.category_slug);
        if (!id)
          throw validation(`${at}: unknown category_slug "${a.category_slug}"; GET /api/v1/categories lists them`);
        stored.push({ type: a.type, category_id: id });
        break;
      }
      case "add_tag":
      case "remove_tag": {
        const id = maps.tagIdBySlug.get(a.tag_slug);
        if (!id) throw validation(`${at}: unknown tag_slug "${a.tag_slug}"; create the tag first (POST /api/v1/tags)`);
        stored.push({ type: a.type, tag_id: id });
        break;
      }
      case "assign_counterparty": {
        const found = counterparties.get(parseId(a.counterparty_id)?.value ?? "");
        if (!found) throw validation(`${at}: unknown counterparty "${a.counterparty_id}"`);
        stored.push({ type: a.type, counterparty_id: found.shortId });
        break;
      }
      case "assign_series": {
        const { type: _, ...params } = a;
        const target = parseAssignSeriesParams(params, at);
        const found = await findAssignTarget(em, target);
        if (target.seriesName !== undefined) {
          if (!found && !target.createIfMissing) {
            throw validation(
              `${at}: no series is named "${target.seriesName}"; add create_if_missing: true to create it`,
            );
          }
          stored.push({
            type: a.type,
            series_name: target.seriesName.trim(),
            ...(target.createIfMissing ? { create_if_missing: true as const } : {}),
          });
          break;
        }
        if (!found) throw validation(`${at}: unknown series "${target.seriesId}"`);
        stored.push({ type: a.type, series_id: found.shortId });
        break;
      }
      default:
        stored.push(a);
    }
  }
  return stored;
}

/** Actions as the API shows them: slugs for categories and tags (null if the row vanished meanwhile). */
export function presentActions(stored: StoredAction[], maps: ReferenceMaps): Record<string, unknown>[] {
  return stored.map((a) => {
    switch (a.type) {
      case "set_category":
        return {
          type: a.type,
          category_slug: a.category_id === null ? UNCATEGORIZED : (maps.categories.get(a.category_id)?.slug ?? null),
        };
      case "add_tag":
      case "remove_tag":
        return { type: a.type, tag_slug: maps.tags.get(a.tag_id) ?? null };
      default:
        return { ...a };
    }
  });
}

/** The category a rule sets (its set_category action), as slug and display name; null when it sets none. */
export function ruleCategory(
  stored: StoredAction[],
  maps: ReferenceMaps,
): { slug: string; displayName: string } | null {
  const a = stored.find((x) => x.type === "set_category");
  if (!a) return null;
  if (a.category_id === null) {
    const id = maps.categoryIdBySlug.get(UNCATEGORIZED);
    return { slug: UNCATEGORIZED, displayName: (id && maps.categories.get(id)?.displayName) || "Uncategorized" };
  }
  return maps.categories.get(a.category_id) ?? null;
}

/**
 * Actions ready for the pipeline. One whose category or tag vanished after
 * the rule was saved does nothing (deleting them is refused while rules use
 * them, so this only covers a race).
 */
export async function runnableActions(em: Em, rules: StoredAction[][], maps: ReferenceMaps): Promise<RuleAction[][]> {
  const counterparties = await counterpartiesByRef(
    em,
    rules.flat().flatMap((a) => (a.type === "assign_counterparty" ? [a.counterparty_id] : [])),
  );
  const series = new Map<StoredAction, { id: string; shortId: string } | null>();
  for (const a of rules.flat()) {
    if (a.type !== "assign_series") continue;
    series.set(
      a,
      await findAssignTarget(em, "series_id" in a ? { seriesId: a.series_id } : { seriesName: a.series_name }),
    );
  }
  return rules.map((actions) =>
    actions.flatMap((a): RuleAction[] => {
      switch (a.type) {
        case "set_category": {
          if (a.category_id === null) return [{ type: a.type, categoryId: null, slug: UNCATEGORIZED }];
          const c = maps.categories.get(a.category_id);
          return c ? [{ type: a.type, categoryId: a.category_id, slug: c.slug }] : [];
        }
        case "add_tag":
        case "remove_tag": {
          const slug = maps.tags.get(a.tag_id);
          return slug ? [{ type: a.type, slug }] : [];
        }
        case "assign_counterparty": {
          const c = counterparties.get(a.counterparty_id);
          return c ? [{ type: a.type, counterpartyId: c.id, name: c.name }] : [];
        }
        case "assign_series": {
          const target = "series_id" in a ? { seriesId: a.series_id } : { seriesName: a.series_name };
          const found = series.get(a);
          // A series deleted since the rule was saved: nothing to fill. One to create by name: created on writing.
          if (!found && !("series_name" in a && a.create_if_missing)) return [];
          return [
            {
              type: a.type,
              seriesId: found?.shortId ?? "",
              target: found ? { seriesId: found.shortId } : { ...target, createIfMissing: true },
            },
          ];
        }
        case "flag":
          return [{ type: a.type, reason: a.reason ?? null }];
        default:
          return [a];
      }
    }),
  );
}

const ID_FIELDS = {
  account_id: { noun: "account", shortIdOf: accountShortIdByLookup },
  user_id: { noun: "user", shortIdOf: userShortIdByLookup },
} as const;

/**
 * Conditions on account_id and user_id compare short ids. A UUID or short id
 * given with eq, neq or in is checked (an unknown one is a VALIDATION_ERROR
 * at its node) and written as the short id, in place in the raw tree the
 * conditions were compiled from.
 */
export async function normalizeConditionIds(em: Em, compiled: CompiledConditions): Promise<void> {
  for (const node of leavesOf(compiled.root)) {
    const ref = ID_FIELDS[node.field.name as keyof typeof ID_FIELDS];
    if (!ref || !["eq", "neq", "in"].includes(node.op)) continue;
    const one = async (raw: string): Promise<string> => {
      const lookup = parseId(raw.trim());
      const shortId = lookup ? await ref.shortIdOf(em, lookup) : undefined;
      if (shortId === undefined) throw validation(`${node.path}: unknown ${ref.noun} "${raw}"`);
      return shortId;
    };
    const v = node.source.value;
    node.source.value = Array.isArray(v) ? await Promise.all(v.map((x) => one(String(x)))) : await one(String(v));
  }
}
