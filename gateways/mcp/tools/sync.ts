import { z } from "zod";
import { CONNECTION_STATUSES } from "../../../common/enums.js";
import { connectionJson, listedConnection, pendingSyncJson, pendingSyncShape } from "../../shared/connection-json.js";
import { asMcp } from "../../shared/rest-json.js";
import { defineTool, type ToolDef } from "../tool.js";

const status = z.enum(CONNECTION_STATUSES);

/**
 * A connection as GET /api/v1/connections lists it (the same presenter), with `id` the short id
 * (asMcp). The fields are described here for agents; the server checks every result against them.
 */
const connection = z.object({
  id: z.string().describe("short id of the connection"),
  short_id: z.string(),
  institution_name: z.string(),
  institution_id: z.string().describe("the provider's institution id; a CSV import's account name as its import key"),
  provider: z.string().describe("plaid, teller, simplefin or csv"),
  status: status.describe(
    "active (syncing normally), error (the last sync failed; see error_code/error_message), " +
      "pending_reauth (the bank needs the person to log in again), disconnected",
  ),
  last_synced_at: z.string().nullable().describe("when the last successful sync ended"),
  error_code: z.string().nullable(),
  error_message: z.string().nullable(),
  user_id: z.string().describe("short id of the owner"),
  user_name: z.string(),
  created_at: z.string(),
  updated_at: z.string(),
  warnings: z
    .number()
    .int()
    .describe(
      "rows the newest sync that skipped any could not store (e.g. an amount that is not a whole number of " +
        "cents); 0 when none. The connection stays active: everything else was stored",
    ),
  warning_rows: z
    .array(z.object({ row: z.string(), reason: z.string(), amount: z.string().nullable() }))
    .describe("the first 20 of those rows: where, why, and the amount as the provider wrote it"),
  warnings_sync_log_id: z.string().nullable().describe("short id of the sync log that skipped them"),
});

export const getSyncStatus = defineTool({
  name: "get_sync_status",
  title: "Sync status",
  description:
    "Every bank connection with its provider, sync state, last successful sync time and error details " +
    "(the same list as GET /api/v1/connections). Use it to tell whether the data is fresh.",
  readOnly: true,
  inputSchema: {},
  outputSchema: { connections: z.array(connection) },
  async handler(core, opts) {
    const r = await core.connections.listConnections({}, opts);
    return { connections: r.connections.map((c) => asMcp(listedConnection(c)) as z.input<typeof connection>) };
  },
});

export const listConnections = defineTool({
  name: "list_connections",
  title: "List connections",
  description:
    "The household's bank connections (one login at Plaid, Teller, SimpleFIN, or a CSV account), each with " +
    "its owner, state, and whether its scheduled syncs are paused. Their ids are what trigger_sync takes.",
  readOnly: true,
  inputSchema: {},
  outputSchema: { connections: z.array(connection.extend({ paused: z.boolean() })) },
  async handler(core, opts) {
    const r = await core.connections.listConnections({}, opts);
    return {
      connections: r.connections.map(
        (c) => asMcp(connectionJson(c)) as z.input<typeof connection> & { paused: boolean },
      ),
    };
  },
});

export const triggerSync = defineTool({
  name: "trigger_sync",
  title: "Sync a connection now",
  description:
    "Queues a sync of one connection (it runs even when the connection is paused); the result shows up in " +
    "get_sync_status once it ends. A sync already waiting to start or to retry answers the request instead " +
    "(already_pending: true). Needs a full_access key.",
  readOnly: false,
  inputSchema: { id: z.string().min(1).describe("connection id: the short id or the UUID (see list_connections)") },
  outputSchema: {
    status: z.literal("queued"),
    already_pending: z
      .boolean()
      .describe("true when a sync was already waiting to start or to retry: it answers this request, none is added"),
    sync: pendingSyncShape.describe("the sync that answers the request (null once it has started)"),
    connection: connection,
  },
  async handler(core, opts, args) {
    const r = await core.connections.syncConnection({ id: args.id }, opts);
    return {
      status: "queued" as const,
      already_pending: !r.queued,
      sync: pendingSyncJson(r),
      connection: asMcp(listedConnection(r.connection!)) as z.input<typeof connection>,
    };
  },
});

export const syncTools: ToolDef[] = [getSyncStatus, listConnections, triggerSync];
