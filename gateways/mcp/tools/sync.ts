import { z } from "zod";
import {
  connectionJson,
  connectionShape,
  listedConnection,
  listedShape,
  pendingSyncJson,
  pendingSyncShape,
} from "../../shared/connection-json.js";
import { defineTool, type ToolDef } from "../tool.js";

/** What every connection tool says about the objects it returns (the REST presenter's, unchanged). */
const FIELDS =
  "Each connection is its REST object: id (UUID) and short_id (either is accepted wherever a connection id is " +
  "taken), institution_name, institution_id, provider (plaid, teller, simplefin or csv), status (active: " +
  "syncing normally; error: the last sync failed, see error_code and error_message; pending_reauth: the bank " +
  "needs the person to log in again; disconnected), last_synced_at (when the last successful sync ended), " +
  "user_id (the owner's short id), user_name, created_at, updated_at, warnings (rows the newest sync that " +
  "skipped any could not store, e.g. an amount that is not a whole number of cents; 0 when none — the " +
  "connection stays active, everything else was stored), warning_rows (the first 20 of those rows: row, " +
  "reason, amount as the provider wrote it) and warnings_sync_log_id (the short id of the sync log that " +
  "skipped them).";

export const getSyncStatus = defineTool({
  name: "get_sync_status",
  title: "Sync status",
  description:
    "Every bank connection with its provider, sync state, last successful sync time and error details: the " +
    "same array as GET /api/v1/connections, in `connections`. Use it to tell whether the data is fresh. " +
    FIELDS,
  readOnly: true,
  inputSchema: {},
  outputSchema: { connections: z.array(listedShape) },
  async handler(core, opts) {
    const r = await core.connections.listConnections({}, opts);
    return { connections: r.connections.map(listedConnection) };
  },
});

export const listConnections = defineTool({
  name: "list_connections",
  title: "List connections",
  description:
    "The household's bank connections (one login at Plaid, Teller, SimpleFIN, or a CSV account), each as GET " +
    "/api/v1/connections/{id} shows it: with its owner, state, and whether its scheduled syncs are paused. " +
    "trigger_sync takes their id or short_id. " +
    FIELDS,
  readOnly: true,
  inputSchema: {},
  outputSchema: { connections: z.array(connectionShape) },
  async handler(core, opts) {
    const r = await core.connections.listConnections({}, opts);
    return { connections: r.connections.map(connectionJson) };
  },
});

export const triggerSync = defineTool({
  name: "trigger_sync",
  title: "Sync a connection now",
  description:
    "Queues a sync of one connection (it runs even when the connection is paused); the result shows up in " +
    "get_sync_status once it ends. A sync already waiting to start or to retry answers the request instead " +
    "(already_pending: true). Returns what POST /api/v1/connections/{id}/sync returns. Needs a full_access key.",
  readOnly: false,
  inputSchema: { id: z.string().min(1).describe("connection id: the UUID or the short id (see list_connections)") },
  outputSchema: {
    status: z.literal("queued"),
    already_pending: z
      .boolean()
      .describe("true when a sync was already waiting to start or to retry: it answers this request, none is added"),
    sync: pendingSyncShape.describe("the sync that answers the request (null once it has started)"),
    connection: connectionShape,
  },
  async handler(core, opts, args) {
    const r = await core.connections.syncConnection({ id: args.id }, opts);
    return {
      status: "queued" as const,
      already_pending: !r.queued,
      sync: pendingSyncJson(r),
      connection: connectionJson(r.connection!),
    };
  },
});

export const syncTools: ToolDef[] = [getSyncStatus, listConnections, triggerSync];
