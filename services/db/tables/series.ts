import type { SeriesCadence, SeriesSource, SeriesStatus, SeriesType } from "../entities/index.js";
import type { IdLookup } from "../../ids/resolve-id.js";
import type { Em } from "../orm.js";
import { iso, pgArray, query } from "../sql.js";

/**
 * A series as the API shows it: the row with its counterparty (short id and
 * name) and how many live transactions belong to it. Amounts and the
 * confidence are decimal text; dates YYYY-MM-DD; timestamps UTC ISO text.
 */
export interface SeriesRow {
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
function seriesViewSql(where: string): string {
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

/** Every series with this status and type (each optional), by name then id. */
export async function listSeriesRows(em: Em, f: { status?: SeriesStatus; type?: SeriesType }): Promise<SeriesRow[]> {
  const clauses: string[] = [];
  const params: unknown[] = [];
  if (f.status !== undefined) {
    clauses.push(`s.status = ?`);
    params.push(f.status);
  }
  if (f.type !== undefined) {
    clauses.push(`s.type = ?`);
    params.push(f.type);
  }
  return query<SeriesRow>(em, seriesViewSql(clauses.join(" and ") || "true"), params);
}

export async function seriesRowById(em: Em, id: string): Promise<SeriesRow | undefined> {
  const [row] = await query<SeriesRow>(em, seriesViewSql(`s.id = ?`), [id]);
  return row;
}

/** These series by UUID (unknown ids left out), by name then id. */
export async function seriesRowsByIds(em: Em, ids: string[]): Promise<SeriesRow[]> {
  return query<SeriesRow>(em, seriesViewSql(`s.id = any(?::uuid[])`), [pgArray(ids)]);
}

export async function seriesIdByLookup(em: Em, lookup: NonNullable<IdLookup>): Promise<string | undefined> {
  const [row] = await query<{ id: string }>(em, `select id from series where ${lookup.column} = ?`, [lookup.value]);
  return row?.id;
}

export async function seriesShortId(em: Em, id: string): Promise<string | undefined> {
  const [row] = await query<{ short_id: string }>(em, `select short_id from series where id = ?`, [id]);
  return row?.short_id;
}

/** The series with this name (case-insensitive): an active one first, then the oldest. */
export async function seriesIdByName(em: Em, name: string): Promise<string | undefined> {
  const rows = await query<{ id: string }>(
    em,
    `select id from series where lower(name) = lower(?) order by (status = 'active') desc, created_at, id limit 1`,
    [name],
  );
  return rows[0]?.id;
}

/** Locks a series row until the transaction ends (the series row before its transactions, always). */
export async function lockSeriesRow(em: Em, id: string): Promise<void> {
  await query(em, `select 1 from series where id = ? for update`, [id]);
}

export async function seriesNameAndCurrency(
  em: Em,
  id: string,
): Promise<{ short_id: string; name: string; currency: string } | undefined> {
  const [s] = await query<{ short_id: string; name: string; currency: string }>(
    em,
    `select short_id, name, iso_currency_code as currency from series where id = ?`,
    [id],
  );
  return s;
}

/** Deletes a series; ON DELETE SET NULL clears series_id on its transactions. */
export async function deleteSeriesRow(em: Em, id: string): Promise<void> {
  await query(em, `delete from series where id = ?`, [id]);
}

/** A series' cadence and the dates of its latest (up to 24) live transactions, newest first. */
export async function seriesCadenceAndDates(
  em: Em,
  id: string,
): Promise<{ cadence: SeriesCadence; dates: string[] | null } | undefined> {
  const [row] = await query<{ cadence: SeriesCadence; dates: string[] | null }>(
    em,
    `select s.cadence, array(select to_char(t.date, 'YYYY-MM-DD') from transactions t
       where t.series_id = s.id and t.deleted_at is null order by t.date desc limit 24) as dates
     from series s where s.id = ?`,
    [id],
  );
  return row;
}

/** Sets last_seen_date and, unless `nextExpected` is null, next_expected_date. */
export async function updateSeriesDates(
  em: Em,
  id: string,
  dates: { lastSeen: string; nextExpected: string | null },
): Promise<void> {
  await query(
    em,
    `update series set last_seen_date = ?::date,
       next_expected_date = case when ?::boolean then next_expected_date else ?::date end, updated_at = now()
     where id = ?`,
    [dates.lastSeen, dates.nextExpected === null, dates.nextExpected, id],
  );
}

/** An active series expected before a day, with up to 12 dates of its live transactions before then. */
export interface DueSeriesRow {
  short_id: string;
  name: string;
  type: SeriesType;
  cadence: SeriesCadence;
  amount: string;
  currency: string;
  next: string;
  dates: string[];
}

/** Active series whose next expected date is before `before` (YYYY-MM-DD). */
export async function activeSeriesDueBefore(em: Em, before: string): Promise<DueSeriesRow[]> {
  return query<DueSeriesRow>(
    em,
    `select s.short_id, s.name, s.type, s.cadence, s.expected_amount::text as amount, s.iso_currency_code as currency,
       to_char(s.next_expected_date, 'YYYY-MM-DD') as next,
       array(select to_char(t.date, 'YYYY-MM-DD') from transactions t
         where t.series_id = s.id and t.deleted_at is null and t.date < s.next_expected_date
         order by t.date desc limit 12) as dates
     from series s
     where s.status = 'active' and s.next_expected_date is not null and s.next_expected_date < ?::date`,
    [before],
  );
}
