import { z } from "zod";
import { SERIES_CADENCES, SERIES_STATUSES, SERIES_TYPES } from "../../../common/series.js";
import {
  ListUpcomingChargesResponseSchema,
  SeriesSchema,
  type Series,
  type SeriesProposal,
} from "../../../gen/coffer/v1/series_pb.js";
import { amountTextOrNumber, date, ref } from "../../shared/params.js";
import { decimalNumber, restShapeOf, toMcp, toRest } from "../../shared/rest-json.js";
import { defineTool, type ToolDef } from "../tool.js";

const type = z.enum(SERIES_TYPES);
const cadence = z.enum(SERIES_CADENCES);
const status = z.enum(SERIES_STATUSES);

/** A series as REST shows it (restShapeOf), with `id` the short id (toMcp; use it as series_id elsewhere). */
const series = restShapeOf(SeriesSchema);
const seriesOut = (s: Series) => toMcp(SeriesSchema, s);

export const listSeries = defineTool({
  name: "list_series",
  title: "List recurring series",
  description:
    "The household's recurring series (subscriptions, bills, loans, income), detected or entered by hand, with " +
    "cadence, expected amount, last and next dates. Filter by status or type.",
  readOnly: true,
  inputSchema: { status: status.optional(), type: type.optional() },
  outputSchema: { series: z.array(series) },
  async handler(core, opts, args) {
    const r = await core.series.listSeries({ status: args.status, type: args.type }, opts);
    return { series: r.series.map(seriesOut) };
  },
});

const recentTransaction = z.object({
  id: z.string().describe("short id"),
  date: z.string(),
  amount: z.number(),
  iso_currency_code: z.string(),
  name: z.string(),
  account: z.string(),
});

export const getSeries = defineTool({
  name: "get_series",
  title: "Get a recurring series",
  description: "One recurring series by short id or UUID, with its most recent transactions (newest first).",
  readOnly: true,
  inputSchema: {
    id: ref.describe("series short id or UUID"),
    recent: z.number().int().min(1).max(100).optional().describe("how many recent transactions (default 10)"),
  },
  outputSchema: { series, recent_transactions: z.array(recentTransaction) },
  async handler(core, opts, args) {
    const s = (await core.series.getSeries({ id: args.id }, opts)).series!;
    const page = await core.transactions.listTransactions(
      { filter: { seriesId: s.id }, limit: args.recent ?? 10, cursor: "", sortBy: "", sortOrder: "" },
      opts,
    );
    return {
      series: seriesOut(s),
      recent_transactions: page.transactions.map((t) => ({
        id: t.shortId,
        date: t.date,
        amount: decimalNumber(t.amount)!,
        iso_currency_code: t.isoCurrencyCode,
        name: t.name,
        account: t.accountName,
      })),
    };
  },
});

const totals = z.object({
  iso_currency_code: z.string(),
  money_out: z.number(),
  money_in: z.number(),
  net: z.number(),
  count: z.number().int(),
});

/** The upcoming charges as REST renders them: declared loosely for the handler, checked by the server. */
const upcomingShape: z.ZodRawShape = {
  from: z.string().describe("today, YYYY-MM-DD"),
  to: z.string().describe("end of the window, exclusive"),
  charges: z.array(
    z.object({
      series_id: z.string(),
      series_name: z.string(),
      type: z.string(),
      date: z.string(),
      amount: z.number().describe("positive = money out"),
      iso_currency_code: z.string(),
    }),
  ),
  totals: z.array(totals).describe("per currency; currencies are never added together"),
};

export const upcomingCharges = defineTool({
  name: "upcoming_charges",
  title: "Upcoming charges",
  description:
    "What the active recurring series are expected to charge (or pay in) from today over the next `days` " +
    "(default 30): each expected charge with its date and amount, and totals per currency.",
  readOnly: true,
  inputSchema: { days: z.number().int().min(1).max(366).optional().describe("window length in days, 1-366") },
  outputSchema: upcomingShape,
  async handler(core, opts, args) {
    return toRest(
      ListUpcomingChargesResponseSchema,
      await core.series.listUpcomingCharges({ days: args.days ?? 0 }, opts),
    );
  },
});

const proposal = z.object({
  name: z.string(),
  type: z.string(),
  cadence: z.string(),
  expected_amount: z.number(),
  iso_currency_code: z.string(),
  status: z.string().describe("active, or ended when the charges stopped"),
  confidence: z.number(),
  reason: z.string(),
  next_expected_date: z.string().nullable(),
  transaction_ids: z.array(z.string()).describe("short ids, oldest first"),
  series_id: z.string().nullable().describe("set when the charges continue this existing series"),
  unlinked_count: z.number().int().describe("how many of them belong to no series yet"),
  fingerprint: z.string(),
});

function proposalOut(p: SeriesProposal): z.input<typeof proposal> {
  return {
    name: p.name,
    type: p.type,
    cadence: p.cadence,
    expected_amount: decimalNumber(p.expectedAmount)!,
    iso_currency_code: p.isoCurrencyCode,
    status: p.status,
    confidence: p.confidence,
    reason: p.reason,
    next_expected_date: p.nextExpectedDate ?? null,
    transaction_ids: p.transactionIds,
    series_id: p.seriesId ?? null,
    unlinked_count: Number(p.unlinkedCount),
    fingerprint: p.fingerprint,
  };
}

export const detectSeries = defineTool({
  name: "detect_series",
  title: "Detect recurring series (dry run)",
  description:
    "Runs the recurring-series detector over the transaction history and returns what it would create or " +
    "extend, each with a confidence and a one-line reason. Writes nothing. Use assign_series to put transactions " +
    "into a series yourself.",
  readOnly: true,
  inputSchema: {
    min_confidence: z.number().min(0).max(1).optional().describe("leave out proposals below this (0-1)"),
  },
  outputSchema: { proposals: z.array(proposal) },
  async handler(core, opts, args) {
    const r = await core.series.detectSeries({ minConfidence: args.min_confidence }, opts);
    return { proposals: r.proposals.map(proposalOut) };
  },
});

export const assignSeries = defineTool({
  name: "assign_series",
  title: "Assign transactions to a series",
  description:
    "Puts transactions into a recurring series, named by series_id, or by series_name (case-insensitive; with " +
    "create_if_missing a new series of that name is made). Only transactions that belong to no series are " +
    "assigned; the others (in a series already, or in another currency) are listed as skipped. Needs a " +
    "full_access key.",
  readOnly: false,
  inputSchema: {
    transaction_ids: z.array(ref).min(1).max(500).describe("transaction short ids or UUIDs"),
    series_id: ref.optional().describe("series short id or UUID (list_series)"),
    series_name: z.string().min(1).max(200).optional(),
    create_if_missing: z.boolean().optional().describe("with series_name: create the series if none has that name"),
  },
  outputSchema: {
    series: series.nullable(),
    created: z.boolean(),
    assigned: z.array(z.string()).describe("short ids put into the series"),
    skipped: z.array(z.string()).describe("short ids left alone"),
  },
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
    return {
      series: r.series ? seriesOut(r.series) : null,
      created: r.created,
      assigned: r.assigned,
      skipped: r.skipped,
    };
  },
});

export const updateSeries = defineTool({
  name: "update_series",
  title: "Update a recurring series",
  description:
    "Changes a recurring series: name, type, cadence, expected amount and tolerance, status (active, paused, " +
    "ended) or next expected date (null clears it). Needs a full_access key.",
  readOnly: false,
  inputSchema: {
    id: ref.describe("series short id or UUID"),
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
