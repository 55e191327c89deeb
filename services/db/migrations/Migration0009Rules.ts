import { Migration } from "@mikro-orm/migrations";

/**
 * Transaction rules (services/rules, docs/rules.md).
 *
 * - conditions is the condition tree as written (account and user ids as
 *   short ids); actions name categories and tags by id, so renaming a slug
 *   keeps the rule working (the API shows slugs). Deleting a category or tag
 *   a rule uses is refused until the rule is changed.
 * - rules_pipeline_index is the pipeline's order and the list's default
 *   page order: priority, then older first, then id.
 * - Every sync page adds to the hit counts of the rules that matched; half of
 *   each page is left free (fillfactor 50) so those updates stay on the page
 *   (HOT: hit_count and last_hit_at are in no index) and the table does not
 *   grow with dead rows between vacuums.
 * - The default rule tags every new transaction needs_review (the tag is
 *   created here when missing). It is an ordinary rule: visible, editable,
 *   disableable. Priority 0 runs it before rules at the default priority
 *   (100), so they can remove the tag again for transactions they recognise.
 * - The version trigger no longer keeps the earlier version of a row that the
 *   same database transaction wrote: the sync pipeline updates the rows a
 *   sync page has just inserted, and such a version could never be read (a
 *   snapshot sees it only if it sees its writer and not its replacement,
 *   which here are the same transaction). Skipping it halves the cost of
 *   those updates.
 */
export class Migration0009Rules extends Migration {
  override async up(): Promise<void> {
    this.addSql(`
      create table rules (
        id uuid primary key,
        short_id varchar(8) not null unique,
        name text not null check (length(btrim(name)) > 0),
        conditions jsonb not null default '{}' check (jsonb_typeof(conditions) = 'object'),
        actions jsonb not null check (jsonb_typeof(actions) = 'array'),
        trigger text not null default 'always' check (trigger in ('on_create', 'on_change', 'always')),
        priority integer not null default 100,
        enabled boolean not null default true,
        hit_count bigint not null default 0 check (hit_count >= 0),
        last_hit_at timestamptz null,
        created_by_type text not null check (created_by_type in ('user', 'agent', 'system')),
        created_by_id text null,
        created_by_name text not null,
        created_at timestamptz not null default clock_timestamp(),
        updated_at timestamptz not null default clock_timestamp()
      ) with (fillfactor = 50);
      create index rules_pipeline_index on rules (priority, created_at, id);

      insert into tags (id, short_id, slug, display_name)
        values (gen_random_uuid(), coffer_short_id(), 'needs_review', 'Needs review')
        on conflict do nothing;
      insert into rules (id, short_id, name, conditions, actions, trigger, priority, created_by_type, created_by_name)
        select gen_random_uuid(), coffer_short_id(), 'Mark new transactions for review', '{}',
          jsonb_build_array(jsonb_build_object('type', 'add_tag', 'tag_id', t.id)), 'on_create', 0, 'system', 'Coffer'
        from tags t where t.slug = 'needs_review';

      create or replace function transactions_version() returns trigger language plpgsql as $$
      declare
        changed transactions;
      begin
        changed := new;
        changed.search_text := old.search_text;
        if row(changed.*) is distinct from row(old.*) then
          new.seq := nextval('transaction_seq');
          new.updated_at := now();
          new.xact := pg_current_xact_id();
          if old.xact <> new.xact then
            insert into transaction_versions (
              id, short_id, account_id, amount, iso_currency_code, date, authorized_date, provider,
              provider_transaction_id, provider_name, provider_merchant_name, provider_category_primary,
              provider_category_detailed, pending, category_id, category_source, tag_ids, metadata,
              counterparty_id, series_id, deleted_at, created_at, updated_at, seq,
              xact, superseded_seq, superseded_xact, superseded_at
            ) values (
              old.id, old.short_id, old.account_id, old.amount, old.iso_currency_code, old.date, old.authorized_date,
              old.provider, old.provider_transaction_id, old.provider_name, old.provider_merchant_name,
              old.provider_category_primary, old.provider_category_detailed, old.pending, old.category_id,
              old.category_source, old.tag_ids, old.metadata, old.counterparty_id, old.series_id, old.deleted_at,
              old.created_at, old.updated_at, old.seq, old.xact, new.seq, new.xact, now()
            );
          end if;
        end if;
        return new;
      end $$;
    `);
  }
}
