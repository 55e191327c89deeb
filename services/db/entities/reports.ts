import { defineEntity, type InferEntity } from "@mikro-orm/core";
import { randomUUID } from "node:crypto";
import { nowOf } from "../../clock.js";

import { REPORT_PRIORITIES } from "../../../common/enums.js";
export { REPORT_PRIORITIES };
export type ReportPriority = (typeof REPORT_PRIORITIES)[number];

/** A report (migration 0005). Its transactions are rows of report_transactions, read with SQL. */
export const ReportEntity = defineEntity({
  name: "Report",
  tableName: "reports",
  properties: (p) => ({
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    shortId: p.string().length(8).unique(),
    title: p.text(),
    body: p.text(),
    priority: p.text().$type<ReportPriority>(),
    tags: p.array().columnType("text[]"),
    author: p.text().nullable(),
    createdByType: p.text().$type<"user" | "agent" | "system">(),
    createdById: p.text().nullable(),
    createdByName: p.text(),
    readAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate((_, em) => nowOf(em)),
  }),
});
export type Report = InferEntity<typeof ReportEntity>;
