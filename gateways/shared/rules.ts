import {
  RULE_CREATOR_TYPES,
  RULE_SORTS,
  RULE_TRIGGERS,
  RULE_TRIGGER_ALIASES,
  SEARCH_MODES,
} from "../../common/enums.js";
import { fromJson, type JsonValue, type MessageInitShape } from "@bufbuild/protobuf";
import { ValueSchema, type Value } from "@bufbuild/protobuf/wkt";
import { z } from "zod";
import { RuleSchema, type ListRulesRequestSchema, type Rule, type RuleCoverage } from "../../gen/coffer/v1/rules_pb.js";
import { slug } from "./params.js";
import { restShapeOf, toRest } from "./rest-json.js";

/**
 * What both gateways say about rules: the list filters (GET /api/v1/rules's
 * query parameters are query_transaction_rules's arguments, same names and
 * meaning), the projections, and the JSON of a rule.
 */

/** list_transaction_rules's parameters (and the first half of query_transaction_rules's). */
export const ruleListShape = {
  category_slug: slug.optional().describe("only rules whose set_category action sets this category"),
  enabled: z.boolean().optional().describe("true: enabled rules only; false: disabled only; omitted: both"),
  search: z.string().max(500).optional().describe("rule-name search; comma-separated terms are ORed"),
  search_mode: z
    .enum(SEARCH_MODES)
    .optional()
    .describe("contains (default, substring), words (whole words), fuzzy (typo-tolerant)"),
  limit: z.number().int().min(1).max(500).optional().describe("page size, 1-500, default 50"),
  cursor: z.string().max(8192).optional().describe("next_cursor of the previous page; omit for the first page"),
};

export { RULE_SORTS };

/** The trigger names a request may use: the triggers and their aliases. */
const TRIGGER_ALIASES = Object.keys(RULE_TRIGGER_ALIASES) as (keyof typeof RULE_TRIGGER_ALIASES)[];
export const TRIGGER_INPUTS = [...RULE_TRIGGERS, ...TRIGGER_ALIASES] as const;

/** query_transaction_rules's parameters, except `fields` (whose names differ per gateway). */
export const ruleQueryShape = {
  ...ruleListShape,
  trigger: z.enum(TRIGGER_INPUTS).optional().describe("on_create, on_change (alias on_update) or always"),
  creator_type: z.enum(RULE_CREATOR_TYPES).optional().describe("who created the rule"),
  min_hit_count: z
    .number()
    .int()
    .min(0)
    .optional()
    .describe("rules with hit_count at least this; ignored when only_unused is true"),
  only_unused: z.boolean().optional().describe("true: only rules that never matched (hit_count 0)"),
  sort_by: z
    .enum(RULE_SORTS)
    .optional()
    .describe("priority (default; paginated) or hit_count, last_hit_at, created_at, name (one top-N page, no cursor)"),
  sort_order: z
    .enum(["asc", "desc"])
    .optional()
    .describe("default desc for hit_count, last_hit_at, created_at; asc for priority and name"),
};

export type RuleQueryValues = z.input<z.ZodObject<typeof ruleQueryShape>>;

/** Validated list parameters → the core's ListRulesRequest. */
export function listRulesRequest(v: Partial<RuleQueryValues>): MessageInitShape<typeof ListRulesRequestSchema> {
  return {
    categorySlug: v.category_slug,
    enabled: v.enabled,
    trigger: v.trigger,
    creatorType: v.creator_type,
    search: v.search,
    searchMode: v.search_mode,
    minHitCount: v.min_hit_count === undefined ? undefined : BigInt(v.min_hit_count),
    onlyUnused: v.only_unused,
    sortBy: v.sort_by ?? "",
    sortOrder: v.sort_order ?? "",
    limit: v.limit ?? 0,
    cursor: v.cursor ?? "",
  };
}

/** JSON for a google.protobuf.Value field; undefined leaves the field unset. */
export const valueOf = (json: unknown): Value | undefined =>
  json === undefined ? undefined : fromJson(ValueSchema, json as JsonValue);

type Json = ReturnType<typeof toRest>;

/** A rule as both gateways show it (REST and every MCP rule tool): `id` is the UUID, `short_id` beside it. */
export const restRule = (r: Rule): Json => toRest(RuleSchema, r);

/** Every field of a rule, in the order the JSON has them (what `fields` may name, besides `category`). */
export const RULE_FIELDS = Object.keys(restShapeOf(RuleSchema).shape);

/** A coverage match (find_matching_rules, GET /rules/find-matching); the rule is named by its short id. */
export const coverageShape = z.object({
  short_id: z.string().describe("rule short id"),
  name: z.string(),
  sets_category: z.string().optional().describe("category slug; left out when the rule sets none"),
  trigger: z.string(),
  priority: z.number().int(),
  enabled: z.boolean(),
  hit_count: z.number().int(),
  match_all: z.boolean().describe("a conditionless rule: matches everything, not counted as coverage"),
});

/** A coverage match; sets_category is left out when the rule sets no category. */
export function coverageJson(c: RuleCoverage): z.input<typeof coverageShape> {
  return {
    short_id: c.shortId,
    name: c.name,
    ...(c.setsCategory !== undefined ? { sets_category: c.setsCategory } : {}),
    trigger: c.trigger,
    priority: c.priority,
    enabled: c.enabled,
    hit_count: Number(c.hitCount),
    match_all: c.matchAll,
  };
}

const splitFields = (raw: string) =>
  raw
    .split(",")
    .map((f) => f.trim())
    .filter((f) => f !== "");

/**
 * A `fields` parameter: "all", or comma-separated names from `available`
 * (where `category` is another name for `category_slug`). A pattern rather
 * than a refinement, so the REST gateway's JSON Schema checks it too.
 */
export function fieldsParam(available: readonly string[], defaults: readonly string[] | "all") {
  const known = [...available, "category"];
  const name = `(?:${known.join("|")})`;
  return z
    .string()
    .max(1000)
    .regex(new RegExp(`^\\s*(?:all|${name}(?:\\s*,\\s*${name})*)\\s*$`), {
      message: `must be "all" or a comma-separated list of: ${known.join(", ")}`,
    })
    .optional()
    .describe(
      `comma-separated fields, or "all". Default: ${defaults === "all" ? "all" : defaults.join(",")}. ` +
        `Available: ${known.join(", ")} (category is the category slug)`,
    );
}

/** Projects a rule's JSON to the fields asked for (undefined: the defaults). */
export function projectRule(
  rule: Json,
  raw: string | undefined,
  defaults: readonly string[] | "all",
): Record<string, unknown> {
  const names = raw === undefined ? defaults : raw.trim() === "all" ? "all" : splitFields(raw);
  if (names === "all") return rule;
  return Object.fromEntries([...new Set(names)].map((f) => [f, f === "category" ? rule.category_slug : rule[f]]));
}
