import type { SyncLogStatus, SyncTrigger } from "../db/entities/index.js";
import type { Em } from "../db/orm.js";
import { iso, pgArray, query } from "../db/sql.js";
import type { CursorKeyring } from "../pagination/cursor-keys.js";
import { timePage } from "../pagination/time-keyset.js";
import { resolveConnection } from "./connections.js";

/** One sync run as the API shows it. */
export interface SyncLogView {
  id: string;
  shortId: string;
  connectionId: string;
  provider: string;
  trigger: SyncTrigger;
  status: SyncLogStatus;
  startedAt: string;
  finishedAt: string | null;
  /** Null while the sync runs. */
  durationMs: number | null;
  pages: number;
  added: number;
  modified: number;
  removed: number;
  unchanged: number;
  skippedCount: number;
  /** The first rows the sync could not take, by position and reason. */
  skipped: { row: string; reason: string }[];
  errorCode: string | null;
  errorMessage: string | null;
}

/** Sync runs, newest first, paginated with the shared cursor; optionally of one connection. */
export async function listSyncLogs(
  em: Em,
  req: { connectionId?: string; limit?: number; cursor: string },
  keys: CursorKeyring,
): Promise<{ syncLogs: SyncLogView[]; nextCursor: string; hasMore: boolean }> {
  const connection = req.connectionId ? await resolveConnection(em, req.connectionId) : null;
  const page = await timePage(
    em,
    {
      table: "sync_logs",
      timeColumn: "started_at",
      where: connection ? "connection_id = ?" : "true",
      params: connection ? [connection.id] : [],
      filters: { connection_id: connection?.id ?? null },
      limit: req.limit,
      cursor: req.cursor,
    },
    keys,
  );
  const rows = page.ids.length
    ? await query<SyncLogView>(
        em,
        `select l.id, l.short_id as "shortId", c.short_id as "connectionId", c.provider, l.trigger, l.status,
           ${iso("l.started_at")} as "startedAt", ${iso("l.finished_at")} as "finishedAt",
           (extract(epoch from l.finished_at - l.started_at) * 1000)::bigint::int as "durationMs",
           l.pages, l.added, l.modified, l.removed, l.unchanged, l.skipped_count as "skippedCount", l.skipped,
           l.error_code as "errorCode", l.error_message as "errorMessage"
         from sync_logs l join connections c on c.id = l.connection_id
         where l.id = any(?::uuid[]) order by l.started_at desc, l.id desc`,
        [pgArray(page.ids)],
      )
    : [];
  return { syncLogs: rows, nextCursor: page.nextCursor, hasMore: page.hasMore };
}
