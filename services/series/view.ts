import type { Em } from "../db/orm.js";
import { seriesIdByLookup, seriesRowById, seriesRowsByIds, type SeriesRow } from "../db/tables/series.js";
import { notFound } from "../errors/coffer-error.js";
import { parseId } from "../ids/resolve-id.js";

/** A series as the API shows it (services/db/tables/series.ts reads it). */
export type SeriesView = SeriesRow;

/** UUID of a series from a raw `{id}` (UUID or short id). */
export async function resolveSeriesId(em: Em, raw: string): Promise<string> {
  const lookup = parseId(raw.trim());
  if (lookup) {
    const id = await seriesIdByLookup(em, lookup);
    if (id) return id;
  }
  throw notFound("Series");
}

/** One presented series by UUID. */
export async function loadSeries(em: Em, id: string): Promise<SeriesView> {
  const row = await seriesRowById(em, id);
  if (!row) throw notFound("Series");
  return row;
}

/** Presented series by UUID, in the order given (unknown ids are left out). */
export async function loadSeriesMany(em: Em, ids: string[]): Promise<SeriesView[]> {
  if (ids.length === 0) return [];
  const rows = await seriesRowsByIds(em, ids);
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}
