import { Migration } from "@mikro-orm/migrations";

/**
 * Reports: findings an agent leaves for the household (docs/reports.md).
 *
 * The checks repeat the domain's limits as a last line of defence; the domain
 * names the field when a value breaks one. A report's transactions are a join
 * table in the order given. Transactions are deleted softly, so a reference
 * outlives the transaction's deletion and is shown as deleted; only a report's
 * own deletion removes its references.
 */
export class Migration0005Reports extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table reports (
        id uuid primary key,
        short_id varchar(8) not null unique,
        title text not null check (char_length(title) between 1 and 200),
        body text not null check (char_length(body) between 1 and 50000),
        priority text not null default 'info' check (priority in ('info', 'warning', 'critical')),
        tags text[] not null default '{}' check (cardinality(tags) <= 10),
        author text null,
        created_by_type text not null check (created_by_type in ('user', 'agent', 'system')),
        created_by_id text null,
        created_by_name text not null,
        read_at timestamptz null,
        created_at timestamptz not null default now()
      );
      -- Lists are newest first; the unread ones (the inbox, and its count) have an index of their own.
      create index reports_created_index on reports (created_at desc, id desc);
      create index reports_unread_index on reports (created_at desc, id desc) where read_at is null;
      create index reports_tags_index on reports using gin (tags);

      create table report_transactions (
        report_id uuid not null references reports (id) on delete cascade,
        transaction_id uuid not null references transactions (id) on delete cascade,
        position smallint not null,
        primary key (report_id, transaction_id)
      );
      create index report_transactions_transaction_index on report_transactions (transaction_id);
    `);
  }
}
