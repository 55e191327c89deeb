import { z } from "zod";
import { SERIES_CADENCES, SERIES_STATUSES, SERIES_TYPES } from "../../../common/series.js";
import {
  ApplySeriesDetectionResponseSchema,
  DetectSeriesResponseSchema,
  ListUpcomingChargesResponseSchema,
  SeriesSchema,
} from "../../../gen/coffer/v1/series_pb.js";
import { date, ref } from "../../shared/params.js";
import { restShapeOf, toRest } from "../../shared/rest-json.js";
import { defineRoute, type RestRoute } from "../route.js";

// The enumerations and the id counts are checked here too (INVALID_PARAMETER naming the field); the core
// judges the rest (VALIDATION_ERROR): amounts, a negative tolerance, currencies against the transactions.

const type = z.enum(SERIES_TYPES);
const cadence = z.enum(SERIES_CADENCES);
const status = z.enum(SERIES_STATUSES);
const name = z.string().min(1).max(200);
/** JSON carries money as numbers; decimal text is accepted too. The core takes exact decimal text. */
const amount = z.union([z.number().describe("a JSON number"), z.string().describe('decimal text, e.g. "12.30"')]);
const decimalText = (v: number | string | undefined) => (v === undefined ? undefined : String(v));
const ids = z.array(ref).max(500);
const minConfidence = { min_confidence: z.number().min(0).max(1).optional() };

/** /api/v1/series: recurring series, their transactions, detection and upcoming charges. */
export const seriesRoutes: RestRoute[] = [
  defineRoute({
    method: "GET",
    url: "/api/v1/series",
    response: z.object({ series: z.array(restShapeOf(SeriesSchema)) }),
    query: { status: status.optional(), type: type.optional() },
    async handler({ core, opts, query }) {
      const r = await core.series.listSeries({ status: query.status, type: query.type }, opts);
      return { series: r.series.map((s) => toRest(SeriesSchema, s)) };
    },
  }),
  defineRoute({
    method: "POST",
    url: "/api/v1/series",
    response: restShapeOf(SeriesSchema),
    status: 201,
    body: {
      name,
      type: type.optional(),
      cadence: cadence.optional(),
      expected_amount: amount.optional(),
      amount_tolerance: amount.optional(),
      iso_currency_code: z.string().min(1).max(3).optional(),
      counterparty_id: ref.optional(),
      status: status.optional(),
      next_expected_date: date.optional(),
      transaction_ids: ids.optional(),
    },
    async handler({ core, opts, body }) {
      const r = await core.series.createSeries(
        {
          name: body.name,
          type: body.type,
          cadence: body.cadence,
          expectedAmount: decimalText(body.expected_amount),
          amountTolerance: decimalText(body.amount_tolerance),
          isoCurrencyCode: body.iso_currency_code,
          counterpartyId: body.counterparty_id,
          status: body.status,
          nextExpectedDate: body.next_expected_date,
          transactionIds: body.transaction_ids ?? [],
        },
        opts,
      );
      return toRest(SeriesSchema, r.series!);
    },
  }),
  defineRoute({
    method: "GET",
    url: "/api/v1/series/upcoming",
    response: restShapeOf(ListUpcomingChargesResponseSchema),
    query: { days: z.number().int().min(1).max(366).optional() },
    async handler({ core, opts, query }) {
      const r = await core.series.listUpcomingCharges({ days: query.days ?? 0 }, opts);
      return toRest(ListUpcomingChargesResponseSchema, r);
    },
  }),
  defineRoute({
    method: "POST",
    url: "/api/v1/series/detect",
    response: restShapeOf(DetectSeriesResponseSchema),
    bodyOptional: true,
    body: minConfidence,
    async handler({ core, opts, body }) {
      const r = await core.series.detectSeries({ minConfidence: body.min_confidence }, opts);
      return toRest(DetectSeriesResponseSchema, r);
    },
  }),
  defineRoute({
    method: "POST",
    url: "/api/v1/series/detect/apply",
    response: restShapeOf(ApplySeriesDetectionResponseSchema),
    bodyOptional: true,
    body: minConfidence,
    async handler({ core, opts, body }) {
      const r = await core.series.applySeriesDetection({ minConfidence: body.min_confidence }, opts);
      return toRest(ApplySeriesDetectionResponseSchema, r);
    },
  }),
  defineRoute({
    method: "POST",
    url: "/api/v1/series/detect/reject",
    status: 204,
    body: { fingerprint: z.string().min(1).max(2000) },
    async handler({ core, opts, body }) {
      await core.series.rejectSeriesProposal({ fingerprint: body.fingerprint }, opts);
    },
  }),
  defineRoute({
    method: "GET",
    url: "/api/v1/series/:id",
    response: restShapeOf(SeriesSchema),
    async handler({ core, opts, params }) {
      return toRest(SeriesSchema, (await core.series.getSeries({ id: params.id }, opts)).series!);
    },
  }),
  defineRoute({
    method: "PATCH",
    url: "/api/v1/series/:id",
    response: restShapeOf(SeriesSchema),
    body: {
      name: name.optional(),
      type: type.optional(),
      cadence: cadence.optional(),
      expected_amount: amount.optional(),
      amount_tolerance: amount.optional(),
      iso_currency_code: z.string().min(1).max(3).optional(),
      counterparty_id: ref.nullable().optional(),
      status: status.optional(),
      next_expected_date: date.nullable().optional(),
    },
    async handler({ core, opts, params, body }) {
      // JSON null clears a reference or a date; the core takes "" for that.
      const r = await core.series.updateSeries(
        {
          id: params.id,
          name: body.name,
          type: body.type,
          cadence: body.cadence,
          expectedAmount: decimalText(body.expected_amount),
          amountTolerance: decimalText(body.amount_tolerance),
          isoCurrencyCode: body.iso_currency_code,
          counterpartyId: body.counterparty_id === null ? "" : body.counterparty_id,
          status: body.status,
          nextExpectedDate: body.next_expected_date === null ? "" : body.next_expected_date,
        },
        opts,
      );
      return toRest(SeriesSchema, r.series!);
    },
  }),
  defineRoute({
    method: "DELETE",
    url: "/api/v1/series/:id",
    status: 204,
    async handler({ core, opts, params }) {
      await core.series.deleteSeries({ id: params.id }, opts);
    },
  }),
  defineRoute({
    method: "POST",
    url: "/api/v1/series/:id/transactions",
    response: z.object({ series: restShapeOf(SeriesSchema), added: z.number().int(), removed: z.number().int() }),
    body: { add: ids.optional(), remove: ids.optional() },
    async handler({ core, opts, params, body }) {
      const r = await core.series.updateSeriesTransactions(
        { id: params.id, add: body.add ?? [], remove: body.remove ?? [] },
        opts,
      );
      return { series: toRest(SeriesSchema, r.series!), added: Number(r.added), removed: Number(r.removed) };
    },
  }),
];
