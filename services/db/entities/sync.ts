import { defineEntity, type InferEntity } from "@mikro-orm/core";
import { randomUUID } from "node:crypto";
import { nowOf } from "../../clock.js";

// Entities for the sync tables (migration 0008). Pages of transactions are
// written with SQL (services/sync/apply-page.ts); these are for single rows.

import { CONNECTION_STATUSES } from "../../../common/enums.js";
export { CONNECTION_STATUSES };
export type ConnectionStatus = (typeof CONNECTION_STATUSES)[number];

/**
 * A connection. Its `credentials` column (AES-256-GCM ciphertext, null once
 * disconnected) is deliberately not mapped: only services/sync reads and
 * writes it, with SQL, so ciphertext never sits in an entity manager.
 */
export const ConnectionEntity = defineEntity({
  name: "Connection",
  tableName: "connections",
  properties: (p) => ({
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    shortId: p.string().length(8).unique(),
    userId: p.uuid(),
    provider: p.text(),
    providerItemId: p.text().nullable(),
    institutionId: p.text().nullable(),
    institutionName: p.text().nullable(),
    cursor: p.text().nullable(),
    status: p.text().$type<ConnectionStatus>(),
    errorCode: p.text().nullable(),
    errorMessage: p.text().nullable(),
    paused: p.boolean(),
    lastSyncedAt: p.datetime().nullable(),
    lastSuccessStartedAt: p.datetime().nullable(),
    lastAttemptAt: p.datetime().nullable(),
    repairedAt: p.datetime().nullable(),
    createdAt: p.datetime().onCreate((_, em) => nowOf(em)),
    updatedAt: p.datetime().onCreate((_, em) => nowOf(em)),
  }),
});
export type Connection = InferEntity<typeof ConnectionEntity>;

import { type SYNC_LOG_STATUSES, SYNC_TRIGGERS } from "../../../common/enums.js";
export { SYNC_TRIGGERS };
export type SyncTrigger = (typeof SYNC_TRIGGERS)[number];
export type SyncLogStatus = (typeof SYNC_LOG_STATUSES)[number];

export const SyncLogEntity = defineEntity({
  name: "SyncLog",
  tableName: "sync_logs",
  properties: (p) => ({
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    shortId: p.string().length(8).unique(),
    connectionId: p.uuid(),
    trigger: p.text().$type<SyncTrigger>(),
    status: p.text().$type<SyncLogStatus>(),
    startedAt: p.datetime(),
    finishedAt: p.datetime().nullable(),
    pages: p.integer(),
    added: p.integer(),
    modified: p.integer(),
    removed: p.integer(),
    unchanged: p.integer(),
    skipped: p.json<{ row: string; reason: string; amount?: string }[]>(),
    skippedCount: p.integer(),
    errorCode: p.text().nullable(),
    errorMessage: p.text().nullable(),
  }),
});
export type SyncLog = InferEntity<typeof SyncLogEntity>;

export type WebhookEventStatus = "accepted" | "duplicate" | "rejected" | "ignored";

export const WebhookEventEntity = defineEntity({
  name: "WebhookEvent",
  tableName: "webhook_events",
  properties: (p) => ({
    id: p
      .uuid()
      .primary()
      .onCreate(() => randomUUID()),
    shortId: p.string().length(8).unique(),
    provider: p.text(),
    eventId: p.text().nullable(),
    eventType: p.text().nullable(),
    status: p.text().$type<WebhookEventStatus>(),
    reason: p.text().nullable(),
    action: p.text().nullable(),
    headers: p.json<Record<string, string>>(),
    body: p.blob(),
    itemIds: p.array().columnType("text[]"),
    connectionIds: p.array().columnType("uuid[]"),
    receivedAt: p.datetime().onCreate((_, em) => nowOf(em)),
    replayedAt: p.datetime().nullable(),
    replayCount: p.integer(),
    replayKey: p.text().nullable(),
    signedAt: p.datetime().nullable(),
  }),
});
export type WebhookEvent = InferEntity<typeof WebhookEventEntity>;
