import type { JsonObject, MessageInitShape } from "@bufbuild/protobuf";
import type { ConnectRouter, HandlerContext } from "@connectrpc/connect";
import {
  RuleService,
  type PreviewSampleSchema,
  type RuleCoverageSchema,
  type RuleSchema,
} from "../../gen/coffer/v1/rules_pb.js";
import { emOf, requirePrincipal } from "../context.js";
import type { CoreDeps } from "../deps.js";
import { actorOf } from "../ledger/actor.js";
import { jsonOf, orUndef, tsFromIso } from "../shared/proto.js";
import { applyAllRules, applyRule } from "./apply.js";
import { findMatchingRules, type RuleCoverage } from "./find-matching.js";
import { listRules } from "./list.js";
import { previewRule, type PreviewSample } from "./preview.js";
import { createRule, deleteRule, loadRule, resolveRuleId, setRuleEnabled, updateRule, type RuleView } from "./rules.js";

export const ruleToProto = (r: RuleView): MessageInitShape<typeof RuleSchema> => ({
  id: r.id,
  shortId: r.shortId,
  name: r.name,
  conditions: r.conditions as JsonObject,
  actions: r.actions as JsonObject[],
  trigger: r.trigger,
  categorySlug: r.categorySlug ?? "",
  categoryDisplayName: r.categoryDisplayName ?? "",
  priority: r.priority,
  enabled: r.enabled,
  hitCount: BigInt(r.hitCount),
  lastHitAt: r.lastHitAt ? tsFromIso(r.lastHitAt) : undefined,
  createdByType: r.createdByType,
  createdById: r.createdById ?? "",
  createdByName: r.createdByName,
  createdAt: tsFromIso(r.createdAt),
  updatedAt: tsFromIso(r.updatedAt),
});

const sampleToProto = (s: PreviewSample): MessageInitShape<typeof PreviewSampleSchema> => ({
  transactionId: s.shortId,
  date: s.date,
  amount: s.amount,
  name: s.name,
  categoryPrimaryRaw: s.providerCategoryPrimary ?? "",
  currentCategorySlug: s.categorySlug,
});

const coverageToProto = (c: RuleCoverage): MessageInitShape<typeof RuleCoverageSchema> => ({
  shortId: c.shortId,
  name: c.name,
  setsCategory: orUndef(c.setsCategory),
  trigger: c.trigger,
  priority: c.priority,
  enabled: c.enabled,
  hitCount: BigInt(c.hitCount),
  matchAll: c.matchAll,
});

const actor = (ctx: HandlerContext) => actorOf(requirePrincipal(ctx));

/** RuleService: rules, their dry runs and coverage, and retroactive apply (docs/rules.md). */
export function ruleRoutes(router: ConnectRouter, deps: CoreDeps) {
  router.service(RuleService, {
    async listRules(req, ctx) {
      const page = await listRules(
        emOf(ctx),
        { ...req, minHitCount: req.minHitCount === undefined ? undefined : Number(req.minHitCount) },
        deps.cursorKeys,
      );
      return {
        rules: page.rules.map(ruleToProto),
        nextCursor: page.nextCursor,
        hasMore: page.hasMore,
        total: BigInt(page.total),
      };
    },
    async getRule(req, ctx) {
      const em = emOf(ctx);
      return { rule: ruleToProto(await loadRule(em, await resolveRuleId(em, req.id))) };
    },
    async previewRule(req, ctx) {
      const r = await previewRule(
        emOf(ctx),
        { conditions: jsonOf(req.conditions, "conditions"), sampleSize: req.sampleSize },
        { timeoutMs: deps.config.rulePreviewTimeoutMs },
      );
      return {
        matchCount: BigInt(r.matchCount),
        totalScanned: BigInt(r.totalScanned),
        sampleMatches: r.samples.map(sampleToProto),
      };
    },
    async findMatchingRules(req, ctx) {
      const r = await findMatchingRules(emOf(ctx), req);
      return { matchedCount: r.matchedCount, rules: r.rules.map(coverageToProto) };
    },
    async createRule(req, ctx) {
      const em = emOf(ctx);
      const id = await createRule(em, actor(ctx), {
        name: req.name,
        conditions: jsonOf(req.conditions, "conditions"),
        actions: jsonOf(req.actions, "actions"),
        trigger: req.trigger,
        priority: req.priority,
        enabled: req.enabled,
      });
      return { rule: ruleToProto(await loadRule(em, id)) };
    },
    async updateRule(req, ctx) {
      const em = emOf(ctx);
      const id = await updateRule(em, actor(ctx), req.id, {
        name: req.name,
        conditions: jsonOf(req.conditions, "conditions"),
        actions: jsonOf(req.actions, "actions"),
        trigger: req.trigger,
        priority: req.priority,
        enabled: req.enabled,
      });
      return { rule: ruleToProto(await loadRule(em, id)) };
    },
    async deleteRule(req, ctx) {
      await deleteRule(emOf(ctx), actor(ctx), req.id);
      return {};
    },
    async enableRule(req, ctx) {
      const em = emOf(ctx);
      return { rule: ruleToProto(await loadRule(em, await setRuleEnabled(em, actor(ctx), req.id, true))) };
    },
    async disableRule(req, ctx) {
      const em = emOf(ctx);
      return { rule: ruleToProto(await loadRule(em, await setRuleEnabled(em, actor(ctx), req.id, false))) };
    },
    async applyRule(req, ctx) {
      const r = await applyRule(emOf(ctx), actor(ctx), req.id, req);
      return { matched: BigInt(r.matched), changed: BigInt(r.changed) };
    },
    async applyAllRules(req, ctx) {
      const r = await applyAllRules(emOf(ctx), actor(ctx), req);
      return { matched: BigInt(r.matched), changed: BigInt(r.changed) };
    },
  });
}
