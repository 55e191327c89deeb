import { z } from "zod";
import { SERIES_CADENCES, SERIES_STATUSES, SERIES_TYPES } from "../../../common/series.js";
import {
  AssignSeriesResponseSchema,
  DetectSeriesResponseSchema,
  ListUpcomingChargesResponseSchema,
  SeriesSchema,
  type Series,
} from "../../../gen/coffer/v1/series_pb.js";
import { TransactionSchema } from "../../../gen/coffer/v1/transactions_pb.js";
import { amountTextOrNumber, date, ref } from "../../shared/params.js";
import { restShapeOf, toRest } from "../../shared/rest-json.js";
import { defineTool, type ToolDef } from "../tool.js";

const type = z.enum(SERIES_TYPES);
const cadence = z.enum(SERIES_CADENCES);
const status = z.enum(SERIES_STATUSES);

/** A series as REST shows it (GET /api/v1/series/{id}): what every series tool returns. */
const series = restShapeOf(SeriesSchema);
const seriesOut = (s: Series) => toRest(SeriesSchema, s);

/** What the series tools' descriptions say about the series objects they return. */
const SERIES_TEXT =
  "Each series is its REST object (GET /api/v1/series/{id}): id (UUID) and short_id (either is accepted as a " +
  "series id; transactions' series_id carries the short id).";

export const listSeries = defineTool({
  name: "list_series",
  title: "List recurring series",
  description:
    "The household's recurring series (subscriptions, bills, loans, income), detected or entered by hand, with " +
    "cadence, expected amount, last and next dates. Filter by status or type. " +
    SERIES_TEXT,
  readOnly: true,
  inputSchema: { status: status.optional(), type: type.optional() },
  outputSchema: { series: z.array(series) },
  async handler(core, opts, args) {
    const r = await core.series.listSeries({ status: args.status, type: args.type }, opts);
    return { series: r.series.map(seriesOut) };
  },
});

export const getSeries = defineTool({
  name: "get_series",
  title: "Get a recurring series",
  description:
    "One recurring series by UUID or short id, with its most recent transactions (newest first), each as GET " +
    "/api/v1/transactions/{id} shows it (the page GET /api/v1/transactions?series_id= answers). " +
    SERIES_TEXT,
  readOnly: true,
  inputSchema: {
    id: ref.describe("series id: the UUID or the short id"),
    recent: z.number().int().min(1).max(100).optional().describe("how many recent transactions (default 10)"),
  },
  outputSchema: { series, recent_transactions: z.array(restShapeOf(TransactionSchema)) },
  async handler(core, opts, args) {
    const s = (await core.series.getSeries({ id: args.id }, opts)).series!;
    const page = await core.transactions.listTransactions(
      { filter: { seriesId: s.id }, limit: args.recent ?? 10, cursor: "", sortBy: "", sortOrder: "" },
      opts,
    );
    return {
      series: seriesOut(s),
      recent_transactions: page.transactions.map((t) => toRest(TransactionSchema, t)),
    };
  },
});

export const upcomingCharges = defineTool({
  name: "upcoming_charges",
  title: "Upcoming charges",
  description:
    "What the active recurring series are expected to charge (or pay in) from today over the next `days` " +
    "(default 30): each expected charge with its date and amount, and totals per currency (currencies are never " +
    "added together). The answer is GET /api/v1/series/upcoming's; series_id is the series' short id.",
  readOnly: true,
  inputSchema: { days: z.number().int().min(1).max(366).optional().describe("window length in days, 1-366") },
  outputSchema: restShapeOf(ListUpcomingChargesResponseSchema).shape,
  async handler(core, opts, args) {
    return toRest(
      ListUpcomingChargesResponseSchema,
      await core.series.listUpcomingCharges({ days: args.days ?? 0 }, opts),
    );
  },
});

export const detectSeries = defineTool({
  name: "detect_series",
  title: "Detect recurring series (dry run)",
  description:
    "Runs the recurring-series detector over the transaction history and returns what it would create or " +
    "extend, each with a confidence and a one-line reason. Writes nothing. Use assign_series to put transactions " +
    "into a series yourself. The answer is POST /api/v1/series/detect's: each proposal has name, type, cadence, " +
    "expected_amount, status (active, or ended when the charges stopped), confidence (0-1), reason, " +
    "transaction_ids (short ids, oldest first), series_id (short id of the existing series the charges continue, " +
    "else null), unlinked_count (how many belong to no series yet) and fingerprint.",
  readOnly: true,
  inputSchema: {
    min_confidence: z.number().min(0).max(1).optional().describe("leave out proposals below this (0-1)"),
  },
  outputSchema: restShapeOf(DetectSeriesResponseSchema).shape,
  async handler(core, opts, args) {
    return toRest(
      DetectSeriesResponseSchema,
      await core.series.detectSeries({ minConfidence: args.min_confidence }, opts),
    );
  },
});

export const assignSeries = defineTool({
  name: "assign_series",
  title: "Assign transactions to a series",
  description:
    "Puts transactions into a recurring series, named by series_id, or by series_name (case-insensitive; with " +
    "create_if_missing a new series of that name is made). Only transactions that belong to no series are " +
    "assigned; the others (in a series already, or in another currency) are listed as skipped (assigned and " +
    "skipped are short ids). series is the REST series object. Needs a full_access key.",
  readOnly: false,
  inputSchema: {
    transaction_ids: z.array(ref).min(1).max(500).describe("transaction ids: UUIDs or short ids"),
    series_id: ref.optional().describe("series id: the UUID or the short id (list_series)"),
    series_name: z.string().min(1).max(200).optional(),
    create_if_missing: z.boolean().optional().describe("with series_name: create the series if none has that name"),
  },
  outputSchema: restShapeOf(AssignSeriesResponseSchema).shape,
  async handler(core, opts, args) {
    const r = await core.series.assignSeries(
      {
        transactionIds: args.transaction_ids,
        seriesId: args.series_id,
        seriesName: args.series_name,
        createIfMissing: args.create_if_missing ?? false,
      },
      opts,
    );
    return toRest(AssignSeriesResponseSchema, r);
  },
});

export const updateSeries = defineTool({
  name: "update_series",
  title: "Update a recurring series",
  description:
    "Changes a recurring series: name, type, cadence, expected amount and tolerance, status (active, paused, " +
    "ended) or next expected date (null clears it). Returns the series as PATCH /api/v1/series/{id} does. Needs " +
    "a full_access key.",
  readOnly: false,
  inputSchema: {
    id: ref.describe("series id: the UUID or the short id"),
    name: z.string().min(1).max(200).optional(),
    type: type.optional(),
    cadence: cadence.optional(),
    expected_amount: amountTextOrNumber.optional().describe("signed like transactions: positive = money out"),
    amount_tolerance: amountTextOrNumber.optional().describe("never negative"),
    status: status.optional(),
    next_expected_date: date.nullable().optional(),
  },
  outputSchema: { series },
  async handler(core, opts, args) {
    const r = await core.series.updateSeries(
      {
        id: args.id,
        name: args.name,
        type: args.type,
        cadence: args.cadence,
        expectedAmount: args.expected_amount === undefined ? undefined : String(args.expected_amount),
        amountTolerance: args.amount_tolerance === undefined ? undefined : String(args.amount_tolerance),
        status: args.status,
        nextExpectedDate: args.next_expected_date === null ? "" : args.next_expected_date,
      },
      opts,
    );
    return { series: seriesOut(r.series!) };
  },
});

/** list_series, get_series, upcoming_charges, detect_series (reads); assign_series, update_series (writes). */
export const seriesTools: ToolDef[] = [
  listSeries,
  getSeries,
  upcomingCharges,
  detectSeries,
  assignSeries,
  updateSeries,
];
