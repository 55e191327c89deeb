import { TRIGGER_INPUTS } from "../../shared/rules.js";
import { z } from "zod";
import { date } from "../../shared/params.js";
import { restRule, valueOf } from "../../shared/rules.js";
import { defineTool, type ToolDef } from "../tool.js";
import { conditionsArg, rule, RULE_TEXT } from "./rules-read.js";

const id = z.string().min(1).describe("rule id: the UUID or the short id (8 characters)");

const actions = z
  .array(z.record(z.string(), z.unknown()))
  .min(1)
  .max(20)
  .describe(
    "what the rule does, in order: {type: set_category, category_slug}, {type: add_tag | remove_tag, tag_slug}, " +
      "{type: add_comment, content}, {type: set_metadata, key, value}, {type: remove_metadata, key}, " +
      "{type: assign_counterparty, counterparty_id}, {type: assign_series, series_id | series_name, " +
      "create_if_missing?}, {type: flag, reason?}. " +
      "Categories and tags must exist (list_categories, list_tags).",
  );

const trigger = z
  .enum(TRIGGER_INPUTS)
  .describe("on_create: new transactions; on_change (or on_update): changed provider data; always: both");
const priority = z.number().int().describe("pipeline order, lower first (default 100; the built-in rule is 0)");

export const createTransactionRule = defineTool({
  name: "create_transaction_rule",
  title: "Create a transaction rule",
  description:
    "Creates a rule that runs during sync on new and/or changed transactions. First call list_transaction_rules " +
    "(or find_matching_rules with the merchant) so you do not create a duplicate, and call preview_rule with " +
    "the conditions before saving to check what they match. A category a person or an agent chose is never " +
    "overwritten by a rule. Returns the new rule as POST /api/v1/rules does. Needs a full_access key. " +
    RULE_TEXT,
  readOnly: false,
  inputSchema: {
    name: z.string().min(1).max(200),
    conditions: conditionsArg,
    actions,
    trigger: trigger.optional().describe("default always"),
    priority: priority.optional(),
    enabled: z.boolean().optional().describe("default true"),
  },
  outputSchema: { rule },
  async handler(core, opts, args) {
    const r = await core.rules.createRule(
      {
        name: args.name,
        conditions: valueOf(args.conditions),
        actions: valueOf(args.actions),
        trigger: args.trigger,
        priority: args.priority,
        enabled: args.enabled,
      },
      opts,
    );
    return { rule: restRule(r.rule!) };
  },
});

export const updateTransactionRule = defineTool({
  name: "update_transaction_rule",
  title: "Update a transaction rule",
  description:
    "Changes the fields given (name, conditions, actions, trigger, priority, enabled); the others stay. Call " +
    "preview_rule with new conditions before saving them. Returns the rule as PATCH /api/v1/rules/{id} does. " +
    "Needs a full_access key.",
  readOnly: false,
  inputSchema: {
    id,
    name: z.string().min(1).max(200).optional(),
    conditions: conditionsArg.optional(),
    actions: actions.optional(),
    trigger: trigger.optional(),
    priority: priority.optional(),
    enabled: z.boolean().optional(),
  },
  outputSchema: { rule },
  async handler(core, opts, args) {
    const r = await core.rules.updateRule(
      {
        id: args.id,
        name: args.name,
        conditions: valueOf(args.conditions),
        actions: valueOf(args.actions),
        trigger: args.trigger,
        priority: args.priority,
        enabled: args.enabled,
      },
      opts,
    );
    return { rule: restRule(r.rule!) };
  },
});

export const deleteTransactionRule = defineTool({
  name: "delete_transaction_rule",
  title: "Delete a transaction rule",
  description:
    "Deletes a rule. What it already changed on transactions stays. To stop it for a while instead, " +
    "update_transaction_rule with enabled false. Answers the deleted rule's id (UUID) and short_id, whichever " +
    "form was given. Needs a full_access key.",
  readOnly: false,
  inputSchema: { id },
  outputSchema: { deleted: z.literal(true), id: z.string(), short_id: z.string() },
  async handler(core, opts, args) {
    // Read first so the answer names the rule in both forms, whichever the caller gave.
    const { id, shortId } = (await core.rules.getRule({ id: args.id }, opts)).rule!;
    await core.rules.deleteRule({ id }, opts);
    return { deleted: true as const, id, short_id: shortId };
  },
});

export const applyRule = defineTool({
  name: "apply_rule",
  title: "Apply a rule to stored transactions",
  description:
    "Runs one rule (whatever its trigger, enabled or not) on the transactions already stored, optionally " +
    "only those dated in [start_date, end_date). Returns how many it matched and changed. Run preview_rule " +
    "first. Needs a full_access key.",
  readOnly: false,
  inputSchema: {
    id,
    start_date: date.optional().describe("YYYY-MM-DD, inclusive"),
    end_date: date.optional().describe("YYYY-MM-DD, exclusive"),
  },
  outputSchema: {
    matched: z.number().int().describe("transactions the rule matched"),
    changed: z.number().int().describe("transactions it changed"),
  },
  async handler(core, opts, args) {
    const r = await core.rules.applyRule({ id: args.id, startDate: args.start_date, endDate: args.end_date }, opts);
    return { matched: Number(r.matched), changed: Number(r.changed) };
  },
});

/** create_transaction_rule, update_transaction_rule, delete_transaction_rule, apply_rule. */
export const ruleWriteTools: ToolDef[] = [
  createTransactionRule,
  updateTransactionRule,
  deleteTransactionRule,
  applyRule,
];
