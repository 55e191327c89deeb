import type { ConnectionStatus } from "../entities/index.js";
import type { IdLookup } from "../../ids/resolve-id.js";
import type { Em } from "../orm.js";
import { iso, pgArray, query } from "../sql.js";

/** A connection as the API shows it; references are short ids, timestamps UTC ISO text. */
export interface ConnectionRow {
  id: string;
  shortId: string;
  institutionName: string | null;
  institutionId: string | null;
  provider: string;
  status: ConnectionStatus;
  lastSyncedAt: string | null;
  errorCode: string | null;
  errorMessage: string | null;
  userId: string;
  userName: string;
  paused: boolean;
  createdAt: string;
  updatedAt: string;
  /** Rows the newest sync that skipped any could not store (0: none), the first 20 of them, and its log's short id. */
  warnings: number;
  warningRows: { row: string; reason: string; amount?: string }[];
  warningsSyncLogId: string | null;
}

// A CSV import has no institution at a provider: its institution id is its import key (the account name,
// trimmed, spaces collapsed, lower-cased), which stays the same however often the file is imported again.
const VIEW = `
  select c.id, c.short_id as "shortId", c.institution_name as "institutionName",
    case when c.provider = 'csv' then c.provider_item_id else c.institution_id end as "institutionId",
    c.provider, c.status, ${iso("c.last_synced_at")} as "lastSyncedAt",
    c.error_code as "errorCode", c.error_message as "errorMessage", u.short_id as "userId", u.name as "userName",
    c.paused, ${iso("c.created_at")} as "createdAt", ${iso("c.updated_at")} as "updatedAt",
    coalesce(w.skipped_count, 0) as warnings,
    coalesce((select jsonb_agg(x.elem order by x.n) from (select e.elem, e.n
      from jsonb_array_elements(w.skipped) with ordinality as e(elem, n) order by e.n limit 20) x), '[]'::jsonb)
      as "warningRows",
    w.short_id as "warningsSyncLogId"
  from connections c join users u on u.id = c.user_id
  -- The newest sync that skipped rows: what it could not store stays visible until a newer one skips some.
  left join lateral (
    select l.short_id, l.skipped_count, l.skipped from sync_logs l
    where l.connection_id = c.id and l.skipped_count > 0
    order by l.started_at desc, l.id desc limit 1
  ) w on true`;

/** Every connection, oldest first. */
export async function listConnectionRows(em: Em): Promise<ConnectionRow[]> {
  return query<ConnectionRow>(em, `${VIEW} order by c.created_at, c.id`);
}

export async function connectionRowByLookup(em: Em, lookup: NonNullable<IdLookup>): Promise<ConnectionRow | undefined> {
  const [row] = await query<ConnectionRow>(em, `${VIEW} where c.${lookup.column} = ?`, [lookup.value]);
  return row;
}

/** The id of the member's live connection to this provider login, locked for update. */
export async function lockLiveConnectionOf(
  em: Em,
  k: { userId: string; provider: string; providerItemId: string },
): Promise<string | undefined> {
  const [existing] = await query<{ id: string }>(
    em,
    `select id from connections
     where user_id = ? and provider = ? and provider_item_id = ? and status <> 'disconnected' for update`,
    [k.userId, k.provider, k.providerItemId],
  );
  return existing?.id;
}

/** New credentials for an existing login: a CSV connection's import starts again from the file's first row. */
export async function replaceConnectionEnrollment(
  em: Em,
  c: { id: string; credentials: Buffer | null; institutionId: string | null; institutionName: string | null },
): Promise<void> {
  await query(
    em,
    `update connections set credentials = ?, institution_id = ?, institution_name = ?, updated_at = now(),
       cursor = case when provider = 'csv' then null else cursor end
     where id = ?`,
    [c.credentials, c.institutionId, c.institutionName, c.id],
  );
}

export async function insertConnection(
  em: Em,
  c: {
    id: string;
    shortId: string;
    userId: string;
    provider: string;
    providerItemId: string;
    institutionId: string | null;
    institutionName: string | null;
    /** Null for a CSV connection: its files are csv_imports rows. */
    credentials: Buffer | null;
  },
): Promise<void> {
  await query(
    em,
    `insert into connections (id, short_id, user_id, provider, provider_item_id, institution_id,
       institution_name, credentials, status)
     values (?, ?, ?, ?, ?, ?, ?, ?, 'active')`,
    [c.id, c.shortId, c.userId, c.provider, c.providerItemId, c.institutionId, c.institutionName, c.credentials],
  );
}

export async function updateConnectionPaused(em: Em, id: string, paused: boolean): Promise<void> {
  await query(em, `update connections set paused = ?, updated_at = now() where id = ?`, [paused, id]);
}

/** After new credentials were stored: active again, and a CSV import starts from the file's first row. */
export async function reactivateConnection(em: Em, id: string): Promise<void> {
  await query(
    em,
    `update connections set status = 'active', error_code = null, error_message = null, updated_at = now(),
       repaired_at = now(), cursor = case when provider = 'csv' then null else cursor end
     where id = ?`,
    [id],
  );
}

export async function connectionOwner(em: Em, id: string): Promise<string> {
  const [owner] = await query<{ user_id: string }>(em, `select user_id from connections where id = ?`, [id]);
  return owner.user_id;
}

/** Disconnected: credentials and cursor wiped, no error. */
export async function markConnectionDisconnected(em: Em, id: string): Promise<void> {
  await query(
    em,
    `update connections set status = 'disconnected', credentials = null, cursor = null, error_code = null,
       error_message = null, updated_at = now()
     where id = ?`,
    [id],
  );
}

/** A connection's sealed credentials; undefined for no such connection, null once wiped. */
export async function connectionCredentials(em: Em, id: string): Promise<Buffer | null | undefined> {
  const rows = await query<{ credentials: Buffer | null }>(em, `select credentials from connections where id = ?`, [
    id,
  ]);
  return rows[0]?.credentials;
}

/** Replaces a connection's sealed credentials (null wipes them). Sent as a bind parameter: a CSV file is megabytes. */
export async function updateConnectionCredentials(em: Em, id: string, sealed: Buffer | null): Promise<void> {
  await query(em, `update connections set credentials = ? where id = ?`, [sealed, id]);
}

/** Every connection with stored credentials, locked for update, in id order. */
export async function lockConnectionsWithCredentials(
  em: Em,
): Promise<{ id: string; short_id: string; credentials: Buffer }[]> {
  return query<{ id: string; short_id: string; credentials: Buffer }>(
    em,
    `select id, short_id, credentials from connections where credentials is not null order by id for update`,
  );
}

/** What the schedule leaves out: connections that are paused, disconnected or waiting for a re-login. */
const SCHEDULED = `status in ('active', 'error') and not paused`;

/**
 * The connections the schedule syncs whose next sync is due within
 * `withinSeconds`, and how many seconds from now it is due (0: due now or
 * overdue). A sync is due `intervalSeconds` after the last one started
 * (last_attempt_at); a connection never tried is due now.
 */
export async function scheduledSyncsDueWithin(
  em: Em,
  now: Date,
  intervalSeconds: number,
  withinSeconds: number,
): Promise<{ id: string; waitSeconds: number }[]> {
  return query<{ id: string; waitSeconds: number }>(
    em,
    `select id,
            greatest(0, coalesce(extract(epoch from last_attempt_at + make_interval(secs => ?) - ?::timestamptz), 0))
              ::float8 as "waitSeconds"
     from connections
     where ${SCHEDULED}
       and (last_attempt_at is null
            or last_attempt_at < ?::timestamptz + make_interval(secs => ?) - make_interval(secs => ?))
     order by last_attempt_at nulls first`,
    [intervalSeconds, now, now, withinSeconds, intervalSeconds],
  );
}

/** Seconds until the connection's next scheduled sync is due (0: now); null when the schedule leaves it out. */
export async function secondsUntilScheduledSync(
  em: Em,
  id: string,
  now: Date,
  intervalSeconds: number,
): Promise<number | null> {
  const rows = await query<{ waitSeconds: number }>(
    em,
    `select greatest(0, coalesce(extract(epoch from last_attempt_at + make_interval(secs => ?) - ?::timestamptz), 0))
              ::float8 as "waitSeconds"
     from connections where id = ? and ${SCHEDULED}`,
    [intervalSeconds, now, id],
  );
  return rows[0]?.waitSeconds ?? null;
}

/** The live connections of a provider's logins (item ids), in id order. */
export async function liveConnectionIdsOfItems(em: Em, provider: string, itemIds: string[]): Promise<string[]> {
  const rows = await query<{ id: string }>(
    em,
    `select id from connections where provider = ? and provider_item_id = any(?::text[]) and status <> 'disconnected'
     order by id`,
    [provider, pgArray(itemIds)],
  );
  return rows.map((r) => r.id);
}

/**
 * The provider says these logins need repair, in a report signed at
 * `signedAt`. A report older than the connection's last successful sync (its
 * start) or its last repair is stale (the login has worked since) and changes
 * nothing. Signatures count whole seconds, so a report from the same second
 * is taken as new; so is a report without a time.
 */
export async function markConnectionsPendingReauth(
  em: Em,
  ids: string[],
  message: string,
  signedAt: Date | null,
): Promise<void> {
  await query(
    em,
    `update connections set status = 'pending_reauth', error_code = 'REAUTH_REQUIRED', error_message = ?,
       updated_at = now()
     where id = any(?::uuid[]) and status <> 'disconnected'
       and (?::timestamptz is null
         or ?::timestamptz >= date_trunc('second', coalesce(greatest(last_success_started_at, repaired_at),
           '-infinity')))`,
    [message, pgArray(ids), signedAt, signedAt],
  );
}

/** The provider says these logins were repaired. */
export async function markConnectionsRepaired(em: Em, ids: string[]): Promise<void> {
  await query(
    em,
    `update connections set status = 'active', error_code = null, error_message = null, updated_at = now(),
       repaired_at = now()
     where id = any(?::uuid[]) and status = 'pending_reauth'`,
    [pgArray(ids)],
  );
}

// A login reported broken (a webhook) after the sync started is not repaired by its success.
const BROKEN_SINCE = "c.status = 'pending_reauth' and c.updated_at > l.started_at";

/** A sync succeeded: the connection is `status` (healthy) unless a webhook reported it broken since the sync began. */
export async function markConnectionSynced(
  em: Em,
  c: { id: string; syncLogId: string; status: ConnectionStatus },
): Promise<void> {
  await query(
    em,
    `update connections c set
       status = case when ${BROKEN_SINCE} then c.status else ? end,
       error_code = case when ${BROKEN_SINCE} then c.error_code end,
       error_message = case when ${BROKEN_SINCE} then c.error_message end,
       last_synced_at = now(), last_success_started_at = l.started_at, updated_at = now()
     from sync_logs l
     where c.id = ? and l.id = ? and c.status <> 'disconnected'`,
    [c.status, c.id, c.syncLogId],
  );
}

/** A sync failed: the connection's status and error (unless it was disconnected meanwhile). */
export async function setConnectionError(
  em: Em,
  c: { id: string; status: ConnectionStatus; errorCode: string | null; errorMessage: string | null },
): Promise<void> {
  await query(
    em,
    `update connections set status = ?, error_code = ?, error_message = ?, updated_at = now()
     where id = ? and status <> 'disconnected'`,
    [c.status, c.errorCode, c.errorMessage, c.id],
  );
}

/** The sync cursor and status of a connection, locked for the page being written. */
export async function lockConnectionCursor(
  em: Em,
  id: string,
): Promise<{ cursor: string | null; status: string } | undefined> {
  const [conn] = await query<{ cursor: string | null; status: string }>(
    em,
    `select cursor, status from connections where id = ? for update`,
    [id],
  );
  return conn;
}

export async function updateConnectionCursor(em: Em, id: string, cursor: string | null): Promise<void> {
  await query(em, `update connections set cursor = ? where id = ?`, [cursor, id]);
}

/**
 * The live CSV connections still holding a file in their sealed credentials
 * (stored before csv_imports), locked for update; others moving them skip them.
 */
export async function lockSealedCsvConnections(
  em: Em,
): Promise<{ id: string; shortId: string; credentials: Buffer; cursor: string | null; status: ConnectionStatus }[]> {
  return query(
    em,
    `select id, short_id as "shortId", credentials, cursor, status from connections
     where provider = 'csv' and credentials is not null order by id for update skip locked`,
  );
}

/** How many CSV connections still hold a sealed file. */
export async function countSealedCsvConnections(em: Em): Promise<number> {
  const [row] = await query<{ n: number }>(
    em,
    `select count(*)::int as n from connections where provider = 'csv' and credentials is not null`,
  );
  return row.n;
}
