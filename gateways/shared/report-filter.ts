import { REPORT_PRIORITIES } from "../../common/enums.js";
import { z } from "zod";
import { INSTANT } from "../../common/validation.js";
import { slug } from "./params.js";

/**
 * The report list filters, defined once for GET /reports (query parameters)
 * and list_reports (tool arguments). The core repeats every check.
 */
export const reportFilterShape = {
  unread: z.boolean().optional().describe("true: unread reports only; false: read ones only; omitted: both"),
  priority: z.enum(REPORT_PRIORITIES).optional(),
  tag: slug.optional().describe("reports carrying this tag slug"),
  since: z
    .string()
    .regex(INSTANT, "must be a date (YYYY-MM-DD) or an ISO 8601 date-time with a zone")
    .optional()
    .describe("reports created at or after: YYYY-MM-DD (midnight UTC) or e.g. 2026-05-01T08:00:00Z"),
};
