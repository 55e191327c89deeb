import type { SyncLogStatus, SyncTrigger } from "../entities/index.js";
import type { Em } from "../orm.js";
import { iso, pgArray, query } from "../sql.js";
import { timeOrdered, type TimeOrderedRows } from "./time-ordered.js";

/** A row a sync could not take (services/sync/providers/provider.ts SkippedRow). */
export interface LoggedSkip {
  row: string;
  reason: string;
  amount?: string;
}

/** One sync run as the API shows it. */
export interface SyncLogRow {
  id: string;
  shortId: string;
  connectionId: string;
  provider: string;
  trigger: SyncTrigger;
  status: SyncLogStatus;
  startedAt: string;
  finishedAt: string | null;
  durationMs: number | null;
  pages: number;
  added: number;
  modified: number;
  removed: number;
  unchanged: number;
  skippedCount: number;
  /** The first rows the sync could not take, by position and reason. */
  skipped: LoggedSkip[];
  errorCode: string | null;
  errorMessage: string | null;
}

/** These sync logs (by UUID), newest first, with their connection's short id and provider. */
export async function syncLogRowsByIds(em: Em, ids: string[]): Promise<SyncLogRow[]> {
  return query<SyncLogRow>(
    em,
    `select l.id, l.short_id as "shortId", c.short_id as "connectionId", c.provider, l.trigger, l.status,
       ${iso("l.started_at")} as "startedAt", ${iso("l.finished_at")} as "finishedAt",
       (extract(epoch from l.finished_at - l.started_at) * 1000)::bigint::int as "durationMs",
       l.pages, l.added, l.modified, l.removed, l.unchanged, l.skipped_count as "skippedCount", l.skipped,
       l.error_code as "errorCode", l.error_message as "errorMessage"
     from sync_logs l join connections c on c.id = l.connection_id
     where l.id = any(?::uuid[]) order by l.started_at desc, l.id desc`,
    [pgArray(ids)],
  );
}

/**
 * Ends the connection's logs still "running": their sync's process died (the
 * caller holds the sync lock). Returns the trigger of the newest one, or null
 * when there was none.
 */
export async function interruptRunningSyncLogs(em: Em, connectionId: string): Promise<SyncTrigger | null> {
  const rows = await query<{ trigger: SyncTrigger }>(
    em,
    `with ended as (
       update sync_logs set status = 'interrupted', finished_at = now(), error_code = 'INTERRUPTED',
         error_message = 'The sync stopped before it finished (its process ended); '
           || 'the next sync continued from its last committed page'
       where connection_id = ? and status = 'running'
       returning trigger, started_at)
     select trigger from ended order by started_at desc limit 1`,
    [connectionId],
  );
  return rows[0]?.trigger ?? null;
}

/** The connections with a sync log still "running" (a sync in progress, or one whose process died). */
export async function connectionsWithRunningSyncLogs(em: Em): Promise<string[]> {
  const rows = await query<{ id: string }>(
    em,
    `select distinct connection_id as id from sync_logs where status = 'running' order by 1`,
  );
  return rows.map((r) => r.id);
}

/** Starts a sync log, and stamps the connection's last_attempt_at in the same statement. */
export async function startSyncLog(
  em: Em,
  l: { id: string; shortId: string; connectionId: string; trigger: SyncTrigger },
): Promise<void> {
  await query(
    em,
    `with attempt as (update connections set last_attempt_at = now() where id = ?)
     insert into sync_logs (id, short_id, connection_id, trigger, status, started_at)
     values (?, ?, ?, ?, 'running', now())`,
    [l.connectionId, l.id, l.shortId, l.connectionId, l.trigger],
  );
}

/** Adds rows the sync could not take: their count, and the first of them (`logged`) by position and reason. */
export async function addSyncLogSkips(
  em: Em,
  id: string,
  skips: { count: number; logged: LoggedSkip[] },
): Promise<void> {
  await query(
    em,
    `update sync_logs set skipped_count = skipped_count + ?, skipped = skipped || ?::jsonb where id = ?`,
    [skips.count, JSON.stringify(skips.logged), id],
  );
}

/** Adds one written page's counts. */
export async function addSyncLogPage(
  em: Em,
  id: string,
  page: {
    /** Provider pages committed together. */
    pages: number;
    added: number;
    modified: number;
    removed: number;
    unchanged: number;
    skipped: number;
    logged: LoggedSkip[];
  },
): Promise<void> {
  await query(
    em,
    `update sync_logs set pages = pages + ?, added = added + ?, modified = modified + ?, removed = removed + ?,
       unchanged = unchanged + ?, skipped_count = skipped_count + ?, skipped = skipped || ?::jsonb
     where id = ?`,
    [
      page.pages,
      page.added,
      page.modified,
      page.removed,
      page.unchanged,
      page.skipped,
      JSON.stringify(page.logged),
      id,
    ],
  );
}

export async function endSyncLog(
  em: Em,
  id: string,
  status: "success" | "error" | "interrupted",
  error: { code: string; message: string } | null,
): Promise<void> {
  await query(
    em,
    `update sync_logs set status = ?, finished_at = now(), error_code = ?, error_message = ? where id = ?`,
    [status, error?.code ?? null, error?.message ?? null, id],
  );
}

/**
 * Deletes finished logs started more than `days` before `now`, keeping each
 * connection's newest; returns how many went.
 */
export async function deleteOldSyncLogs(em: Em, now: Date, days: number): Promise<number> {
  const rows = await query<{ n: number }>(
    em,
    `with gone as (
       delete from sync_logs l
       where l.status <> 'running' and l.started_at < ?::timestamptz - make_interval(days => ?)
         and exists (select 1 from sync_logs n
                     where n.connection_id = l.connection_id and (n.started_at, n.id) > (l.started_at, l.id))
       returning 1)
     select count(*)::int as n from gone`,
    [now, days],
  );
  return rows[0].n;
}

/** Sync logs newest first by start, of one connection or of all. */
export const syncLogsByStart = (connectionId: string | null): TimeOrderedRows =>
  timeOrdered(
    "sync_logs",
    "started_at",
    connectionId ? { sql: "connection_id = ?", params: [connectionId] } : { sql: "true", params: [] },
  );
