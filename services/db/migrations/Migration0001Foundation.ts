import { Migration } from "@mikro-orm/migrations";

export class Migration0001Foundation extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table users (
        id uuid primary key,
        short_id varchar(8) not null unique,
        name text not null check (length(btrim(name)) > 0),
        email text null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now()
      );
      create unique index users_email_lower_unique on users (lower(email));

      create table api_keys (
        id uuid primary key,
        short_id varchar(8) not null unique,
        name text not null,
        scope text not null check (scope in ('read_only', 'full_access')),
        actor_type text not null default 'user' check (actor_type in ('user', 'agent')),
        user_id uuid null references users (id) on delete restrict,
        key_hash char(64) not null unique,
        key_prefix text not null,
        created_at timestamptz not null default now(),
        last_used_at timestamptz null,
        revoked_at timestamptz null
      );
      create index api_keys_user_id_index on api_keys (user_id);

      create table device_codes (
        id uuid primary key,
        short_id varchar(8) not null unique,
        device_code_hash char(64) not null unique,
        user_code varchar(9) not null unique,
        status text not null default 'pending' check (status in ('pending', 'approved', 'denied')),
        requested_name text null,
        scope text null check (scope in ('read_only', 'full_access')),
        name text null,
        decided_by_key_id uuid null references api_keys (id) on delete set null,
        decided_at timestamptz null,
        api_key_id uuid null references api_keys (id) on delete set null,
        expires_at timestamptz not null,
        created_at timestamptz not null default now()
      );
    `);
  }
}
