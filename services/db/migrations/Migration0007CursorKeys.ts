import { randomBytes } from "node:crypto";
import { Migration } from "@mikro-orm/migrations";

/**
 * The secrets cursors are signed with (HMAC-SHA-256, services/pagination).
 * They live in the database so that every core replica signs and checks with
 * the same keys. The first key is made here, once per database, from the
 * migrating process's CSPRNG; later ones come from the cores' automatic
 * rotation (services/pagination/cursor-keys.ts). `generation` is never reused,
 * so a cursor names the key that signed it without ambiguity.
 */
export class Migration0007CursorKeys extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table cursor_keys (
        generation bigint generated always as identity primary key,
        secret bytea not null check (octet_length(secret) = 32),
        created_at timestamptz not null default now()
      );
      insert into cursor_keys (secret) values (decode('${randomBytes(32).toString("hex")}', 'hex'));
    `);
  }
}
