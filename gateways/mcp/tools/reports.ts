import { REPORT_PRIORITIES } from "../../../common/enums.js";
import type { Report } from "../../../gen/coffer/v1/reports_pb.js";
import { z } from "zod";
import { reportFilterShape } from "../../shared/report-filter.js";
import { listedReport, reportJson } from "../../shared/report-json.js";
import { defineTool, type ToolDef } from "../tool.js";

/** A report as REST shows it (the same presenter); the body only when it was asked for. */
const report = listedReport;
const present = (r: Report, withBody: boolean) => reportJson(r, withBody) as z.input<typeof report>;

export const submitReport = defineTool({
  name: "submit_report",
  title: "Submit a report",
  description:
    "Leaves a report for the household to read later: findings a person should see when they next look, " +
    "such as a weekly spending review, an unusual charge, or a subscription whose price went up. " +
    "Do not use it to answer the person you are talking with; reply in the conversation instead. " +
    "title: 1-200 characters, one line. body: Markdown, 1-50,000 characters. priority: info (default), " +
    "warning (worth a look soon) or critical (needs action). tags: up to 10 slugs of your choosing. " +
    "transaction_ids: up to 100 transactions the report is about (short ids or UUIDs). " +
    "The report is signed with this key's name. Returns the report as GET /api/v1/reports lists it (id = UUID, " +
    "short_id beside it). Needs a full_access key.",
  readOnly: false,
  // The core judges lengths, slugs and ids (VALIDATION_ERROR naming the field).
  inputSchema: {
    title: z.string().describe("one line, 1-200 characters"),
    body: z.string().describe("Markdown, 1-50,000 characters"),
    priority: z.enum(REPORT_PRIORITIES).optional().describe("default info"),
    tags: z.array(z.string()).optional().describe("up to 10 slugs (a-z, 0-9, _), e.g. weekly_review"),
    author: z.string().optional().describe("your own name, if you want it shown beside the key's"),
    transaction_ids: z.array(z.string()).optional().describe("up to 100 transaction ids the report refers to"),
  },
  outputSchema: { report },
  async handler(core, opts, args) {
    const r = await core.reports.createReport(
      {
        title: args.title,
        body: args.body,
        priority: args.priority,
        tags: args.tags ?? [],
        author: args.author,
        transactionIds: args.transaction_ids ?? [],
      },
      opts,
    );
    return { report: present(r.report!, false) };
  },
});

export const listReports = defineTool({
  name: "list_reports",
  title: "List reports",
  description:
    "Reports left for the household, newest first, without their bodies unless include_body is true " +
    "(get_report reads one in full). At most 1,000 are listed; truncated is true when more matched. " +
    "Look here before submitting a report, so as not to repeat a finding.",
  readOnly: true,
  inputSchema: {
    ...reportFilterShape,
    include_body: z.boolean().optional().describe("also return each report's Markdown body"),
  },
  outputSchema: { reports: z.array(report), truncated: z.boolean() },
  async handler(core, opts, args) {
    const includeBody = args.include_body ?? false;
    const { include_body: _, ...filter } = args;
    const r = await core.reports.listReports({ ...filter, includeBody }, opts);
    return { reports: r.reports.map((m) => present(m, includeBody)), truncated: r.truncated };
  },
});

export const getReport = defineTool({
  name: "get_report",
  title: "Get a report",
  description:
    "One report in full, as GET /api/v1/reports/{id} shows it: its Markdown body, and the transactions it refers " +
    "to (deleted: true for one deleted since).",
  readOnly: true,
  inputSchema: { id: z.string().min(1).describe("report id: the short id (8 characters) or the UUID") },
  outputSchema: { report },
  async handler(core, opts, args) {
    return { report: present((await core.reports.getReport({ id: args.id }, opts)).report!, true) };
  },
});

/** submit_report, list_reports, get_report. */
export const reportTools: ToolDef[] = [submitReport, listReports, getReport];
