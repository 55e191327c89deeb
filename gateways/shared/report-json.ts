import { z } from "zod";
import { ReportSchema, type Report } from "../../gen/coffer/v1/reports_pb.js";
import { restShapeOf, toRest } from "./rest-json.js";

/** A report in a list: its body only when it was asked for (a list of 1,000 bodies is megabytes). */
export const listedReport = restShapeOf(ReportSchema)
  .omit({ body: true })
  .extend({ body: z.string().optional().describe("Markdown; only when asked for") })
  .meta({ id: "ListedReport" });

/** A report as both gateways show it (REST and the MCP report tools), with its body or without. */
export function reportJson(r: Report, withBody: boolean) {
  const { body, ...light } = toRest(ReportSchema, r);
  return withBody ? { ...light, body } : light;
}
