import type { SeriesCadence, SeriesSource, SeriesStatus, SeriesType } from "../db/entities/index.js";
import type { Em } from "../db/orm.js";
import { iso, pgArray, query } from "../db/sql.js";
import { notFound } from "../errors/coffer-error.js";
import { parseId } from "../ids/resolve-id.js";

/**
 * A series as the API shows it: the row with its counterparty (short id and
 * name) and how many live transactions belong to it. Amounts and the
 * confidence are decimal text; dates YYYY-MM-DD; timestamps UTC ISO text.
 */
export interface SeriesView {
  id: string;
  shortId: string;
  name: string;
  type: SeriesType;
  cadence: SeriesCadence;
  expectedAmount: string;
  amountTolerance: string;
  isoCurrencyCode: string;
  counterpartyId: string | null;
  counterpartyName: string | null;
  status: SeriesStatus;
  lastSeenDate: string | null;
  nextExpectedDate: string | null;
  source: SeriesSource;
  confidence: string | null;
  reason: string | null;
  transactionCount: string;
  createdByType: "user" | "agent" | "system";
  createdById: string | null;
  createdByName: string;
  createdAt: string;
  updatedAt: string;
}

/** Presented series rows for a predicate over `s` (the series table), by name then id. */
export function seriesViewSql(where: string): string {
  return `
    select s.id, s.short_id as "shortId", s.name, s.type, s.cadence, s.expected_amount::text as "expectedAmount",
      s.amount_tolerance::text as "amountTolerance", s.iso_currency_code as "isoCurrencyCode",
      cp.short_id as "counterpartyId", cp.name as "counterpartyName", s.status,
      to_char(s.last_seen_date, 'YYYY-MM-DD') as "lastSeenDate",
      to_char(s.next_expected_date, 'YYYY-MM-DD') as "nextExpectedDate", s.source,
      s.confidence::text as confidence, s.reason,
      (select count(*) from transactions t
        where t.series_id = s.id and t.deleted_at is null)::text as "transactionCount",
      s.created_by_type as "createdByType", s.created_by_id as "createdById", s.created_by_name as "createdByName",
      ${iso("s.created_at")} as "createdAt", ${iso("s.updated_at")} as "updatedAt"
    from series s left join counterparties cp on cp.id = s.counterparty_id
    where ${where}
    order by lower(s.name), s.id`;
}

/** UUID of a series from a raw `{id}` (UUID or short id). */
export async function resolveSeriesId(em: Em, raw: string): Promise<string> {
  const lookup = parseId(raw.trim());
  if (lookup) {
    const rows = await query<{ id: string }>(em, `select id from series where ${lookup.column} = ?`, [lookup.value]);
    if (rows[0]) return rows[0].id;
  }
  throw notFound("Series");
}

/** One presented series by UUID. */
export async function loadSeries(em: Em, id: string): Promise<SeriesView> {
  const rows = await query<SeriesView>(em, seriesViewSql(`s.id = ?`), [id]);
  if (!rows[0]) throw notFound("Series");
  return rows[0];
}

/** Presented series by UUID, in the order given (unknown ids are left out). */
export async function loadSeriesMany(em: Em, ids: string[]): Promise<SeriesView[]> {
  if (ids.length === 0) return [];
  const rows = await query<SeriesView>(em, seriesViewSql(`s.id = any(?::uuid[])`), [pgArray(ids)]);
  const byId = new Map(rows.map((r) => [r.id, r]));
  return ids.flatMap((id) => byId.get(id) ?? []);
}
