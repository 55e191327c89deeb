import type { MessageInitShape } from "@bufbuild/protobuf";
import type { ConnectRouter } from "@connectrpc/connect";
import { ReportService, type ReportSchema } from "../../gen/coffer/v1/reports_pb.js";
import { emOf, requirePrincipal } from "../context.js";
import { actorOf } from "../ledger/actor.js";
import { orUndef, tsFromIso } from "../shared/proto.js";
import {
  countUnreadReports,
  createReport,
  deleteReport,
  getReport,
  listReports,
  markAllReportsRead,
  markReport,
  type ReportView,
} from "./reports.js";

const reportToProto = (r: ReportView): MessageInitShape<typeof ReportSchema> => ({
  id: r.id,
  shortId: r.shortId,
  title: r.title,
  body: r.body ?? "",
  priority: r.priority,
  tags: r.tags,
  author: orUndef(r.author),
  createdByType: r.createdByType,
  createdById: orUndef(r.createdById),
  createdByName: r.createdByName,
  transactions: r.transactions,
  readAt: r.readAt ? tsFromIso(r.readAt) : undefined,
  createdAt: tsFromIso(r.createdAt),
});

/** ReportService: reads need read_only, the rest full_access (declared in reports.proto). */
export function reportRoutes(router: ConnectRouter) {
  router.service(ReportService, {
    async listReports(req, ctx) {
      const { reports, truncated } = await listReports(emOf(ctx), req, { includeBody: req.includeBody });
      return { reports: reports.map(reportToProto), truncated };
    },
    async countUnreadReports(_req, ctx) {
      return { count: BigInt(await countUnreadReports(emOf(ctx))) };
    },
    async getReport(req, ctx) {
      return { report: reportToProto(await getReport(emOf(ctx), req.id)) };
    },
    async createReport(req, ctx) {
      return { report: reportToProto(await createReport(emOf(ctx), actorOf(requirePrincipal(ctx)), req)) };
    },
    async markReportRead(req, ctx) {
      return { report: reportToProto(await markReport(emOf(ctx), req.id, true)) };
    },
    async markReportUnread(req, ctx) {
      return { report: reportToProto(await markReport(emOf(ctx), req.id, false)) };
    },
    async markAllReportsRead(_req, ctx) {
      return { updated: BigInt(await markAllReportsRead(emOf(ctx))) };
    },
    async deleteReport(req, ctx) {
      await deleteReport(emOf(ctx), actorOf(requirePrincipal(ctx)), req.id);
      return {};
    },
  });
}
