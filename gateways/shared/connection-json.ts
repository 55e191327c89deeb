import { z } from "zod";
import { timestampDate } from "@bufbuild/protobuf/wkt";
import { ConnectionSchema, type Connection, type SyncConnectionResponse } from "../../gen/coffer/v1/sync_pb.js";
import { restShapeOf, toRest } from "./rest-json.js";

/** The fields of a connection in GET /api/v1/connections (and MCP's get_sync_status): exactly these, in order. */
const LISTED = [
  "id",
  "short_id",
  "institution_name",
  "institution_id",
  "provider",
  "status",
  "last_synced_at",
  "error_code",
  "error_message",
  "user_id",
  "user_name",
  "created_at",
  "updated_at",
  "warnings",
  "warning_rows",
  "warnings_sync_log_id",
] as const;

/** A connection as the listing shows it: REST's presenter, projected to the listed fields. */
export function listedConnection(c: Connection) {
  const all = toRest(ConnectionSchema, c);
  return Object.fromEntries(LISTED.map((k) => [k, all[k]]));
}

/** The listing's shape: each field as restShapeOf(ConnectionSchema) describes it. */
export const listedShape = z.object(Object.fromEntries(LISTED.map((k) => [k, restShapeOf(ConnectionSchema).shape[k]])));

/** A single connection (GET /connections/{id}, every write, MCP's list_connections): the listing and `paused`. */
export const connectionJson = (c: Connection) => ({ ...listedConnection(c), paused: c.paused });

/** connectionJson's shape. */
export const connectionShape = listedShape.extend({ paused: z.boolean() });
/** The sync that answers a "Sync now" (REST `POST …/sync`, MCP `trigger_sync`): one already waiting, or the new one. */
export const pendingSyncShape = z
  .object({
    state: z.enum(["waiting", "retrying"]),
    requested_at: z.iso.datetime(),
    next_attempt_at: z.iso.datetime(),
    retries: z.number().int(),
  })
  .nullable();

export function pendingSyncJson(r: SyncConnectionResponse): z.infer<typeof pendingSyncShape> {
  const s = r.sync;
  if (!s) return null;
  return {
    state: s.state as "waiting" | "retrying",
    requested_at: timestampDate(s.requestedAt!).toISOString(),
    next_attempt_at: timestampDate(s.nextAttemptAt!).toISOString(),
    retries: s.retries,
  };
}
