import { z } from "zod";
import { PreviewRuleResponseSchema } from "../../../gen/coffer/v1/rules_pb.js";
import { toRest } from "../../shared/rest-json.js";
import {
  coverageJson,
  fieldsParam,
  listRulesRequest,
  mcpRule,
  projectRule,
  ruleListShape,
  ruleQueryShape,
  valueOf,
} from "../../shared/rules.js";
import { defineTool, type ToolDef } from "../tool.js";
import { describeGrammar } from "../../../common/rule-grammar.js";

/** A rule as agents see it; `id` is the short id (what every rule tool takes). */
export const ruleShape = {
  id: z.string().describe("short id"),
  name: z.string(),
  conditions: z.record(z.string(), z.unknown()).describe("condition tree; {} matches every transaction"),
  actions: z.array(z.record(z.string(), z.unknown())),
  trigger: z.string().describe("on_create, on_change or always"),
  category_slug: z.string().describe("the category its set_category action sets; empty when none"),
  category_display_name: z.string(),
  priority: z.number().int().describe("pipeline order: lower runs first"),
  enabled: z.boolean(),
  hit_count: z.number().int().describe("transactions matched at sync time (and by apply_rule)"),
  last_hit_at: z.string().nullable(),
  created_by_type: z.string().describe("user, agent or system"),
  created_by_id: z.string().describe("short id of the creating key; empty for the built-in rule"),
  created_by_name: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
};

const RULE_FIELDS = Object.keys(ruleShape);

/*
 * Rules are rendered from the core's message (mcpRule), so their type is
 * known only at run time: declared loosely for the handlers, checked by the
 * server against the full shape before a result is sent.
 */
export const fullRule: z.ZodType<Record<string, unknown>> = z.object(ruleShape);
/** The summary projection query_transaction_rules returns unless asked for other fields. */
export const SUMMARY_FIELDS = ["name", "enabled", "priority", "trigger", "category", "hit_count", "last_hit_at"];

const page = {
  next_cursor: z.string().describe("pass as cursor for the next page; empty when there are no more"),
  has_more: z.boolean().describe("whether matching rules were left out of this page"),
  total: z.number().int().describe("how many rules match the filters"),
};

export const listTransactionRules = defineTool({
  name: "list_transaction_rules",
  title: "List transaction rules",
  description:
    "Lists the transaction rules (categorize, tag or annotate transactions during sync), in pipeline order " +
    "(priority, lower first). Call it before creating a rule, to avoid duplicates. Filter by the category a rule " +
    "sets, enabled or not, and name search; page with next_cursor until has_more is false.",
  readOnly: true,
  inputSchema: ruleListShape,
  outputSchema: { rules: z.array(fullRule), ...page },
  async handler(core, opts, args) {
    const r = await core.rules.listRules(listRulesRequest(args), opts);
    return { rules: r.rules.map(mcpRule), next_cursor: r.nextCursor, has_more: r.hasMore, total: Number(r.total) };
  },
});

const projectedRule: z.ZodType<Record<string, unknown>> = z
  .object({ ...ruleShape, category: z.string().nullable() })
  .partial();

export const queryTransactionRules = defineTool({
  name: "query_transaction_rules",
  title: "Query transaction rules",
  description:
    "Rules with richer filters (trigger, creator, hit counts, unused rules) and sorting. The default sort, " +
    "priority, is paginated with cursor; sort_by hit_count, last_hit_at, created_at or name returns one page of " +
    `the top \`limit\` (up to 500) with no cursor. Each rule shows the summary fields (${SUMMARY_FIELDS.join(", ")}) ` +
    'unless fields asks for others (e.g. "id,name,conditions" or "all"); ask for id to update or apply a rule.',
  readOnly: true,
  inputSchema: { ...ruleQueryShape, fields: fieldsParam(RULE_FIELDS, SUMMARY_FIELDS) },
  outputSchema: { rules: z.array(projectedRule), ...page },
  async handler(core, opts, args) {
    const r = await core.rules.listRules(listRulesRequest(args), opts);
    return {
      rules: r.rules.map((rule) => projectRule(mcpRule(rule), args.fields, SUMMARY_FIELDS)),
      next_cursor: r.nextCursor,
      has_more: r.hasMore,
      total: Number(r.total),
    };
  },
});

/** A condition tree, described to the agent from the one grammar table. */
export const conditionsArg = z.record(z.string(), z.unknown()).describe(describeGrammar());

/** The preview as REST renders it (toRest): declared loosely for the handler, checked by the server. */
const previewShape: z.ZodRawShape = {
  match_count: z.number().int().describe("all matching transactions"),
  total_scanned: z.number().int().describe("every stored (not deleted) transaction"),
  sample_matches: z.array(
    z.object({
      transaction_id: z.string().describe("short id"),
      date: z.string(),
      amount: z.number().describe("positive = money out"),
      name: z.string(),
      category_primary_raw: z.string().describe("the provider's category; empty when none"),
      current_category_slug: z.string(),
    }),
  ),
};

export const previewRule = defineTool({
  name: "preview_rule",
  title: "Preview a rule's conditions",
  description:
    "Dry run of a condition tree against the stored transactions: how many match (match_count, out of " +
    "total_scanned) and the newest few. Writes nothing and changes no hit count. Each transaction is judged on " +
    "its stored values alone: tags or categories that earlier rules would add during a sync are not visible. " +
    "Call it before saving a rule.",
  readOnly: true,
  inputSchema: {
    conditions: conditionsArg,
    sample_size: z.number().int().min(1).max(50).optional().describe("matches to show, 1-50, default 10"),
  },
  outputSchema: previewShape,
  async handler(core, opts, args) {
    const r = await core.rules.previewRule(
      { conditions: valueOf(args.conditions), sampleSize: args.sample_size ?? 0 },
      opts,
    );
    return toRest(PreviewRuleResponseSchema, r);
  },
});

const coverageRow: z.ZodType<Record<string, unknown>> = z.object({
  short_id: z.string(),
  name: z.string(),
  sets_category: z.string().optional().describe("category slug; left out when the rule sets none"),
  trigger: z.string(),
  priority: z.number().int(),
  enabled: z.boolean(),
  hit_count: z.number().int(),
  match_all: z.boolean().describe("a conditionless rule: matches everything, not counted as coverage"),
});

export const findMatchingRules = defineTool({
  name: "find_matching_rules",
  title: "Find the rules that match",
  description:
    "Which active rules match one transaction (transaction_id: its real values) or one merchant name " +
    "(merchant: only the name fields are known, so rules that also need an amount, a category or tags do not " +
    "match). Give exactly one of the two. Rules come in pipeline order, whatever their trigger. matched_count 0 " +
    "means no rule covers it; conditionless rules are listed with match_all true and not counted.",
  readOnly: true,
  inputSchema: {
    transaction_id: z.string().min(1).optional().describe("transaction short id or UUID"),
    merchant: z.string().min(1).max(500).optional().describe("a merchant name, e.g. Blue Bottle Coffee"),
  },
  outputSchema: {
    matched_count: z.number().int(),
    rules: z.array(coverageRow),
  },
  async handler(core, opts, args) {
    const r = await core.rules.findMatchingRules({ transactionId: args.transaction_id, merchant: args.merchant }, opts);
    return { matched_count: r.matchedCount, rules: r.rules.map(coverageJson) };
  },
});

/** list_transaction_rules, query_transaction_rules, preview_rule, find_matching_rules. */
export const ruleReadTools: ToolDef[] = [listTransactionRules, queryTransactionRules, previewRule, findMatchingRules];
