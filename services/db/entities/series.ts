import { defineEntity, type InferEntity } from "@mikro-orm/core";
import { randomUUID } from "node:crypto";
import { nowOf } from "../../clock.js";
import { SERIES_CADENCES, SERIES_STATUSES, SERIES_TYPES } from "../../../common/series.js";

// The recurring-series table (migration 0006). Rejections and detection runs
// are written and read with SQL (services/series).

export { SERIES_CADENCES, SERIES_STATUSES, SERIES_TYPES };
export type SeriesType = (typeof SERIES_TYPES)[number];
export type SeriesCadence = (typeof SERIES_CADENCES)[number];
export type SeriesStatus = (typeof SERIES_STATUSES)[number];
export type SeriesSource = "detected" | "manual";

/** A recurring series: a subscription, bill, loan or income, detected or entered by hand. */
export const SeriesEntity = defineEntity({
  name: "Series",
  tableName: "series",
  properties: (p) => ({
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    shortId: p.string().length(8).unique(),
    name: p.text(),
    type: p.text().$type<SeriesType>(),
    cadence: p.text().$type<SeriesCadence>(),
    // Exact decimals as strings, signed like transactions (positive = money out).
    expectedAmount: p.decimal().precision(12).scale(2),
    amountTolerance: p.decimal().precision(12).scale(2),
    isoCurrencyCode: p.string().length(3),
    counterpartyId: p.uuid().nullable(),
    status: p.text().$type<SeriesStatus>(),
    lastSeenDate: p.date().nullable(),
    nextExpectedDate: p.date().nullable(),
    source: p.text().$type<SeriesSource>(),
    confidence: p.decimal().precision(3).scale(2).nullable(),
    reason: p.text().nullable(),
    detectionKey: p.text().nullable(),
    createdByType: p.text().$type<"user" | "agent" | "system">(),
    createdById: p.text().nullable(),
    createdByName: p.text(),
    createdAt: p.datetime().onCreate((_, em) => nowOf(em)),
    updatedAt: p.datetime().onCreate((_, em) => nowOf(em)),
  }),
});
export type Series = InferEntity<typeof SeriesEntity>;
