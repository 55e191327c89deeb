import { z } from "zod";
import { PreviewRuleResponseSchema, RuleSchema } from "../../../gen/coffer/v1/rules_pb.js";
import { date, ref } from "../../shared/params.js";
import { restShapeOf, toRest } from "../../shared/rest-json.js";
import {
  coverageJson,
  coverageShape,
  fieldsParam,
  listRulesRequest,
  projectRule,
  restRule,
  ruleQueryShape,
  valueOf,
} from "../../shared/rules.js";
import { defineRoute, type RestRoute } from "../route.js";

// Conditions and actions pass through as any JSON: the core judges them and names the bad node
// (400 VALIDATION_ERROR "and[1].or[0]: …"), including a tree that is not an object at all.

/** Every field of a rule as REST shows it. */
const REST_FIELDS = [
  "id",
  "short_id",
  "name",
  "conditions",
  "actions",
  "trigger",
  "category_slug",
  "category_display_name",
  "priority",
  "enabled",
  "hit_count",
  "last_hit_at",
  "created_by_type",
  "created_by_id",
  "created_by_name",
  "created_at",
  "updated_at",
] as const;

const ruleBody = {
  name: z.string().max(1000),
  // Optional here so that the core, not the schema, answers a missing one (VALIDATION_ERROR).
  conditions: z.unknown().optional(),
  actions: z.unknown().optional(),
  trigger: z.string().max(64),
  priority: z.number().int(),
  enabled: z.boolean(),
};

/** A create or update body as the core's request fields (an update leaves out what it does not change). */
const ruleFields = (body: {
  name?: string;
  conditions?: unknown;
  actions?: unknown;
  trigger?: string;
  priority?: number;
  enabled?: boolean;
}) => ({
  name: body.name,
  conditions: valueOf(body.conditions),
  actions: valueOf(body.actions),
  trigger: body.trigger,
  priority: body.priority,
  enabled: body.enabled,
});

const rangeBody = {
  start_date: date.optional().describe("YYYY-MM-DD, inclusive"),
  end_date: date.optional().describe("YYYY-MM-DD, exclusive"),
};

const rule = restShapeOf(RuleSchema);
const applied = z.object({ matched: z.number().int(), changed: z.number().int() });

/** Rules: {id} is a UUID or short id (docs/rules.md). */
export const ruleRoutes: RestRoute[] = [
  defineRoute({
    method: "GET",
    url: "/api/v1/rules",
    response: z.object({
      // `fields` projects each rule to the fields asked for (`category` is category_slug by another name).
      rules: z.array(rule.partial().extend({ category: z.string().nullable().optional() })),
      next_cursor: z.string(),
      has_more: z.boolean(),
      total: z.number().int(),
    }),
    query: { ...ruleQueryShape, fields: fieldsParam(REST_FIELDS, "all") },
    async handler({ core, opts, query }) {
      const r = await core.rules.listRules(listRulesRequest(query), opts);
      return {
        rules: r.rules.map((rule) => projectRule(restRule(rule), query.fields, "all")),
        next_cursor: r.nextCursor,
        has_more: r.hasMore,
        total: Number(r.total),
      };
    },
  }),
  defineRoute({
    method: "POST",
    url: "/api/v1/rules",
    response: rule,
    status: 201,
    body: {
      ...ruleBody,
      trigger: ruleBody.trigger.optional(),
      priority: ruleBody.priority.optional(),
      enabled: ruleBody.enabled.optional(),
    },
    async handler({ core, opts, body }) {
      const r = await core.rules.createRule(ruleFields(body), opts);
      return restRule(r.rule!);
    },
  }),
  defineRoute({
    method: "POST",
    url: "/api/v1/rules/preview",
    response: restShapeOf(PreviewRuleResponseSchema),
    body: { conditions: z.unknown().optional(), sample_size: z.number().int().min(1).max(50).optional() },
    async handler({ core, opts, body }) {
      const r = await core.rules.previewRule(
        { conditions: valueOf(body.conditions), sampleSize: body.sample_size ?? 0 },
        opts,
      );
      return toRest(PreviewRuleResponseSchema, r);
    },
  }),
  defineRoute({
    method: "GET",
    url: "/api/v1/rules/find-matching",
    response: z.object({
      matched_count: z.number().int(),
      rules: z.array(coverageShape),
    }),
    query: { transaction_id: ref.optional(), merchant: z.string().max(500).optional() },
    async handler({ core, opts, query }) {
      const r = await core.rules.findMatchingRules(
        { transactionId: query.transaction_id, merchant: query.merchant },
        opts,
      );
      return { matched_count: r.matchedCount, rules: r.rules.map(coverageJson) };
    },
  }),
  defineRoute({
    method: "POST",
    url: "/api/v1/rules/apply-all",
    response: applied,
    bodyOptional: true,
    body: rangeBody,
    async handler({ core, opts, body }) {
      const r = await core.rules.applyAllRules({ startDate: body.start_date, endDate: body.end_date }, opts);
      return { matched: Number(r.matched), changed: Number(r.changed) };
    },
  }),
  defineRoute({
    method: "GET",
    url: "/api/v1/rules/:id",
    response: rule,
    async handler({ core, opts, params }) {
      return restRule((await core.rules.getRule({ id: params.id }, opts)).rule!);
    },
  }),
  defineRoute({
    method: "PATCH",
    url: "/api/v1/rules/:id",
    response: rule,
    body: {
      name: ruleBody.name.optional(),
      conditions: ruleBody.conditions,
      actions: ruleBody.actions,
      trigger: ruleBody.trigger.optional(),
      priority: ruleBody.priority.optional(),
      enabled: ruleBody.enabled.optional(),
    },
    async handler({ core, opts, params, body }) {
      const r = await core.rules.updateRule({ id: params.id, ...ruleFields(body) }, opts);
      return restRule(r.rule!);
    },
  }),
  defineRoute({
    method: "DELETE",
    url: "/api/v1/rules/:id",
    status: 204,
    async handler({ core, opts, params }) {
      await core.rules.deleteRule({ id: params.id }, opts);
    },
  }),
  defineRoute({
    method: "POST",
    url: "/api/v1/rules/:id/enable",
    response: rule,
    async handler({ core, opts, params }) {
      return restRule((await core.rules.enableRule({ id: params.id }, opts)).rule!);
    },
  }),
  defineRoute({
    method: "POST",
    url: "/api/v1/rules/:id/disable",
    response: rule,
    async handler({ core, opts, params }) {
      return restRule((await core.rules.disableRule({ id: params.id }, opts)).rule!);
    },
  }),
  defineRoute({
    method: "POST",
    url: "/api/v1/rules/:id/apply",
    response: applied,
    bodyOptional: true,
    body: rangeBody,
    async handler({ core, opts, params, body }) {
      const r = await core.rules.applyRule({ id: params.id, startDate: body.start_date, endDate: body.end_date }, opts);
      return { matched: Number(r.matched), changed: Number(r.changed) };
    },
  }),
];
