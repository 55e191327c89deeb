import { CONNECTION_STATUSES } from "../../../common/enums.js";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { z } from "zod";
import type { Connection } from "../../../gen/coffer/v1/sync_pb.js";
import { defineTool, type ToolDef } from "../tool.js";

const status = z.enum(CONNECTION_STATUSES);

/** A connection as GET /api/v1/connections lists it, with `id` as the short id (as in every tool's output). */
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
});

const iso = (t: Connection["createdAt"]) => (t ? timestampDate(t).toISOString() : null);

function present(c: Connection): z.input<typeof connection> {
  return {
    id: c.shortId,
    short_id: c.shortId,
    institution_name: c.institutionName,
    institution_id: c.institutionId,
    provider: c.provider,
    status: status.parse(c.status),
    last_synced_at: iso(c.lastSyncedAt),
    error_code: c.errorCode ?? null,
    error_message: c.errorMessage ?? null,
    user_id: c.userId,
    user_name: c.userName,
    created_at: iso(c.createdAt)!,
    updated_at: iso(c.updatedAt)!,
  };
}

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
    return { connections: (await core.connections.listConnections({}, opts)).connections.map(present) };
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
    return { connections: r.connections.map((c) => ({ ...present(c), paused: c.paused })) };
  },
});

export const triggerSync = defineTool({
  name: "trigger_sync",
  title: "Sync a connection now",
  description:
    "Queues a sync of one connection (it runs even when the connection is paused); the result shows up in " +
    "get_sync_status once it ends. Needs a full_access key.",
  readOnly: false,
  inputSchema: { id: z.string().min(1).describe("connection id: the short id or the UUID (see list_connections)") },
  outputSchema: { status: z.literal("queued"), connection: connection },
  async handler(core, opts, args) {
    const r = await core.connections.syncConnection({ id: args.id }, opts);
    return { status: "queued" as const, connection: present(r.connection!) };
  },
});

export const syncTools: ToolDef[] = [getSyncStatus, listConnections, triggerSync];
