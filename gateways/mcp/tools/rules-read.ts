import { z } from "zod";
import { PreviewRuleResponseSchema, RuleSchema } from "../../../gen/coffer/v1/rules_pb.js";
import { restShapeOf, toRest } from "../../shared/rest-json.js";
import {
  coverageJson,
  coverageShape,
  fieldsParam,
  listRulesRequest,
  projectRule,
  restRule,
  RULE_FIELDS,
  ruleListShape,
  ruleQueryShape,
  valueOf,
} from "../../shared/rules.js";
import { defineTool, type ToolDef } from "../tool.js";
import { describeGrammar } from "../../../common/rule-grammar.js";

/**
 * A rule as every rule tool returns it: the REST rule (GET /api/v1/rules/{id}), the same presenter, so `id`
 * is the UUID and `short_id` the short id (the rule tools take either).
 */
export const rule = restShapeOf(RuleSchema);

/** What the rule tools' descriptions say about the rule objects they return. */
export const RULE_TEXT =
  "Each rule is its REST object (GET /api/v1/rules/{id}): id (UUID) and short_id (either is accepted as a rule " +
  "id), name, conditions ({} matches every transaction), actions, trigger (on_create, on_change or always), " +
  "category_slug and category_display_name (the category its set_category action sets; empty when none), " +
  "priority (pipeline order: lower runs first), enabled, hit_count (transactions matched at sync time and by " +
  "apply_rule), last_hit_at, created_by_type (user, agent or system), created_by_id (short id of the creating " +
  "key; empty for the built-in rule), created_by_name, created_at, updated_at.";

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
    "sets, enabled or not, and name search; page with next_cursor until has_more is false. " +
    RULE_TEXT,
  readOnly: true,
  inputSchema: ruleListShape,
  outputSchema: { rules: z.array(rule), ...page },
  async handler(core, opts, args) {
    const r = await core.rules.listRules(listRulesRequest(args), opts);
    return { rules: r.rules.map(restRule), next_cursor: r.nextCursor, has_more: r.hasMore, total: Number(r.total) };
  },
});

/** A rule projected to the fields asked for: the REST rule's fields, and `category` (category_slug by another name). */
const projectedRule = rule.partial().extend({ category: z.string().nullable().optional() });

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
      rules: r.rules.map((rule) => projectRule(restRule(rule), args.fields, SUMMARY_FIELDS)),
      next_cursor: r.nextCursor,
      has_more: r.hasMore,
      total: Number(r.total),
    };
  },
});

/** A condition tree, described to the agent from the one grammar table. */
export const conditionsArg = z.record(z.string(), z.unknown()).describe(describeGrammar());

export const previewRule = defineTool({
  name: "preview_rule",
  title: "Preview a rule's conditions",
  description:
    "Dry run of a condition tree against the stored transactions: how many match (match_count, out of " +
    "total_scanned) and the newest few. Writes nothing and changes no hit count. Each transaction is judged on " +
    "its stored values alone: tags or categories that earlier rules would add during a sync are not visible. " +
    "Call it before saving a rule. The answer is POST /api/v1/rules/preview's: sample_matches are " +
    "{transaction_id (short id), date, amount (positive = money out), name, category_primary_raw (the provider's " +
    "category; empty when none), current_category_slug}.",
  readOnly: true,
  inputSchema: {
    conditions: conditionsArg,
    sample_size: z.number().int().min(1).max(50).optional().describe("matches to show, 1-50, default 10"),
  },
  outputSchema: restShapeOf(PreviewRuleResponseSchema).shape,
  async handler(core, opts, args) {
    const r = await core.rules.previewRule(
      { conditions: valueOf(args.conditions), sampleSize: args.sample_size ?? 0 },
      opts,
    );
    return toRest(PreviewRuleResponseSchema, r);
  },
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
    rules: z.array(coverageShape),
  },
  async handler(core, opts, args) {
    const r = await core.rules.findMatchingRules({ transactionId: args.transaction_id, merchant: args.merchant }, opts);
    return { matched_count: r.matchedCount, rules: r.rules.map(coverageJson) };
  },
});

/** list_transaction_rules, query_transaction_rules, preview_rule, find_matching_rules. */
export const ruleReadTools: ToolDef[] = [listTransactionRules, queryTransactionRules, previewRule, findMatchingRules];
