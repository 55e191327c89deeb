import type { Em } from "../db/orm.js";
import { seriesIdByLookup, seriesShortId } from "../db/tables/series.js";
import { transactionSeries } from "../db/tables/transactions.js";
import { validation } from "../errors/coffer-error.js";
import { parseId } from "../ids/resolve-id.js";
import { checkAssignTarget, findSeriesByName, type AssignSeriesTarget } from "./assign.js";

/**
 * What the rules engine takes from series (it evaluates them; this module
 * supplies them):
 * - the condition fields `series` (the series' short id, or "" when the
 *   transaction belongs to none) and `in_series`, from the short id the
 *   context loader reads (transactions.series_id joined to series), with
 *   seriesConditionFields;
 * - the action `assign_series {series_id | series_name + create_if_missing}`:
 *   its parameters are checked when a rule is written with
 *   parseAssignSeriesParams, its series found with findAssignTarget, and it
 *   runs as assignSeries (./assign.ts), which fills only transactions that
 *   belong to no series.
 */

export { assignSeries, type AssignSeriesResult, type AssignSeriesTarget } from "./assign.js";

/** The series fields a rule condition can test. */
export interface SeriesConditionFields {
  /** Short id of the series, "" when none. */
  series: string;
  in_series: boolean;
}

/** The fields for one transaction, from the short id of its series (or null). */
export const seriesConditionFields = (seriesShortId: string | null): SeriesConditionFields => ({
  series: seriesShortId ?? "",
  in_series: seriesShortId !== null,
});

/**
 * `series` and `in_series` for each of the transactions (UUIDs); unknown ids
 * are left out of the map. (The rules' context loader reads the short id in
 * its own query, joined, and maps it with seriesConditionFields.)
 */
export async function loadSeriesConditionFields(
  em: Em,
  transactionIds: string[],
): Promise<Map<string, SeriesConditionFields>> {
  if (transactionIds.length === 0) return new Map();
  const rows = await transactionSeries(em, transactionIds);
  return new Map(rows.map((r) => [r.id, seriesConditionFields(r.series)]));
}

/**
 * The series an assign_series action names, as its UUID and short id, or
 * null when there is none: by series_id (UUID or short id), or by
 * series_name as assignSeries finds it (case-insensitive, an active one
 * first, then the oldest).
 */
export async function findAssignTarget(
  em: Em,
  target: AssignSeriesTarget,
): Promise<{ id: string; shortId: string } | null> {
  const name = target.seriesName?.trim();
  let id: string | null;
  if (name) id = await findSeriesByName(em, name);
  else {
    const lookup = parseId((target.seriesId ?? "").trim());
    if (!lookup) return null;
    id = (await seriesIdByLookup(em, lookup)) ?? null;
  }
  if (id === null) return null;
  const shortId = await seriesShortId(em, id);
  return shortId ? { id, shortId } : null;
}

const PARAMS = new Set(["series_id", "series_name", "create_if_missing"]);

/**
 * An assign_series action's parameters as a rule holds them (JSON, snake
 * case), checked at write time: an object with either a non-empty series_id
 * or a series_name (1-200 characters), and create_if_missing (boolean) only
 * with series_name. `path` names the node in the error (e.g. "actions[2]").
 * Whether the series exists is known only when the action runs.
 */
export function parseAssignSeriesParams(raw: unknown, path = "params"): AssignSeriesTarget {
  if (typeof raw !== "object" || raw === null || Array.isArray(raw)) throw validation(`${path} must be an object`);
  const p = raw as Record<string, unknown>;
  const unknown = Object.keys(p).find((k) => !PARAMS.has(k));
  if (unknown !== undefined) throw validation(`${path}.${unknown} is not a parameter of assign_series`);
  for (const k of ["series_id", "series_name"] as const) {
    if (p[k] !== undefined && typeof p[k] !== "string") throw validation(`${path}.${k} must be a string`);
  }
  if (p.create_if_missing !== undefined && typeof p.create_if_missing !== "boolean") {
    throw validation(`${path}.create_if_missing must be true or false`);
  }
  const target: AssignSeriesTarget = {
    seriesId: p.series_id as string | undefined,
    seriesName: p.series_name as string | undefined,
    createIfMissing: p.create_if_missing,
  };
  checkAssignTarget(target, `${path}: `);
  return target;
}
