import { Migration } from "@mikro-orm/migrations";

/**
 * Provider connections and what the sync engine keeps (docs/sync.md).
 *
 * - connections: one login at a provider (a Plaid item, a Teller enrollment,
 *   a SimpleFIN access URL, a CSV account). Credentials are AES-256-GCM
 *   ciphertext (never plaintext); `cursor` is where the next sync continues.
 *   A disconnected connection keeps its row, without credentials.
 * - accounts.connection_id now references connections (ON DELETE SET NULL).
 *   Provider accounts are unique per connection: a provider's account ids are
 *   only unique within one login (SimpleFIN), and a bank linked again after a
 *   disconnect must not collide with the accounts the old link left behind.
 *   Manual accounts keep their importer key unique per provider as before.
 * - transactions.provider_removed_at marks a row the provider removed (a
 *   pending row that posted under a new id, a row gone from a re-read
 *   window). Such a row is soft-deleted, not dropped: a posted row arriving in
 *   a later page still finds it to carry the person's category, tags,
 *   comments and metadata over, and a provider that sends it again brings it
 *   back. A row a person deleted has deleted_at without this mark and never
 *   comes back. The version trigger is untouched: it compares whole rows, and
 *   old versions need no removal mark (cursor pages skip deleted rows).
 * - sync_logs: one row per sync run; its counters advance in the same
 *   database transaction as each page, so they are exact even after a crash.
 * - webhook_events: every inbound provider webhook, verified or not, with its
 *   raw body (signatures are over the exact bytes).
 */
export class Migration0008Connections extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table connections (
        id uuid primary key,
        short_id varchar(8) not null unique,
        user_id uuid not null references users (id) on delete restrict,
        provider text not null check (provider in ('plaid', 'teller', 'simplefin', 'csv')),
        provider_item_id text null,
        institution_id text null,
        institution_name text null,
        credentials bytea null,
        cursor text null,
        status text not null default 'active'
          check (status in ('active', 'error', 'pending_reauth', 'disconnected')),
        error_code text null,
        error_message text null,
        paused boolean not null default false,
        last_synced_at timestamptz null,
        last_success_started_at timestamptz null,
        last_attempt_at timestamptz null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        check (status = 'disconnected' or credentials is not null),
        check ((error_code is null) = (error_message is null))
      );
      create index connections_user_id_index on connections (user_id);
      create unique index connections_live_item_unique on connections (user_id, provider, provider_item_id)
        where provider_item_id is not null and status <> 'disconnected';
      create index connections_item_index on connections (provider, provider_item_id);

      alter table accounts add constraint accounts_connection_id_foreign
        foreign key (connection_id) references connections (id) on delete set null;
      create index accounts_connection_id_index on accounts (connection_id) where connection_id is not null;
      drop index accounts_provider_account_unique;
      create unique index accounts_provider_account_unique on accounts (provider, provider_account_id)
        where provider_account_id is not null and provider = 'manual';
      create unique index accounts_connection_account_unique on accounts (connection_id, provider_account_id)
        where connection_id is not null;

      alter table transactions add column provider_removed_at timestamptz null;

      create table sync_logs (
        id uuid primary key,
        short_id varchar(8) not null unique,
        connection_id uuid not null references connections (id) on delete cascade,
        trigger text not null check (trigger in ('initial', 'manual', 'schedule', 'webhook', 'import', 'reauth')),
        status text not null default 'running' check (status in ('running', 'success', 'error', 'interrupted')),
        started_at timestamptz not null default now(),
        finished_at timestamptz null,
        pages integer not null default 0,
        added integer not null default 0,
        modified integer not null default 0,
        removed integer not null default 0,
        unchanged integer not null default 0,
        skipped jsonb not null default '[]' check (jsonb_typeof(skipped) = 'array'),
        skipped_count integer not null default 0,
        error_code text null,
        error_message text null
      );
      create index sync_logs_started_index on sync_logs (started_at desc, id desc);
      create index sync_logs_connection_started_index on sync_logs (connection_id, started_at desc, id desc);

      create table webhook_events (
        id uuid primary key,
        short_id varchar(8) not null unique,
        provider text not null,
        event_id text null,
        event_type text null,
        status text not null check (status in ('accepted', 'duplicate', 'rejected', 'ignored')),
        reason text null,
        action text null,
        headers jsonb not null default '{}',
        body bytea not null,
        item_ids text[] not null default '{}',
        connection_ids uuid[] not null default '{}',
        received_at timestamptz not null default now(),
        replayed_at timestamptz null,
        replay_count integer not null default 0
      );
      create index webhook_events_received_index on webhook_events (received_at desc, id desc);
      create unique index webhook_events_event_unique on webhook_events (provider, event_id)
        where event_id is not null and status = 'accepted';
    `);
  }
}
