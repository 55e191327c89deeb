import type { SyncTrigger, WebhookEventStatus } from "../db/entities/index.js";
import type { Em } from "../db/orm.js";
import {
  liveConnectionIdsOfItems,
  markConnectionsPendingReauth,
  markConnectionsRepaired,
} from "../db/tables/connections.js";
import {
  insertWebhookEvent,
  markWebhookEventReplayed,
  webhookEventRowByLookup,
  webhookEventRowsByIds,
  webhookEventsByReceipt,
  type WebhookEventRow,
} from "../db/tables/webhook-events.js";
import { CofferError, notFound } from "../errors/coffer-error.js";
import { retryOnShortIdClash } from "../ids/insert.js";
import { parseId } from "../ids/resolve-id.js";
import { newShortId } from "../ids/short-id.js";
import type { CursorKeyring } from "../pagination/cursor-keys.js";
import { timePage } from "../pagination/time-keyset.js";
import { providerFailure } from "./connections.js";
import { ProviderError, type WebhookEvent } from "./providers/provider.js";
import { parseText } from "../shared/validate.js";
import type { ProviderRegistry } from "./registry.js";

export interface WebhookDeps {
  registry: ProviderRegistry;
  requestSync(connectionId: string, trigger: SyncTrigger): Promise<void>;
}

/** A stored event as the API shows it: the row, its body read as JSON. */
export type WebhookEventView = Omit<WebhookEventRow, "body"> & {
  /** The body, when it is a JSON object (every provider's is); null otherwise. */
  payload: Record<string, unknown> | null;
};

const WEBHOOK_EVENT_STATUSES: readonly WebhookEventStatus[] = ["accepted", "duplicate", "rejected", "ignored"];

/** Headers never stored with an event, whoever sends them. */
const UNSTORED_HEADERS = new Set(["authorization", "cookie", "x-api-key", "proxy-authorization"]);

interface Received {
  provider: string;
  headers: Record<string, string>;
  body: Buffer;
}

async function store(
  em: Em,
  r: Received,
  e: {
    status: WebhookEventStatus;
    reason?: string | null;
    event?: WebhookEvent;
    connectionIds?: string[];
  },
): Promise<string | null> {
  const headers = Object.fromEntries(Object.entries(r.headers).filter(([k]) => !UNSTORED_HEADERS.has(k.toLowerCase())));
  const id = crypto.randomUUID();
  // A second delivery of an accepted event id is not stored (null): it is a duplicate.
  return retryOnShortIdClash(() =>
    em.transactional((sp) =>
      insertWebhookEvent(sp, {
        id,
        shortId: newShortId(),
        provider: r.provider,
        eventId: e.event?.eventId ?? null,
        eventType: e.event?.type ?? null,
        status: e.status,
        reason: e.reason ?? null,
        action: e.event?.action ?? null,
        headers,
        body: r.body,
        itemIds: e.event?.providerItemIds ?? [],
        connectionIds: e.connectionIds ?? [],
        replayKey: e.event?.replayKey ?? null,
        signedAt: e.event?.signedAt ?? null,
      }),
    ),
  );
}

async function connectionsOf(em: Em, provider: string, itemIds: string[]): Promise<string[]> {
  if (itemIds.length === 0) return [];
  return liveConnectionIdsOfItems(em, provider, itemIds);
}

/**
 * Does what a verified event asks of the connections it names. A report that
 * a login broke, signed before the connection's last successful sync or
 * repair, is stale and changes nothing (services/db/tables/connections.ts).
 */
async function act(
  em: Em,
  deps: WebhookDeps,
  event: Pick<WebhookEvent, "action" | "type" | "signedAt">,
  ids: string[],
) {
  if (ids.length === 0 || event.action === "none") return;
  if (event.action === "reauth_required") {
    await markConnectionsPendingReauth(
      em,
      ids,
      `The provider reported that the bank login needs repair (${event.type})`,
      event.signedAt ?? null,
    );
    return;
  }
  if (event.action === "repaired") {
    await markConnectionsRepaired(em, ids);
  }
  for (const id of ids) await deps.requestSync(id, "webhook");
}

/**
 * An inbound provider webhook. The provider's client verifies the signature
 * over the raw body; every delivery is stored, verified or not. A bad
 * signature is 401 INVALID_SIGNATURE and changes nothing else. A verified
 * event is acted on (queue a sync, mark a login as needing repair, or as
 * repaired) for the live connections it names; a second delivery of the same
 * event id, or of the same signed bytes (a replay), is stored as a duplicate
 * and not acted on again.
 */
export async function receiveWebhook(
  em: Em,
  deps: WebhookDeps,
  r: Received,
): Promise<{ id: string | null; status: WebhookEventStatus }> {
  const known = deps.registry.get(r.provider);
  if (!known.verifyWebhook) throw new CofferError("NOT_FOUND", `Provider ${known.name} sends no webhooks`);
  const provider = deps.registry.configured(r.provider);
  if (!provider.verifyWebhook) throw new CofferError("NOT_FOUND", `Provider ${provider.name} sends no webhooks`);
  let event: WebhookEvent;
  try {
    event = await provider.verifyWebhook(r.headers, r.body);
  } catch (e) {
    if (!(e instanceof ProviderError)) throw e;
    await store(em, r, { status: "rejected", reason: `${e.code}: ${e.message}` });
    if (e.failure === "invalid_input") throw new CofferError("INVALID_SIGNATURE", e.message);
    return providerFailure(provider.name, e);
  }
  const connectionIds = await connectionsOf(em, provider.name, event.providerItemIds);
  const status: WebhookEventStatus = connectionIds.length === 0 && event.action !== "none" ? "ignored" : "accepted";
  const reason = status === "ignored" ? "no live connection has the login this event names" : null;
  const id = await store(em, r, { status, reason, event, connectionIds });
  if (id === null) {
    return {
      id: await store(em, r, {
        status: "duplicate",
        reason: event.eventId
          ? "this event id was received before"
          : "this signed delivery was received before (a replay)",
        event,
      }),
      status: "duplicate",
    };
  }
  await act(em, deps, event, connectionIds);
  return { id, status };
}

type Row = WebhookEventRow;

function present(r: Row): WebhookEventView {
  const { body, ...rest } = r;
  let payload: unknown;
  try {
    payload = JSON.parse(body.toString("utf8"));
  } catch {
    payload = null;
  }
  const isObject = typeof payload === "object" && payload !== null && !Array.isArray(payload);
  return { ...rest, payload: isObject ? (payload as Record<string, unknown>) : null };
}

/** Stored webhook events, newest first, paginated; filtered by provider and status. */
export async function listWebhookEvents(
  em: Em,
  req: { provider?: string; status?: string; limit?: number; cursor: string },
  keys: CursorKeyring,
): Promise<{ events: WebhookEventView[]; nextCursor: string; hasMore: boolean }> {
  const provider = parseText(req.provider, "provider", { min: 0, max: 64 }, "INVALID_PARAMETER");
  if (req.status && !WEBHOOK_EVENT_STATUSES.includes(req.status as WebhookEventStatus)) {
    throw new CofferError("INVALID_PARAMETER", "status must be one of accepted, duplicate, rejected, ignored");
  }
  const page = await timePage(
    em,
    {
      rows: webhookEventsByReceipt({
        provider: provider || undefined,
        status: (req.status || undefined) as WebhookEventStatus | undefined,
      }),
      filters: { provider: req.provider ?? null, status: req.status ?? null },
      limit: req.limit,
      cursor: req.cursor,
    },
    keys,
  );
  const rows = page.ids.length ? await webhookEventRowsByIds(em, page.ids) : [];
  return { events: rows.map(present), nextCursor: page.nextCursor, hasMore: page.hasMore };
}

async function resolveEvent(em: Em, raw: string): Promise<Row & { itemIds: string[]; signedAt: Date | null }> {
  const lookup = parseId(raw);
  const row = lookup ? await webhookEventRowByLookup(em, lookup) : undefined;
  if (!row) throw notFound("Webhook event");
  return row;
}

export async function getWebhookEvent(em: Em, raw: string): Promise<WebhookEventView> {
  const { itemIds: _, signedAt: __, ...row } = await resolveEvent(em, raw);
  return present(row);
}

/**
 * Does again what a verified event asked (for the connections that now have
 * its login), without checking its signature again: it was checked when the
 * event arrived, and signatures expire within minutes. A rejected or
 * duplicate event is not replayed (409).
 */
export async function replayWebhookEvent(em: Em, deps: WebhookDeps, raw: string): Promise<WebhookEventView> {
  const ev = await resolveEvent(em, raw);
  if (ev.status === "rejected" || ev.status === "duplicate") {
    throw new CofferError("CONFLICT", `A ${ev.status} webhook event is not replayed; only verified events are`);
  }
  const connectionIds = await connectionsOf(em, ev.provider, ev.itemIds);
  await markWebhookEventReplayed(em, ev.id, connectionIds);
  await act(
    em,
    deps,
    { action: (ev.action ?? "none") as WebhookEvent["action"], type: ev.eventType ?? "", signedAt: ev.signedAt },
    connectionIds,
  );
  return getWebhookEvent(em, ev.id);
}
