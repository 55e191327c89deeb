import type { MessageInitShape } from "@bufbuild/protobuf";
import type { ConnectRouter, HandlerContext } from "@connectrpc/connect";
import {
  SeriesService,
  type SeriesProposalSchema,
  type SeriesSchema,
  type UpcomingChargeSchema,
} from "../../gen/coffer/v1/series_pb.js";
import { emOf, requirePrincipal } from "../context.js";
import type { Em } from "../db/orm.js";
import { transactionShortIds } from "../db/tables/transactions.js";
import { actorOf } from "../ledger/actor.js";
import { orUndef, tsFromIso } from "../shared/proto.js";
import { assignSeries } from "./assign.js";
import {
  DEFAULT_APPLY_MIN_CONFIDENCE,
  applySeriesDetection,
  detectProposals,
  parseMinConfidence,
  rejectSeriesProposal,
  todayUtc,
  type ProposalView,
} from "./detection.js";
import { formatCents } from "../../common/money.js";
import {
  createSeries,
  deleteSeries,
  listSeries,
  loadSeries,
  resolveSeriesId,
  updateSeries,
  updateSeriesTransactions,
} from "./series.js";
import { listUpcomingCharges, type UpcomingCharge } from "./upcoming.js";
import { loadSeriesMany, type SeriesView } from "./view.js";
import { nowOf } from "../clock.js";

export const seriesToProto = (s: SeriesView): MessageInitShape<typeof SeriesSchema> => ({
  id: s.id,
  shortId: s.shortId,
  name: s.name,
  type: s.type,
  cadence: s.cadence,
  expectedAmount: s.expectedAmount,
  amountTolerance: s.amountTolerance,
  isoCurrencyCode: s.isoCurrencyCode,
  counterpartyId: orUndef(s.counterpartyId),
  counterpartyName: orUndef(s.counterpartyName),
  status: s.status,
  lastSeenDate: orUndef(s.lastSeenDate),
  nextExpectedDate: orUndef(s.nextExpectedDate),
  source: s.source,
  // A score, not money: a double is what clients compare it with.
  confidence: s.confidence === null ? undefined : Number(s.confidence),
  reason: orUndef(s.reason),
  transactionCount: BigInt(s.transactionCount),
  createdByType: s.createdByType,
  createdById: orUndef(s.createdById),
  createdByName: s.createdByName,
  createdAt: tsFromIso(s.createdAt),
  updatedAt: tsFromIso(s.updatedAt),
});

const proposalToProto = (v: ProposalView): MessageInitShape<typeof SeriesProposalSchema> => {
  const p = v.proposal;
  return {
    fingerprint: p.fingerprint,
    name: p.name,
    type: p.type,
    cadence: p.cadence,
    expectedAmount: formatCents(p.expectedCents),
    amountTolerance: formatCents(p.toleranceCents),
    isoCurrencyCode: p.currency,
    counterpartyId: orUndef(v.counterpartyShortId),
    counterpartyName: orUndef(p.counterpartyName),
    status: p.status,
    firstDate: p.firstDate,
    lastSeenDate: p.lastDate,
    nextExpectedDate: orUndef(p.nextExpectedDate),
    confidence: p.confidence,
    reason: p.reason,
    transactionIds: v.transactionShortIds,
    seriesId: v.series?.shortId,
    seriesName: v.series?.name,
    unlinkedCount: BigInt(v.unlinkedIds.length),
  };
};

const upcomingToProto = (c: UpcomingCharge): MessageInitShape<typeof UpcomingChargeSchema> => ({ ...c });

async function shortIdsOf(em: Em, ids: string[]): Promise<string[]> {
  const byId = await transactionShortIds(em, ids);
  return ids.map((id) => byId.get(id)!);
}

const actor = (ctx: HandlerContext) => actorOf(requirePrincipal(ctx));

/** SeriesService: series records, their transactions, detection and upcoming charges. */
export function seriesRoutes(router: ConnectRouter) {
  router.service(SeriesService, {
    async listSeries(req, ctx) {
      return { series: (await listSeries(emOf(ctx), req)).map(seriesToProto) };
    },
    async getSeries(req, ctx) {
      const em = emOf(ctx);
      return { series: seriesToProto(await loadSeries(em, await resolveSeriesId(em, req.id))) };
    },
    async createSeries(req, ctx) {
      const em = emOf(ctx);
      return { series: seriesToProto(await loadSeries(em, await createSeries(em, actor(ctx), req))) };
    },
    async updateSeries(req, ctx) {
      const em = emOf(ctx);
      return { series: seriesToProto(await loadSeries(em, await updateSeries(em, actor(ctx), req))) };
    },
    async deleteSeries(req, ctx) {
      await deleteSeries(emOf(ctx), actor(ctx), req.id);
      return {};
    },
    async updateSeriesTransactions(req, ctx) {
      const em = emOf(ctx);
      const r = await updateSeriesTransactions(em, actor(ctx), req);
      return {
        series: seriesToProto(await loadSeries(em, r.id)),
        added: BigInt(r.added),
        removed: BigInt(r.removed),
      };
    },
    async assignSeries(req, ctx) {
      const em = emOf(ctx);
      const r = await assignSeries(em, actor(ctx), req);
      return {
        series: r.seriesId === null ? undefined : seriesToProto(await loadSeries(em, r.seriesId)),
        created: r.created,
        assigned: await shortIdsOf(em, r.assigned),
        skipped: await shortIdsOf(em, r.skipped),
      };
    },
    async listUpcomingCharges(req, ctx) {
      const u = await listUpcomingCharges(emOf(ctx), { days: req.days, today: todayUtc(nowOf(emOf(ctx))) });
      return { from: u.from, to: u.to, charges: u.charges.map(upcomingToProto), totals: u.totals };
    },
    async detectSeries(req, ctx) {
      const minConfidence = parseMinConfidence(req.minConfidence, 0);
      const views = await detectProposals(emOf(ctx), { minConfidence, today: todayUtc(nowOf(emOf(ctx))) });
      return { proposals: views.map(proposalToProto) };
    },
    async applySeriesDetection(req, ctx) {
      const em = emOf(ctx);
      const minConfidence = parseMinConfidence(req.minConfidence, DEFAULT_APPLY_MIN_CONFIDENCE);
      const r = await applySeriesDetection(em, actor(ctx), { minConfidence, trigger: "api" });
      return {
        created: (await loadSeriesMany(em, r.created)).map(seriesToProto),
        extended: (await loadSeriesMany(em, r.extended)).map(seriesToProto),
        transactionsLinked: BigInt(r.linked),
      };
    },
    async rejectSeriesProposal(req, ctx) {
      await rejectSeriesProposal(emOf(ctx), actor(ctx), req.fingerprint);
      return {};
    },
  });
}
