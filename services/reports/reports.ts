import { REPORT_PRIORITIES, type ReportPriority } from "../db/entities/index.js";
import type { Em } from "../db/orm.js";
import { iso, pgArray, query } from "../db/sql.js";
import { CofferError, notFound, validation } from "../errors/coffer-error.js";
import { parseId } from "../ids/resolve-id.js";
import { newShortId } from "../ids/short-id.js";
import type { Actor } from "../ledger/actor.js";
import { recordAnnotation } from "../ledger/annotations.js";
import { describeMissing, lookupTransactionIds } from "../ledger/transactions/batch-ids.js";
import { parseInstant, parseSlug, parseText, type InputErrorCode } from "../shared/validate.js";

// Reports are findings left for the household to read later: written mostly by
// agents, read by people. The household is one trust domain, so any full_access
// key may mark any report read or delete it. Creation and deletion are
// annotated (who deleted a report is kept after the row is gone); reading is
// not: read_at is the record of it.

export const MAX_TITLE_CHARS = 200;
export const MAX_BODY_CHARS = 50_000;
export const MAX_AUTHOR_CHARS = 100;
export const MAX_REPORT_TAGS = 10;
export const MAX_REPORT_TRANSACTIONS = 100;
/** A report list returns at most this many (the newest); `truncated` says when more matched. */
export const REPORT_LIST_CAP = 1000;

/** A transaction a report refers to: its short id, and whether it has been deleted since. */
export interface ReportTransactionRef {
  transactionId: string;
  deleted: boolean;
}

/** A report as presented. Timestamps are UTC ISO 8601 text. */
export interface ReportView {
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

export interface NewReport {
  title: string;
  body: string;
  priority?: string;
  tags?: readonly string[];
  author?: string | null;
  transactionIds?: readonly string[];
}

export interface ReportFilter {
  /** true: unread only; false: read only. */
  unread?: boolean;
  priority?: string;
  tag?: string;
  /** Created at or after this instant (see parseInstant). */
  since?: string;
}

export function parsePriority(raw: string, field = "priority", code: InputErrorCode = "VALIDATION_ERROR") {
  if (!(REPORT_PRIORITIES as readonly string[]).includes(raw)) {
    throw new CofferError(code, `${field} must be one of ${REPORT_PRIORITIES.join(", ")}`);
  }
  return raw as ReportPriority;
}

function parseTags(raw: readonly string[]): string[] {
  if (raw.length > MAX_REPORT_TAGS) {
    throw validation(`tags may list at most ${MAX_REPORT_TAGS} slugs (got ${raw.length})`);
  }
  return [...new Set(raw.map((t, i) => parseSlug(t, `tags[${i}]`)))];
}

/** The fields of a new report checked in order and in their normal form (transactions are resolved in the write). */
function parseNewReport(req: NewReport) {
  const title = parseText(req.title, "title", { max: MAX_TITLE_CHARS });
  const body = parseText(req.body, "body", { max: MAX_BODY_CHARS, markdown: true });
  const priority = req.priority ? parsePriority(req.priority) : ("info" as const);
  const tags = parseTags(req.tags ?? []);
  const author = req.author == null ? "" : parseText(req.author, "author", { min: 0, max: MAX_AUTHOR_CHARS });
  const transactionIds = req.transactionIds ?? [];
  if (transactionIds.length > MAX_REPORT_TRANSACTIONS) {
    throw validation(
      `transaction_ids may list at most ${MAX_REPORT_TRANSACTIONS} transactions (got ${transactionIds.length})`,
    );
  }
  return { title, body, priority, tags, author: author === "" ? null : author, transactionIds };
}

/** The SELECT every read shares: report columns named as ReportView's fields, and its transactions in order. */
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
    ${opts.limit === undefined ? "" : `limit ${opts.limit}`}`;
}

/** A report by UUID or short id; anything else is NOT_FOUND. */
export async function getReport(em: Em, rawId: string): Promise<ReportView> {
  const lookup = parseId(rawId);
  const rows = lookup
    ? await query<ReportView>(em, reportSql(`r.${lookup.column} = ?`, { includeBody: true }), [lookup.value])
    : [];
  if (rows.length === 0) throw notFound("Report");
  return rows[0];
}

/** Newest first, every match up to REPORT_LIST_CAP; filters that do not parse are INVALID_PARAMETER. */
export async function listReports(
  em: Em,
  filter: ReportFilter,
  opts: { includeBody: boolean },
): Promise<{ reports: ReportView[]; truncated: boolean }> {
  const where = ["true"];
  const params: unknown[] = [];
  if (filter.unread !== undefined) where.push(filter.unread ? "r.read_at is null" : "r.read_at is not null");
  if (filter.priority !== undefined) {
    where.push("r.priority = ?");
    params.push(parsePriority(filter.priority, "priority", "INVALID_PARAMETER"));
  }
  if (filter.tag !== undefined) {
    where.push("r.tags @> ?::text[]");
    params.push(pgArray([parseSlug(filter.tag, "tag", "INVALID_PARAMETER")]));
  }
  if (filter.since !== undefined) {
    where.push("r.created_at >= ?::timestamptz");
    params.push(parseInstant(filter.since, "since").toISOString());
  }
  // One row past the cap tells whether the cap cut the list.
  const rows = await query<ReportView>(
    em,
    reportSql(where.join(" and "), { includeBody: opts.includeBody, limit: REPORT_LIST_CAP + 1 }),
    params,
  );
  return { reports: rows.slice(0, REPORT_LIST_CAP), truncated: rows.length > REPORT_LIST_CAP };
}

export async function countUnreadReports(em: Em): Promise<number> {
  const [row] = await query<{ count: string }>(em, `select count(*) as count from reports where read_at is null`);
  return Number(row.count);
}

/**
 * Creates a report signed with the caller's key. Every field is checked first;
 * the transactions are resolved in the same database transaction as the insert,
 * and one that is unknown (or deleted) refuses the whole report, naming it.
 */
export async function createReport(em: Em, actor: Actor, req: NewReport): Promise<ReportView> {
  const r = parseNewReport(req);
  const id = await em.transactional(async (tx) => {
    const { found, missing } = await lookupTransactionIds(tx, r.transactionIds);
    if (missing.length > 0) throw validation(`transaction_ids: ${describeMissing(missing)}`);
    const reportId = crypto.randomUUID();
    // clock_timestamp() keeps reports made in quick succession in order; a short-id clash is retried.
    for (let attempt = 0; ; attempt++) {
      if (attempt === 5) throw new Error("could not allocate a unique short id for a report");
      const inserted = await query(
        tx,
        `insert into reports (id, short_id, title, body, priority, tags, author,
           created_by_type, created_by_id, created_by_name, created_at)
         values (?, ?, ?, ?, ?, ?::text[], ?, ?, ?, ?, clock_timestamp())
         on conflict (short_id) do nothing returning id`,
        [
          reportId,
          newShortId(),
          r.title,
          r.body,
          r.priority,
          pgArray(r.tags),
          r.author,
          actor.type,
          actor.id,
          actor.name,
        ],
      );
      if (inserted.length > 0) break;
    }
    if (found.length > 0) {
      await query(
        tx,
        `insert into report_transactions (report_id, transaction_id, position)
         select ?, t.id, t.n - 1 from unnest(?::uuid[]) with ordinality as t(id, n)`,
        [reportId, pgArray(found.map((f) => f.id))],
      );
    }
    await recordAnnotation(tx, actor, {
      entityType: "report",
      entityId: reportId,
      action: "created",
      details: { title: r.title, priority: r.priority, transaction_ids: found.map((f) => f.shortId) },
    });
    return reportId;
  });
  return getReport(em, id);
}

/** Marks a report read (keeping the first read_at) or unread again. */
export async function markReport(em: Em, rawId: string, read: boolean): Promise<ReportView> {
  const lookup = parseId(rawId);
  const set = read ? "read_at = coalesce(read_at, now())" : "read_at = null";
  const rows = lookup
    ? await query<{ id: string }>(em, `update reports set ${set} where ${lookup.column} = ? returning id`, [
        lookup.value,
      ])
    : [];
  if (rows.length === 0) throw notFound("Report");
  return getReport(em, rows[0].id);
}

/** Marks every unread report read; returns how many there were. */
export async function markAllReportsRead(em: Em): Promise<number> {
  const [row] = await query<{ count: string }>(
    em,
    `with marked as (update reports set read_at = now() where read_at is null returning 1) select count(*) from marked`,
  );
  return Number(row.count);
}

export async function deleteReport(em: Em, actor: Actor, rawId: string): Promise<void> {
  const lookup = parseId(rawId);
  if (!lookup) throw notFound("Report");
  await em.transactional(async (tx) => {
    const rows = await query<{ id: string; short_id: string; title: string; created_by_name: string }>(
      tx,
      `delete from reports where ${lookup.column} = ? returning id, short_id, title, created_by_name`,
      [lookup.value],
    );
    if (rows.length === 0) throw notFound("Report");
    await recordAnnotation(tx, actor, {
      entityType: "report",
      entityId: rows[0].id,
      action: "deleted",
      details: { report_id: rows[0].short_id, title: rows[0].title, created_by_name: rows[0].created_by_name },
    });
  });
}
