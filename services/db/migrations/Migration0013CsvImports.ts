import { Migration } from "@mikro-orm/migrations";

/**
 * CSV imports as their own records (docs/sync.md, "CSV import records").
 *
 * A CSV file is the person's data, not a secret: it no longer rides in the
 * connection's encrypted credentials, so importing one needs no
 * COFFER_ENCRYPTION_KEY. Each import (POST /api/v1/connections with provider
 * csv, or `coffer import csv`) is one row: the file, how it is read, and
 * where its import stands. The CSV provider reads it by id.
 *
 * - `file` is text, not bytea: the file is decoded once, when it arrives
 *   (UTF-8, UTF-16 with its BOM, or Windows-1252), and every later read wants
 *   that text; NUL is refused at the door, so text holds any file Coffer
 *   takes, and PostgreSQL compresses it out of line (TOAST) as it would bytes.
 *   It is null once a newer import of the connection replaced it (the record
 *   stays, with its counts).
 * - `file_bytes` is the text's UTF-8 size; `file_sha256` its SHA-256
 *   (base64url), which the sync cursor names so that an import stopped half
 *   way continues on the same file only.
 * - `mapping` is the column mapping the import was settled with; `options`
 *   the rest (date format, decimal separator, sign, account name, currency).
 * - counts are what the syncs of this import committed.
 *
 * A CSV connection keeps no credentials from now on, so the connections check
 * that a live connection holds credentials leaves CSV out. Files stored
 * before this migration are encrypted and cannot be moved here without the
 * key: the core moves them when it starts with the key (services/sync/
 * csv-legacy-files.ts).
 */
export class Migration0013CsvImports extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table csv_imports (
        id uuid primary key,
        connection_id uuid not null references connections (id) on delete cascade,
        file text null,
        file_bytes integer not null check (file_bytes >= 0),
        file_sha256 text not null,
        mapping jsonb not null,
        options jsonb not null,
        status text not null default 'pending' check (status in ('pending', 'running', 'done', 'failed')),
        row_count integer not null default 0,
        added_count integer not null default 0,
        skipped_count integer not null default 0,
        error_code text null,
        error_message text null,
        created_at timestamptz not null default now(),
        updated_at timestamptz not null default now(),
        finished_at timestamptz null,
        check ((error_code is null) = (error_message is null)),
        check (status in ('done', 'failed') = (finished_at is not null))
      );
      create index csv_imports_connection_index on csv_imports (connection_id, created_at);

      alter table connections drop constraint connections_check;
      alter table connections add constraint connections_credentials_check
        check (status = 'disconnected' or credentials is not null or provider = 'csv');
    `);
  }

  override async down(): Promise<void> {
    this.addSql(`
      alter table connections drop constraint connections_credentials_check;
      alter table connections add constraint connections_check
        check (status = 'disconnected' or credentials is not null);
      drop table csv_imports;
    `);
  }
}
