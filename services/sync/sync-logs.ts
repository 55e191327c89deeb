import type { Em } from "../db/orm.js";
import { syncLogRowsByIds, syncLogsByStart, type SyncLogRow } from "../db/tables/sync-logs.js";
import type { CursorKeyring } from "../pagination/cursor-keys.js";
import { timePage } from "../pagination/time-keyset.js";
import { resolveConnection } from "./connections.js";

/** One sync run as the API shows it. */
export type SyncLogView = SyncLogRow;

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
      rows: syncLogsByStart(connection?.id ?? null),
      filters: { connection_id: connection?.id ?? null },
      limit: req.limit,
      cursor: req.cursor,
    },
    keys,
  );
  const rows = page.ids.length ? await syncLogRowsByIds(em, page.ids) : [];
  return { syncLogs: rows, nextCursor: page.nextCursor, hasMore: page.hasMore };
}
