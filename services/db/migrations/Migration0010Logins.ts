import { Migration } from "@mikro-orm/migrations";

/**
 * Login accounts for the web console (services/auth/logins.ts, docs/auth.md).
 *
 * - A login belongs to one household member (who cannot be deleted while it
 *   exists, like any data they own); its email is unique compared
 *   case-insensitively. The password is scrypt's output (base64) with the login's own
 *   salt and the parameters it was made with (jsonb {N, r, p, keylen}), so the
 *   cost can be raised later without invalidating stored hashes. A login
 *   without a password yet (password_hash null) waits for its setup link.
 * - Setup tokens, session tokens: only their SHA-256 is stored (they are 32
 *   random bytes). A setup token without a login is the first-run token: it
 *   creates the first admin, and only while no login exists.
 * - Sessions expire 30 days after they were last seen (sliding); expires_at
 *   is moved forward with last_seen_at.
 * - login_attempts holds recent sign-in attempts, so the limit per account
 *   and per IP holds across core replicas. The core's hourly task
 *   (login-retention.ts) deletes attempts older than an hour, and sessions and
 *   setup tokens a day after they ended.
 */
export class Migration0010Logins extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table logins (
        id uuid primary key,
        user_id uuid not null unique references users (id) on delete restrict,
        email text not null check (length(email) between 3 and 320 and email = btrim(email)),
        role text not null check (role in ('admin', 'editor', 'viewer')),
        password_hash text null,
        password_salt text null,
        password_params jsonb null,
        password_set boolean generated always as (password_hash is not null) stored,
        last_login_at timestamptz null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        check ((password_hash is null) = (password_salt is null)
               and (password_hash is null) = (password_params is null))
      );
      create unique index logins_email_index on logins (lower(email));

      create table login_setup_tokens (
        id uuid primary key,
        login_id uuid null references logins (id) on delete cascade,
        token_hash text not null unique,
        expires_at timestamptz not null,
        consumed_at timestamptz null,
        created_at timestamptz not null default now()
      );
      create index login_setup_tokens_login_index on login_setup_tokens (login_id);

      create table login_sessions (
        id uuid primary key,
        login_id uuid not null references logins (id) on delete cascade,
        token_hash text not null unique,
        created_at timestamptz not null default now(),
        last_seen_at timestamptz not null default now(),
        expires_at timestamptz not null,
        revoked_at timestamptz null
      );
      create index login_sessions_login_index on login_sessions (login_id);

      create table login_attempts (
        id bigint generated always as identity primary key,
        email text not null,
        ip text not null,
        attempted_at timestamptz not null default clock_timestamp()
      );
      create index login_attempts_email_index on login_attempts (email, attempted_at);
      create index login_attempts_ip_index on login_attempts (ip, attempted_at);
      create index login_attempts_time_index on login_attempts (attempted_at);
    `);
  }
}
