import { nowOf } from "../clock.js";
import type { Em } from "../db/orm.js";
import { deleteOldSyncLogs } from "../db/tables/sync-logs.js";
import { deleteOldWebhookEvents } from "../db/tables/webhook-events.js";
import type { PeriodicTask } from "../periodic.js";

/**
 * How long stored webhook deliveries are kept. The webhook endpoint takes
 * requests from anyone (the signature is checked after the request arrives),
 * so what fails verification or repeats an earlier event goes after a week;
 * verified events are kept three months for the record and for replay.
 */
export const WEBHOOK_RETENTION = { rejectedDays: 7, keptDays: 90 };

/** Deletes webhook events past their retention; returns how many. */
export async function purgeWebhookEvents(em: Em, retention = WEBHOOK_RETENTION): Promise<number> {
  return deleteOldWebhookEvents(em, nowOf(em), retention);
}

export const purgeWebhookEventsTask: PeriodicTask = {
  queue: "coffer-purge-webhook-events",
  name: "purge webhook events",
  run: (em) => purgeWebhookEvents(em),
};

/**
 * Deletes finished sync logs that started more than `days` ago, except each
 * connection's newest one: a connection that has not synced for months still
 * shows how its last sync ended. Running logs stay (the engine closes them).
 * Returns how many went.
 */
export async function purgeSyncLogs(em: Em, days: number): Promise<number> {
  return deleteOldSyncLogs(em, nowOf(em), days);
}

export const purgeSyncLogsTask: PeriodicTask = {
  queue: "coffer-purge-sync-logs",
  name: "purge old sync logs",
  run: (em, config) => purgeSyncLogs(em, config.syncLogRetentionDays),
};
