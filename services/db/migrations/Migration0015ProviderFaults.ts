import { Migration } from "@mikro-orm/migrations";

/**
 * Provider faults (docs/sync.md, "Faults"):
 *
 * - webhook_events.replay_key: what makes one signed delivery unique (Plaid:
 *   the body's SHA-256 and the JWT's iat; Teller: the signature's timestamp
 *   and the body's SHA-256), and signed_at, when the provider signed it. An
 *   accepted event is unique by its provider's event id when it has one, else
 *   by its replay key, so the same signed bytes sent again within their
 *   validity are a duplicate.
 * - connections.repaired_at: when the login was last repaired (a "repaired"
 *   webhook, new credentials); a report that the login broke signed before
 *   that, or before the last successful sync began, is stale.
 */
export class Migration0015ProviderFaults extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table webhook_events add column replay_key text null, add column signed_at timestamptz null;
      drop index webhook_events_event_unique;
      create unique index webhook_events_accepted_unique on webhook_events (provider, (coalesce(event_id, replay_key)))
        where status = 'accepted' and coalesce(event_id, replay_key) is not null;
      alter table connections add column repaired_at timestamptz null;
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      alter table connections drop column repaired_at;
      drop index webhook_events_accepted_unique;
      create unique index webhook_events_event_unique on webhook_events (provider, event_id)
        where event_id is not null and status = 'accepted';
      alter table webhook_events drop column replay_key, drop column signed_at;
    `);
  }
}
