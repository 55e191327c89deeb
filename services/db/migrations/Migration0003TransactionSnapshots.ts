import { Migration } from "@mikro-orm/migrations";

/**
 * Exact snapshots for cursor pagination, and indexes for the transaction list.
 *
 * Migration 0002 versions every transaction row and stamps it with a `seq`.
 * A seq watermark alone cannot say which rows a page saw: seq values are
 * handed out when a writer runs, not when it commits, so a writer still open
 * while page 1 is read can commit later with a seq below the watermark, and
 * later pages would show its rows (or the new version of a row page 1 already
 * returned: a duplicate). So each row version also records the database
 * transaction that wrote it (`xact`), each superseded version the transaction
 * that replaced it (`superseded_xact`) and when (`superseded_at`). A cursor
 * carries page 1's `pg_current_snapshot()`, and a later page reads a row
 * version if and only if that snapshot saw it: its writer is visible in the
 * snapshot and its replacement (if any) is not. No locks, no waiting.
 *
 * The version trigger now names its columns, since the two tables no longer
 * share a column order.
 */
export class Migration0003TransactionSnapshots extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      alter table transactions add column xact xid8 not null default pg_current_xact_id();

      -- Versions kept before this migration were replaced by committed writers: no snapshot taken
      -- from now on can see them, which this migration's own transaction id expresses.
      alter table transaction_versions
        add column xact xid8 not null default pg_current_xact_id(),
        add column superseded_xact xid8 not null default pg_current_xact_id(),
        add column superseded_at timestamptz not null default now();
      alter table transaction_versions
        alter column xact drop default,
        alter column superseded_xact drop default,
        alter column superseded_at drop default;
      -- Later pages look only at versions replaced by a writer their snapshot did not see.
      create index transaction_versions_superseded_xact_index on transaction_versions (superseded_xact);
      -- The purge drops versions older than the cursor lifetime.
      create index transaction_versions_superseded_at_index on transaction_versions (superseded_at);

      create or replace function transactions_version() returns trigger language plpgsql as $$
      begin
        if row(new.*) is distinct from row(old.*) then
          new.seq := nextval('transaction_seq');
          new.updated_at := now();
          new.xact := pg_current_xact_id();
          insert into transaction_versions (
            id, short_id, account_id, amount, iso_currency_code, date, authorized_date, provider,
            provider_transaction_id, provider_name, provider_merchant_name, provider_category_primary,
            provider_category_detailed, pending, category_id, category_source, tag_ids, metadata,
            counterparty_id, deleted_at, created_at, updated_at, seq,
            xact, superseded_seq, superseded_xact, superseded_at
          ) values (
            old.id, old.short_id, old.account_id, old.amount, old.iso_currency_code, old.date, old.authorized_date, old.provider,
            old.provider_transaction_id, old.provider_name, old.provider_merchant_name, old.provider_category_primary,
            old.provider_category_detailed, old.pending, old.category_id, old.category_source, old.tag_ids, old.metadata,
            old.counterparty_id, old.deleted_at, old.created_at, old.updated_at, old.seq,
            old.xact, new.seq, new.xact, now()
          );
        end if;
        return new;
      end $$;

      -- Pages are read in (date, id) order, often with a name search. With the names and the
      -- writer in the index, a page's ids come from an index-only scan (no table access for the
      -- rows a search skips) and only the rows returned are read from the table.
      drop index transactions_date_id_index;
      create index transactions_date_id_index on transactions (date desc, id desc)
        include (provider_name, provider_merchant_name, xact) where deleted_at is null;

      -- sort_by=name orders by the name people see (merchant name, else the raw name), case-insensitively.
      create index transactions_display_name_index on transactions
        (lower(coalesce(provider_merchant_name, provider_name)), id) where deleted_at is null;
    `);
  }
}
