import { checkText } from "../../common/text.js";
import type { Em } from "../db/orm.js";
import { lockSeriesRow, seriesIdByName, seriesNameAndCurrency } from "../db/tables/series.js";
import { notFound, validation } from "../errors/coffer-error.js";
import type { Actor } from "../ledger/actor.js";
import { checkBatchSize, resolveTransactionIds } from "../ledger/transactions/batch-ids.js";
import { canonicalAmount } from "../shared/validate.js";
import { latest, linkMembers, lockMembers, refreshSeries } from "./membership.js";
import { insertSeries } from "./series.js";
import { resolveSeriesId } from "./view.js";

/** Which series to fill: by id, or by name (created when missing, if asked). */
export interface AssignSeriesTarget {
  seriesId?: string;
  seriesName?: string;
  createIfMissing?: boolean;
}

export interface AssignSeriesResult {
  /** UUID of the series filled (null: none existed and none was created). */
  seriesId: string | null;
  created: boolean;
  /** UUIDs put into the series. */
  assigned: string[];
  /** UUIDs left alone: already in a series, or in another currency than the series. */
  skipped: string[];
}

/** Exactly one of series_id and series_name; create_if_missing only with a name. */
export function checkAssignTarget(t: AssignSeriesTarget, path = ""): void {
  const hasId = (t.seriesId ?? "").trim() !== "";
  const hasName = (t.seriesName ?? "").trim() !== "";
  if (hasId === hasName) throw validation(`${path}give either series_id or series_name`);
  if (hasId && t.createIfMissing) throw validation(`${path}create_if_missing goes with series_name, not series_id`);
  if (hasName) {
    const r = checkText(t.seriesName, "series_name", { max: 200 });
    if (!r.ok) throw validation(`${path}${r.message}`);
  }
}

/** The series with this name (case-insensitive): an active one first, then the oldest. */
export async function findSeriesByName(tx: Em, name: string): Promise<string | null> {
  return (await seriesIdByName(tx, name)) ?? null;
}

/**
 * The assign_series action (rules) and the AssignSeries call (MCP's
 * assign_series): puts the named transactions that belong to no series into
 * the target series, and only those; one already in a series (this one or
 * another) or in another currency is skipped, never moved. By name, a missing
 * series is created when asked (manual, irregular, "other", at the latest
 * eligible transaction's amount and currency), but only if some transaction
 * can go into it. All in one database transaction, each assignment annotated.
 */
export async function assignSeries(
  em: Em,
  actor: Actor,
  req: AssignSeriesTarget & {
    transactionIds: string[];
    /** More details for each assignment's annotation (a rule names itself here). */
    note?: Record<string, unknown>;
  },
): Promise<AssignSeriesResult> {
  checkBatchSize(req.transactionIds);
  checkAssignTarget(req);
  const name = req.seriesName?.trim() ? req.seriesName.trim() : null;
  return em.transactional(async (tx) => {
    const ids = await resolveTransactionIds(tx, req.transactionIds);
    let id = name === null ? await resolveSeriesId(tx, req.seriesId!) : await findSeriesByName(tx, name);
    // Series row first, then its transactions: every series change locks in this order.
    if (id !== null) await lockSeriesRow(tx, id);
    const rows = await lockMembers(tx, ids);
    const free = rows.filter((r) => r.series_id === null);
    let created = false;
    if (id === null) {
      if (!req.createIfMissing) throw notFound("Series");
      if (free.length === 0) return { seriesId: null, created, assigned: [], skipped: rows.map((r) => r.id) };
      const last = latest(free);
      id = (
        await insertSeries(tx, actor, {
          name: name!,
          type: "other",
          cadence: "irregular",
          expectedAmount: canonicalAmount(last.amount),
          amountTolerance: "0.00",
          isoCurrencyCode: last.iso_currency_code,
          counterpartyId: null,
          status: "active",
          nextExpectedDate: null,
          source: "manual",
          confidence: null,
          reason: null,
          detectionKey: null,
        })
      ).id;
      created = true;
    }
    const s = (await seriesNameAndCurrency(tx, id))!;
    const eligible = free.filter((r) => r.iso_currency_code === s.currency);
    const assigned = await linkMembers(tx, actor, { id, shortId: s.short_id, name: s.name }, eligible, req.note);
    if (assigned.length > 0) await refreshSeries(tx, id);
    const done = new Set(assigned);
    return { seriesId: id, created, assigned, skipped: rows.filter((r) => !done.has(r.id)).map((r) => r.id) };
  });
}
