import type { Em } from "../db/orm.js";
import { query } from "../db/sql.js";
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
  const rows = await query<{ n: number }>(
    em,
    `with gone as (
       delete from webhook_events
       where received_at < now() - make_interval(days => ?)
          or (status in ('rejected', 'duplicate') and received_at < now() - make_interval(days => ?))
       returning 1)
     select count(*)::int as n from gone`,
    [retention.keptDays, retention.rejectedDays],
  );
  return rows[0].n;
}

export const purgeWebhookEventsTask: PeriodicTask = {
  queue: "coffer-purge-webhook-events",
  name: "purge webhook events",
  run: (em) => purgeWebhookEvents(em),
};
