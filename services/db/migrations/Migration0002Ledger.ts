import { Migration } from "@mikro-orm/migrations";
import { CATEGORY_TAXONOMY } from "../../ledger/taxonomy.js";

/**
 * The household ledger. Notes on the less obvious parts:
 * - transactions.seq comes from one sequence and is renewed on every update
 *   (trigger), and the row's previous version is copied to
 *   transaction_versions. A cursor carries the seq watermark of its first
 *   page, so later pages read the snapshot "as of" that watermark: rows
 *   inserted or changed since are read in the version they had then.
 * - tag_ids is an array on the row (GIN-indexed) so tag filters are one
 *   predicate and a tag change is versioned like any other change.
 * - category_id null means uncategorized.
 */
export class Migration0002Ledger extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create extension if not exists pg_trgm;

      -- Random 8-character base62 id for rows seeded by migrations (the app makes its own).
      create or replace function coffer_short_id() returns text language sql volatile as $$
        select string_agg(substr('0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz', 1 + floor(random() * 62)::int, 1), '')
        from generate_series(1, 8)
      $$;

      create table categories (
        id uuid primary key default gen_random_uuid(),
        short_id varchar(8) not null unique default coffer_short_id(),
        slug text not null unique check (slug ~ '^[a-z0-9_]{1,64}$'),
        display_name text not null check (length(btrim(display_name)) > 0),
        parent_id uuid null references categories (id) on delete restrict,
        is_system boolean not null default false,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );
      create index categories_parent_id_index on categories (parent_id);

      create table tags (
        id uuid primary key,
        short_id varchar(8) not null unique,
        slug text not null unique check (slug ~ '^[a-z0-9_]{1,64}$'),
        display_name text not null check (length(btrim(display_name)) > 0),
        color text null check (color ~ '^#[0-9a-f]{6}$'),
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );

      create table counterparties (
        id uuid primary key,
        short_id varchar(8) not null unique,
        name text not null check (length(btrim(name)) > 0),
        type text not null default 'merchant' check (type in ('merchant', 'person', 'organization', 'other')),
        notes text null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );
      create unique index counterparties_name_lower_unique on counterparties (lower(name));

      create table accounts (
        id uuid primary key,
        short_id varchar(8) not null unique,
        user_id uuid not null references users (id) on delete restrict,
        connection_id uuid null,
        provider text not null default 'manual',
        provider_account_id text null,
        name text not null check (length(btrim(name)) > 0),
        official_name text null,
        type text not null,
        subtype text null,
        mask text null,
        balance_current numeric(14, 2) null,
        balance_available numeric(14, 2) null,
        balance_limit numeric(14, 2) null,
        iso_currency_code char(3) not null check (iso_currency_code ~ '^[A-Z]{3}$'),
        hidden boolean not null default false,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );
      create index accounts_user_id_index on accounts (user_id);
      create unique index accounts_provider_account_unique on accounts (provider, provider_account_id) where provider_account_id is not null;

      create sequence transaction_seq;

      create table transactions (
        id uuid primary key,
        short_id varchar(8) not null unique,
        account_id uuid not null references accounts (id) on delete restrict,
        amount numeric(12, 2) not null,
        iso_currency_code char(3) not null check (iso_currency_code ~ '^[A-Z]{3}$'),
        date date not null,
        authorized_date date null,
        provider text not null,
        provider_transaction_id text not null,
        provider_name text not null,
        provider_merchant_name text null,
        provider_category_primary text null,
        provider_category_detailed text null,
        pending boolean not null default false,
        category_id uuid null references categories (id) on delete set null,
        category_source text null check (category_source in ('user', 'agent', 'rule', 'system')),
        tag_ids uuid[] not null default '{}',
        metadata jsonb not null default '{}' check (jsonb_typeof(metadata) = 'object'),
        counterparty_id uuid null references counterparties (id) on delete set null,
        deleted_at timestamptz null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        seq bigint not null default nextval('transaction_seq')
      );
      create unique index transactions_provider_id_unique on transactions (account_id, provider, provider_transaction_id);
      create unique index transactions_seq_unique on transactions (seq);
      create index transactions_date_id_index on transactions (date desc, id desc) where deleted_at is null;
      create index transactions_account_date_id_index on transactions (account_id, date desc, id desc) where deleted_at is null;
      create index transactions_category_date_id_index on transactions (category_id, date desc, id desc) where deleted_at is null;
      create index transactions_counterparty_index on transactions (counterparty_id) where counterparty_id is not null;
      create index transactions_amount_index on transactions (amount, id) where deleted_at is null;
      create index transactions_name_index on transactions (provider_name, id) where deleted_at is null;
      create index transactions_tag_ids_index on transactions using gin (tag_ids) where deleted_at is null;
      create index transactions_name_trgm_index on transactions using gin (provider_name gin_trgm_ops);
      create index transactions_merchant_trgm_index on transactions using gin (provider_merchant_name gin_trgm_ops);

      -- Earlier versions of changed rows, for cursor snapshots (see the class comment).
      create table transaction_versions (like transactions excluding constraints excluding indexes excluding defaults);
      alter table transaction_versions add column superseded_seq bigint not null;
      create index transaction_versions_superseded_index on transaction_versions (superseded_seq);
      create index transaction_versions_date_id_index on transaction_versions (date desc, id desc);

      create function transactions_version() returns trigger language plpgsql as $$
      begin
        if row(new.*) is distinct from row(old.*) then
          new.seq := nextval('transaction_seq');
          new.updated_at := now();
          insert into transaction_versions select old.*, new.seq;
        end if;
        return new;
      end $$;
      create trigger transactions_version before update on transactions
        for each row execute function transactions_version();

      create table comments (
        id uuid primary key,
        short_id varchar(8) not null unique,
        transaction_id uuid not null references transactions (id) on delete cascade,
        body text not null check (length(btrim(body)) > 0),
        author_type text not null check (author_type in ('user', 'agent', 'system')),
        author_key_id uuid null references api_keys (id) on delete set null,
        author_name text not null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );
      create index comments_transaction_index on comments (transaction_id, created_at);

      -- The audit timeline: one row per change, who made it and what changed.
      create table annotations (
        id uuid primary key,
        short_id varchar(8) not null unique,
        transaction_id uuid null references transactions (id) on delete cascade,
        entity_type text not null,
        entity_id uuid not null,
        action text not null,
        actor_type text not null check (actor_type in ('user', 'agent', 'system')),
        actor_id text null,
        actor_name text not null,
        details jsonb not null default '{}',
        created_at timestamptz not null default now()
      );
      create index annotations_transaction_index on annotations (transaction_id, created_at, id);
      create index annotations_entity_index on annotations (entity_type, entity_id, created_at);
    `);
    for (const parent of CATEGORY_TAXONOMY) {
      const knex = this.getKnex();
      this.addSql(
        knex.raw(`insert into categories (slug, display_name, is_system) values (?, ?, ?)`, [
          parent.slug,
          parent.displayName,
          parent.slug === "uncategorized",
        ]),
      );
      for (const child of parent.children) {
        this.addSql(
          knex.raw(
            `insert into categories (slug, display_name, parent_id) select ?, ?, id from categories where slug = ?`,
            [child.slug, child.displayName, parent.slug],
          ),
        );
      }
    }
  }
}
