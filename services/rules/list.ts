import { UUID } from "../../common/validation.js";
import type { Em } from "../db/orm.js";
import { countRuleRows, ruleExists, ruleRowsPage, type RuleFilter } from "../db/tables/rules.js";
import { CofferError } from "../errors/coffer-error.js";
import { parseSearch, parseSearchMode } from "../ledger/transactions/filter.js";
import { UNCATEGORIZED } from "../ledger/taxonomy.js";
import { decodeCursor, encodeCursor, filterHash, invalidCursor } from "../pagination/cursor.js";
import type { CursorKeyring } from "../pagination/cursor-keys.js";
import { parseLimit } from "../pagination/limit.js";
import { isSlug } from "../shared/validate.js";
import { loadReferenceMaps } from "./references.js";
import { parseTrigger, presentRule, type RuleView } from "./rules.js";
import { clockOf, epochSeconds } from "../clock.js";

/**
 * GET /rules, list_transaction_rules and query_transaction_rules: one query
 * with every filter. The default order, priority (ties: older first, then
 * id) — the pipeline's order — is cursor-paginated with a keyset on exactly
 * those columns, so paging never skips or repeats a rule. Any other sort_by
 * returns one page of the top `limit` and no cursor.
 */

import { RULE_SORTS } from "../../common/enums.js";
export { RULE_SORTS };
export type RuleSort = (typeof RULE_SORTS)[number];
import { RULE_CREATOR_TYPES as CREATOR_TYPES } from "../../common/enums.js";
export { CREATOR_TYPES };

const DEFAULT_ORDER: Record<RuleSort, "asc" | "desc"> = {
  priority: "asc",
  hit_count: "desc",
  last_hit_at: "desc",
  created_at: "desc",
  name: "asc",
};

/** Cursors live as long as transaction cursors do. */
const CURSOR_MAX_AGE_SECONDS = 24 * 3600;

export interface ListRulesInput {
  categorySlug?: string;
  enabled?: boolean;
  trigger?: string;
  creatorType?: string;
  search?: string;
  searchMode?: string;
  minHitCount?: number;
  onlyUnused?: boolean;
  sortBy?: string;
  sortOrder?: string;
  /** 0 or undefined: the default (50). */
  limit?: number;
  cursor?: string;
}

export interface RulePage {
  rules: RuleView[];
  /** "" when there is no next page, and always for a sort other than priority. */
  nextCursor: string;
  /** Whether rules matching the filters were left out of this page. */
  hasMore: boolean;
  /** How many rules match the filters. */
  total: number;
}

const invalid = (message: string) => new CofferError("INVALID_PARAMETER", message);
const present = (s: string | undefined): s is string => s !== undefined && s.trim() !== "";

interface Filters {
  canonical: Record<string, unknown>;
  filter: RuleFilter;
}

async function resolveFilters(em: Em, f: ListRulesInput): Promise<Filters> {
  const canonical: Record<string, unknown> = {};
  const filter: RuleFilter = {};
  if (present(f.categorySlug)) {
    const slug = f.categorySlug.trim();
    if (!isSlug(slug)) throw invalid("category_slug must be a category slug ([a-z0-9_])");
    let id: string | null = null;
    if (slug !== UNCATEGORIZED) {
      const found = (await loadReferenceMaps(em)).categoryIdBySlug.get(slug);
      if (!found) throw invalid(`category_slug: no category "${slug}"`);
      id = found;
    }
    canonical.category_slug = slug;
    filter.setsCategory = { id };
  }
  if (f.enabled !== undefined) {
    canonical.enabled = f.enabled;
    filter.enabled = f.enabled;
  }
  if (present(f.trigger)) {
    filter.trigger = parseTrigger(f.trigger, "INVALID_PARAMETER");
    canonical.trigger = filter.trigger;
  }
  if (present(f.creatorType)) {
    const t = f.creatorType.trim();
    if (!(CREATOR_TYPES as readonly string[]).includes(t)) {
      throw invalid(`creator_type must be one of ${CREATOR_TYPES.join(", ")}`);
    }
    canonical.creator_type = t;
    filter.creatorType = t as (typeof CREATOR_TYPES)[number];
  }
  const terms = present(f.search) ? parseSearch(f.search) : [];
  const mode = parseSearchMode(f.searchMode);
  if (terms.length > 0) {
    canonical.search = terms;
    canonical.search_mode = mode;
    filter.search = { mode, terms };
  }
  if (f.onlyUnused) {
    canonical.only_unused = true;
    filter.onlyUnused = true;
  } else if (f.minHitCount !== undefined) {
    if (!Number.isSafeInteger(f.minHitCount) || f.minHitCount < 0) {
      throw invalid("min_hit_count must be a whole number of at least 0");
    }
    canonical.min_hit_count = f.minHitCount;
    filter.minHitCount = f.minHitCount;
  }
  return { canonical, filter };
}

function parseSort(sortBy: string | undefined, sortOrder: string | undefined): { by: RuleSort; order: "asc" | "desc" } {
  const by = (sortBy?.trim() || "priority") as RuleSort;
  if (!RULE_SORTS.includes(by)) throw invalid(`sort_by must be one of ${RULE_SORTS.join(", ")}`);
  const order = sortOrder?.trim() || DEFAULT_ORDER[by];
  if (order !== "asc" && order !== "desc") throw invalid("sort_order must be asc or desc");
  return { by, order };
}

const POSITION = /^(-?\d{1,7})\|(\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6})$/;

export async function listRules(em: Em, input: ListRulesInput, keys: CursorKeyring): Promise<RulePage> {
  const limit = parseLimit(input.limit);
  const { by, order } = parseSort(input.sortBy, input.sortOrder);
  const cursorRaw = input.cursor?.trim() ?? "";
  if (cursorRaw !== "" && by !== "priority") {
    throw invalidCursor(
      `sort_by=${by} returns a single page and takes no cursor (only the priority order is paginated)`,
    );
  }
  const filters = await resolveFilters(em, input);
  const hash = filterHash({ filter: filters.canonical, sort_by: by, sort_order: order });

  let after: { priority: number; createdKey: string; id: string } | undefined;
  // Later pages keep the first page's time, so a pagination expires as a whole.
  let issued = epochSeconds(clockOf(em));
  if (cursorRaw !== "") {
    const c = await decodeCursor(cursorRaw, {
      filterHash: hash,
      maxAgeSeconds: CURSOR_MAX_AGE_SECONDS,
      secretFor: (generation) => keys.secretFor(em, generation),
      now: epochSeconds(clockOf(em)),
    });
    const m = POSITION.exec(c.d);
    if (!m || !UUID.test(c.i) || c.i !== c.i.toLowerCase()) throw invalidCursor("cursor is malformed");
    if (!(await ruleExists(em, c.i))) throw invalidCursor("the rule this cursor continues from no longer exists");
    after = { priority: Number(m[1]), createdKey: m[2], id: c.i };
    issued = c.t;
  }

  const total = await countRuleRows(em, filters.filter);
  const rows = await ruleRowsPage(em, filters.filter, { by, order, limit: limit + 1, after });
  const page = rows.slice(0, limit);
  const maps = await loadReferenceMaps(em);
  const rules = page.map((r) => presentRule(r, maps));
  if (by !== "priority") return { rules, nextCursor: "", hasMore: total > page.length, total };
  const hasMore = rows.length > limit;
  let nextCursor = "";
  if (hasMore) {
    const last = page[page.length - 1];
    nextCursor = encodeCursor(
      { d: `${last.priority}|${last.created_key}`, i: last.id, f: hash, w: "", t: issued },
      await keys.signingKey(em),
    );
  }
  return { rules, nextCursor, hasMore, total };
}
