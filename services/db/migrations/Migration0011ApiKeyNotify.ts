import { Migration } from "@mikro-orm/migrations";

/**
 * Cores cache the API keys they authenticated (services/auth/key-cache.ts);
 * a change to a key that decides whether or how it authenticates (revoked,
 * scope, owner…) or its deletion is announced on the channel
 * `coffer_api_keys` with the key's id, whoever makes it (a core, the CLI, a
 * manual UPDATE), and every core drops that key at once. TRUNCATE announces
 * "*" (drop every key). Refreshing last_used_at announces nothing: it changes
 * no decision, and it happens on reads.
 */
export class Migration0011ApiKeyNotify extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create function coffer_api_keys_changed() returns trigger language plpgsql as $$
      begin
        if tg_level = 'STATEMENT' then
          perform pg_notify('coffer_api_keys', '*');
        elsif tg_op = 'DELETE' then
          perform pg_notify('coffer_api_keys', old.id::text);
        else
          perform pg_notify('coffer_api_keys', new.id::text);
        end if;
        return null;
      end $$;
      create trigger api_keys_changed
        after update of revoked_at, scope, actor_type, user_id, name, key_hash or delete on api_keys
        for each row execute function coffer_api_keys_changed();
      create trigger api_keys_truncated
        after truncate on api_keys
        for each statement execute function coffer_api_keys_changed();
    `);
  }
}
