import type { SeriesCadence } from "../db/entities/index.js";
import type { Em } from "../db/orm.js";
import { seriesCadenceAndDates, updateSeriesDates } from "../db/tables/series.js";
import {
  linkTransactionsToSeries,
  lockSeriesMembers,
  unlinkTransactionsFromSeries,
} from "../db/tables/transactions-edits.js";
import { CofferError } from "../errors/coffer-error.js";
import type { Actor } from "../ledger/actor.js";
import { recordAnnotations } from "../ledger/annotations.js";
import { quoted } from "../ledger/transactions/locked-row.js";
import { nextAfter, scheduleOf } from "./detector/cadence.js";
import { dayOf, isoOf } from "../../common/days.js";

/**
 * Which transactions belong to a series. A transaction belongs to at most
 * one (transactions.series_id); every change to that is annotated on the
 * transaction's timeline, and the series' last_seen_date and
 * next_expected_date follow its transactions.
 */

/** The most transactions one call may add and remove together. */
export const MAX_SERIES_IDS = 500;

/** The parts of a transaction row a series change reads. */
export interface MemberRow {
  id: string;
  short_id: string;
  series_id: string | null;
  iso_currency_code: string;
  amount: string;
  date: string;
}

/**
 * Locks the named live transactions (UUIDs) for a series change; the caller
 * resolved them first. One deleted meanwhile fails the change, or is left
 * out with `skipDeleted` (detection, which must not fail over one row).
 */
export async function lockMembers(tx: Em, ids: string[], opts: { skipDeleted?: boolean } = {}): Promise<MemberRow[]> {
  if (ids.length === 0) return [];
  const rows = await lockSeriesMembers(tx, ids);
  if (!opts.skipDeleted && (rows.length < ids.length || rows.some((r) => r.deleted))) {
    throw new CofferError("NOT_FOUND", "A transaction was deleted meanwhile; nothing was changed");
  }
  return rows.filter((r) => !r.deleted).map(({ deleted: _, ...r }) => r);
}

/** The latest of some transactions (by date, then id). */
export const latest = (rows: MemberRow[]) =>
  rows.reduce((a, b) => (b.date > a.date || (b.date === a.date && b.id > a.id) ? b : a));

/** Refuses a transaction in another currency than the series: `field` names where it came from. */
export function checkCurrency(rows: MemberRow[], currency: string, field: string): void {
  const other = rows.find((r) => r.iso_currency_code !== currency);
  if (other) {
    throw new CofferError(
      "VALIDATION_ERROR",
      `${field}: transaction ${quoted(other.short_id)} is in ${other.iso_currency_code}, the series in ${currency}`,
    );
  }
}

interface SeriesRef {
  id: string;
  shortId: string;
  name: string;
}

/**
 * Puts the rows into the series, each only if it still belongs to no series
 * (the update re-checks, so a racing writer can never have a transaction
 * moved). Returns the ids linked.
 */
export async function linkMembers(
  tx: Em,
  actor: Actor,
  series: SeriesRef,
  rows: MemberRow[],
  note: Record<string, unknown> = {},
): Promise<string[]> {
  const candidates = rows.filter((r) => r.series_id === null).map((r) => r.id);
  if (candidates.length === 0) return [];
  const linked = await linkTransactionsToSeries(tx, series.id, candidates);
  await recordAnnotations(
    tx,
    actor,
    linked.map((id) => ({
      entityType: "transaction" as const,
      entityId: id,
      transactionId: id,
      action: "series_assigned",
      details: { series_id: series.shortId, series_name: series.name, ...note },
    })),
  );
  return linked;
}

/** Takes the rows out of the series (those that belong to it). Returns the ids unlinked. */
export async function unlinkMembers(tx: Em, actor: Actor, series: SeriesRef, rows: MemberRow[]): Promise<string[]> {
  const ids = rows.filter((r) => r.series_id === series.id).map((r) => r.id);
  if (ids.length === 0) return [];
  await unlinkTransactionsFromSeries(tx, series.id, ids);
  await recordAnnotations(
    tx,
    actor,
    ids.map((id) => ({
      entityType: "transaction" as const,
      entityId: id,
      transactionId: id,
      action: "series_unassigned",
      details: { series_id: series.shortId, series_name: series.name },
    })),
  );
  return ids;
}

/**
 * The next expected date of a periodic series whose transactions fell on
 * these days (YYYY-MM-DD, ascending): the occurrence after the last one.
 */
export function nextExpectedDate(cadence: SeriesCadence, dates: string[]): string | null {
  if (cadence === "irregular" || dates.length === 0) return null;
  const days = dates.map(dayOf);
  return isoOf(nextAfter(scheduleOf(cadence, days), days[days.length - 1]));
}

/**
 * Brings last_seen_date (its latest live transaction) and, for a periodic
 * series, next_expected_date (the occurrence after it) up to date with the
 * series' transactions. A series without transactions keeps what it has.
 */
export async function refreshSeries(tx: Em, seriesId: string, opts: { keepNextExpected?: boolean } = {}) {
  const row = await seriesCadenceAndDates(tx, seriesId);
  const dates = [...(row?.dates ?? [])].reverse();
  if (!row || dates.length === 0) return;
  const next = opts.keepNextExpected ? undefined : nextExpectedDate(row.cadence, dates);
  await updateSeriesDates(tx, seriesId, { lastSeen: dates[dates.length - 1], nextExpected: next ?? null });
}
