import { z } from "zod";
import { ReportSchema } from "../../../gen/coffer/v1/reports_pb.js";
import { reportFilterShape } from "../../shared/report-filter.js";
import { listedReport, reportJson } from "../../shared/report-json.js";
import { restShapeOf, toRest } from "../../shared/rest-json.js";
import { defineRoute, type RestRoute } from "../route.js";

// The body's fields are only typed here: the core judges lengths, priority, slugs and ids (VALIDATION_ERROR).

/** Reports: {id} is a UUID or short id. */
export const reportRoutes: RestRoute[] = [
  defineRoute({
    method: "GET",
    url: "/api/v1/reports",
    response: z.object({ reports: z.array(listedReport), truncated: z.boolean() }),
    query: {
      ...reportFilterShape,
      fields: z.enum(["body"]).optional().describe("body: include each report's Markdown body"),
    },
    async handler({ core, opts, query }) {
      const { fields, ...filter } = query;
      const includeBody = fields === "body";
      const r = await core.reports.listReports({ ...filter, includeBody }, opts);
      return {
        reports: r.reports.map((m) => reportJson(m, includeBody)),
        truncated: r.truncated,
      };
    },
  }),
  defineRoute({
    method: "GET",
    url: "/api/v1/reports/unread-count",
    response: z.object({ count: z.number().int() }),
    query: {},
    async handler({ core, opts }) {
      return { count: Number((await core.reports.countUnreadReports({}, opts)).count) };
    },
  }),
  defineRoute({
    method: "POST",
    url: "/api/v1/reports",
    response: restShapeOf(ReportSchema),
    status: 201,
    body: {
      title: z.string(),
      body: z.string(),
      priority: z.string().nullable().optional(),
      tags: z.array(z.string()).optional(),
      author: z.string().nullable().optional(),
      transaction_ids: z.array(z.string()).optional(),
    },
    async handler({ core, opts, body }) {
      const r = await core.reports.createReport(
        {
          title: body.title,
          body: body.body,
          priority: body.priority ?? undefined,
          tags: body.tags,
          author: body.author ?? undefined,
          transactionIds: body.transaction_ids,
        },
        opts,
      );
      return toRest(ReportSchema, r.report!);
    },
  }),
  defineRoute({
    method: "POST",
    url: "/api/v1/reports/read-all",
    response: z.object({ updated: z.number().int() }),
    async handler({ core, opts }) {
      return { updated: Number((await core.reports.markAllReportsRead({}, opts)).updated) };
    },
  }),
  defineRoute({
    method: "GET",
    url: "/api/v1/reports/:id",
    response: restShapeOf(ReportSchema),
    async handler({ core, opts, params }) {
      return toRest(ReportSchema, (await core.reports.getReport({ id: params.id }, opts)).report!);
    },
  }),
  defineRoute({
    method: "PATCH",
    url: "/api/v1/reports/:id/read",
    response: restShapeOf(ReportSchema),
    async handler({ core, opts, params }) {
      return toRest(ReportSchema, (await core.reports.markReportRead({ id: params.id }, opts)).report!);
    },
  }),
  defineRoute({
    method: "PATCH",
    url: "/api/v1/reports/:id/unread",
    response: restShapeOf(ReportSchema),
    async handler({ core, opts, params }) {
      return toRest(ReportSchema, (await core.reports.markReportUnread({ id: params.id }, opts)).report!);
    },
  }),
  defineRoute({
    method: "DELETE",
    url: "/api/v1/reports/:id",
    status: 204,
    async handler({ core, opts, params }) {
      await core.reports.deleteReport({ id: params.id }, opts);
    },
  }),
];
