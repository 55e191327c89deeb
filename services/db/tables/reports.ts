import type { ReportPriority } from "../entities/index.js";
import type { IdLookup } from "../../ids/resolve-id.js";
import type { Actor } from "../../ledger/actor.js";
import type { Em } from "../orm.js";
import { iso, pgArray, query } from "../sql.js";

/** A transaction a report refers to: its short id, and whether it has been deleted since. */
export interface ReportTransactionRef {
  transactionId: string;
  deleted: boolean;
}

/** A report as presented. Timestamps are UTC ISO 8601 text. */
export interface ReportRow {
  id: string;
  shortId: string;
  title: string;
  /** null in a list read without bodies. */
  body: string | null;
  priority: ReportPriority;
  tags: string[];
  author: string | null;
  createdByType: Actor["type"];
  createdById: string | null;
  createdByName: string;
  transactions: ReportTransactionRef[];
  readAt: string | null;
  createdAt: string;
}

/** The SELECT every read shares: report columns named as ReportRow's fields, and its transactions in order. */
function reportSql(where: string, opts: { includeBody: boolean; limit?: number }): string {
  return `
    select r.id, r.short_id as "shortId", r.title, ${opts.includeBody ? "r.body" : "null"} as body, r.priority,
      r.tags, r.author, r.created_by_type as "createdByType", r.created_by_id as "createdById",
      r.created_by_name as "createdByName", ${iso("r.read_at")} as "readAt", ${iso("r.created_at")} as "createdAt",
      coalesce((
        select json_agg(json_build_object('transactionId', t.short_id, 'deleted', t.deleted_at is not null)
          order by rt.position)
        from report_transactions rt join transactions t on t.id = rt.transaction_id
        where rt.report_id = r.id), '[]') as transactions
    from reports r
    where ${where}
    order by r.created_at desc, r.id desc
    ${opts.limit === undefined ? "" : `limit ${Math.trunc(opts.limit)}`}`;
}

export async function reportByLookup(em: Em, lookup: NonNullable<IdLookup>): Promise<ReportRow | undefined> {
  const [row] = await query<ReportRow>(em, reportSql(`r.${lookup.column} = ?`, { includeBody: true }), [lookup.value]);
  return row;
}

/** A parsed report filter: every field is already checked. */
export interface ReportRowFilter {
  unread?: boolean;
  priority?: ReportPriority;
  tag?: string;
  since?: Date;
}

/** Newest first, at most `limit`. */
export async function listReportRows(
  em: Em,
  filter: ReportRowFilter,
  opts: { includeBody: boolean; limit: number },
): Promise<ReportRow[]> {
  const where = ["true"];
  const params: unknown[] = [];
  if (filter.unread !== undefined) where.push(filter.unread ? "r.read_at is null" : "r.read_at is not null");
  if (filter.priority !== undefined) {
    where.push("r.priority = ?");
    params.push(filter.priority);
  }
  if (filter.tag !== undefined) {
    where.push("r.tags @> ?::text[]");
    params.push(pgArray([filter.tag]));
  }
  if (filter.since !== undefined) {
    where.push("r.created_at >= ?::timestamptz");
    params.push(filter.since.toISOString());
  }
  return query<ReportRow>(em, reportSql(where.join(" and "), opts), params);
}

export async function countUnreadReportRows(em: Em): Promise<number> {
  const [row] = await query<{ count: string }>(em, `select count(*) as count from reports where read_at is null`);
  return Number(row.count);
}

/**
 * Inserts a report unless its short id is taken (then nothing happens and the
 * answer is false). clock_timestamp() keeps reports made in quick succession in order.
 */
export async function insertReport(
  em: Em,
  r: {
    id: string;
    shortId: string;
    title: string;
    body: string;
    priority: ReportPriority;
    tags: string[];
    author: string | null;
    actor: Actor;
  },
): Promise<boolean> {
  const inserted = await query(
    em,
    `insert into reports (id, short_id, title, body, priority, tags, author,
       created_by_type, created_by_id, created_by_name, created_at)
     values (?, ?, ?, ?, ?, ?::text[], ?, ?, ?, ?, clock_timestamp())
     on conflict (short_id) do nothing returning id`,
    [r.id, r.shortId, r.title, r.body, r.priority, pgArray(r.tags), r.author, r.actor.type, r.actor.id, r.actor.name],
  );
  return inserted.length > 0;
}

/** Marks a report read (keeping the first read_at) or unread again; returns its id, or undefined for none. */
export async function setReportRead(em: Em, lookup: NonNullable<IdLookup>, read: boolean): Promise<string | undefined> {
  const set = read ? "read_at = coalesce(read_at, now())" : "read_at = null";
  const rows = await query<{ id: string }>(em, `update reports set ${set} where ${lookup.column} = ? returning id`, [
    lookup.value,
  ]);
  return rows[0]?.id;
}

/** Marks every unread report read; returns how many there were. */
export async function markAllReportRowsRead(em: Em): Promise<number> {
  const [row] = await query<{ count: string }>(
    em,
    `with marked as (update reports set read_at = now() where read_at is null returning 1) select count(*) from marked`,
  );
  return Number(row.count);
}

export interface DeletedReportRow {
  id: string;
  short_id: string;
  title: string;
  created_by_name: string;
}

export async function deleteReportRow(em: Em, lookup: NonNullable<IdLookup>): Promise<DeletedReportRow | undefined> {
  const [row] = await query<DeletedReportRow>(
    em,
    `delete from reports where ${lookup.column} = ? returning id, short_id, title, created_by_name`,
    [lookup.value],
  );
  return row;
}
