import { REPORT_PRIORITIES, type ReportPriority } from "../db/entities/index.js";
import type { Em } from "../db/orm.js";
import { insertReportTransactions } from "../db/tables/report-transactions.js";
import {
  countUnreadReportRows,
  deleteReportRow,
  insertReport,
  listReportRows,
  markAllReportRowsRead,
  reportByLookup,
  setReportRead,
  type ReportRow,
  type ReportTransactionRef,
} from "../db/tables/reports.js";
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

/** A report as presented. Timestamps are UTC ISO 8601 text. */
export type ReportView = ReportRow;
export type { ReportTransactionRef };

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

/** A report by UUID or short id; anything else is NOT_FOUND. */
export async function getReport(em: Em, rawId: string): Promise<ReportView> {
  const lookup = parseId(rawId);
  const row = lookup ? await reportByLookup(em, lookup) : undefined;
  if (!row) throw notFound("Report");
  return row;
}

/** Newest first, every match up to REPORT_LIST_CAP; filters that do not parse are INVALID_PARAMETER. */
export async function listReports(
  em: Em,
  filter: ReportFilter,
  opts: { includeBody: boolean },
): Promise<{ reports: ReportView[]; truncated: boolean }> {
  const rows = await listReportRows(
    em,
    {
      unread: filter.unread,
      priority:
        filter.priority === undefined ? undefined : parsePriority(filter.priority, "priority", "INVALID_PARAMETER"),
      tag: filter.tag === undefined ? undefined : parseSlug(filter.tag, "tag", "INVALID_PARAMETER"),
      since: filter.since === undefined ? undefined : parseInstant(filter.since, "since"),
    },
    // One row past the cap tells whether the cap cut the list.
    { includeBody: opts.includeBody, limit: REPORT_LIST_CAP + 1 },
  );
  return { reports: rows.slice(0, REPORT_LIST_CAP), truncated: rows.length > REPORT_LIST_CAP };
}

export async function countUnreadReports(em: Em): Promise<number> {
  return countUnreadReportRows(em);
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
    // A short-id clash is retried.
    for (let attempt = 0; ; attempt++) {
      if (attempt === 5) throw new Error("could not allocate a unique short id for a report");
      const inserted = await insertReport(tx, {
        id: reportId,
        shortId: newShortId(),
        title: r.title,
        body: r.body,
        priority: r.priority,
        tags: r.tags,
        author: r.author,
        actor,
      });
      if (inserted) break;
    }
    if (found.length > 0) {
      await insertReportTransactions(
        tx,
        reportId,
        found.map((f) => f.id),
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
  const id = lookup ? await setReportRead(em, lookup, read) : undefined;
  if (!id) throw notFound("Report");
  return getReport(em, id);
}

/** Marks every unread report read; returns how many there were. */
export async function markAllReportsRead(em: Em): Promise<number> {
  return markAllReportRowsRead(em);
}

export async function deleteReport(em: Em, actor: Actor, rawId: string): Promise<void> {
  const lookup = parseId(rawId);
  if (!lookup) throw notFound("Report");
  await em.transactional(async (tx) => {
    const row = await deleteReportRow(tx, lookup);
    if (!row) throw notFound("Report");
    await recordAnnotation(tx, actor, {
      entityType: "report",
      entityId: row.id,
      action: "deleted",
      details: { report_id: row.short_id, title: row.title, created_by_name: row.created_by_name },
    });
  });
}
