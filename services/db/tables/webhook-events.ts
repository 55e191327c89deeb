import type { WebhookEventStatus } from "../entities/index.js";
import type { IdLookup } from "../../ids/resolve-id.js";
import type { Em } from "../orm.js";
import { iso, pgArray, query } from "../sql.js";
import { timeOrdered, type TimeOrderedRows } from "./time-ordered.js";

/**
 * Stores a delivery. A second delivery of an accepted event (the same event
 * id, or for an event without one the same signed bytes: its replay key)
 * loses the race on the unique index: nothing is stored and the answer is null.
 */
export async function insertWebhookEvent(
  em: Em,
  e: {
    id: string;
    shortId: string;
    provider: string;
    eventId: string | null;
    eventType: string | null;
    status: WebhookEventStatus;
    reason: string | null;
    action: string | null;
    headers: Record<string, string>;
    body: Buffer;
    itemIds: string[];
    connectionIds: string[];
    replayKey: string | null;
    signedAt: Date | null;
  },
): Promise<string | null> {
  const rows = await query<{ id: string }>(
    em,
    `insert into webhook_events (id, short_id, provider, event_id, event_type, status, reason, action, headers,
       body, item_ids, connection_ids, replay_key, signed_at)
     values (?, ?, ?, ?, ?, ?, ?, ?, ?::jsonb, ?, ?::text[], ?::uuid[], ?, ?)
     on conflict (provider, (coalesce(event_id, replay_key)))
       where status = 'accepted' and coalesce(event_id, replay_key) is not null do nothing
     returning id`,
    [
      e.id,
      e.shortId,
      e.provider,
      e.eventId,
      e.eventType,
      e.status,
      e.reason,
      e.action,
      JSON.stringify(e.headers),
      e.body,
      pgArray(e.itemIds),
      pgArray(e.connectionIds),
      e.replayKey,
      e.signedAt,
    ],
  );
  return rows[0]?.id ?? null;
}

/** A stored event as the API shows it, before its body is read as JSON; connections by short id. */
export interface WebhookEventRow {
  id: string;
  shortId: string;
  provider: string;
  eventId: string | null;
  eventType: string | null;
  status: WebhookEventStatus;
  reason: string | null;
  action: string | null;
  connectionIds: string[];
  receivedAt: string;
  replayedAt: string | null;
  replayCount: number;
  body: Buffer;
}

const VIEW = `
  select w.id, w.short_id as "shortId", w.provider, w.event_id as "eventId", w.event_type as "eventType", w.status,
    w.reason, w.action,
    array(select c.short_id from connections c where c.id = any(w.connection_ids) order by c.short_id)
      as "connectionIds",
    ${iso("w.received_at")} as "receivedAt", ${iso("w.replayed_at")} as "replayedAt", w.replay_count as "replayCount",
    w.body
  from webhook_events w`;

/** These events (by UUID), newest first. */
export async function webhookEventRowsByIds(em: Em, ids: string[]): Promise<WebhookEventRow[]> {
  return query<WebhookEventRow>(em, `${VIEW} where w.id = any(?::uuid[]) order by w.received_at desc, w.id desc`, [
    pgArray(ids),
  ]);
}

const WITH_ITEMS = ', w.item_ids as "itemIds", w.signed_at as "signedAt"';

/** One event with the provider logins it named, and when the provider signed it (null: unknown). */
export async function webhookEventRowByLookup(
  em: Em,
  lookup: NonNullable<IdLookup>,
): Promise<(WebhookEventRow & { itemIds: string[]; signedAt: Date | null }) | undefined> {
  const [row] = await query<WebhookEventRow & { itemIds: string[]; signedAt: Date | null }>(
    em,
    `${VIEW.replace("from webhook_events w", `${WITH_ITEMS} from webhook_events w`)}
     where w.${lookup.column} = ?`,
    [lookup.value],
  );
  return row;
}

export async function markWebhookEventReplayed(em: Em, id: string, connectionIds: string[]): Promise<void> {
  await query(
    em,
    `update webhook_events set replayed_at = now(), replay_count = replay_count + 1, connection_ids = ?::uuid[]
     where id = ?`,
    [pgArray(connectionIds), id],
  );
}

/** Deletes events past their retention at `now` (`rejectedDays` for rejected and duplicate ones); returns how many. */
export async function deleteOldWebhookEvents(
  em: Em,
  now: Date,
  retention: { keptDays: number; rejectedDays: number },
): Promise<number> {
  const rows = await query<{ n: number }>(
    em,
    `with gone as (
       delete from webhook_events
       where received_at < ?::timestamptz - make_interval(days => ?)
          or (status in ('rejected', 'duplicate') and received_at < ?::timestamptz - make_interval(days => ?))
       returning 1)
     select count(*)::int as n from gone`,
    [now, retention.keptDays, now, retention.rejectedDays],
  );
  return rows[0].n;
}

/** Stored events newest first by receipt, of a provider and with a status when given. */
export function webhookEventsByReceipt(f: { provider?: string; status?: WebhookEventStatus }): TimeOrderedRows {
  const where: string[] = ["true"];
  const params: unknown[] = [];
  if (f.provider) {
    where.push("provider = ?");
    params.push(f.provider);
  }
  if (f.status) {
    where.push("status = ?");
    params.push(f.status);
  }
  return timeOrdered("webhook_events", "received_at", { sql: where.join(" and "), params });
}
