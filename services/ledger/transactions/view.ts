import type { JsonObject } from "@bufbuild/protobuf";
import type { Transaction as TransactionMsg } from "../../../gen/coffer/v1/transactions_pb.js";
import type { Em } from "../../db/orm.js";
import { iso, query } from "../../db/sql.js";
import { notFound } from "../../errors/coffer-error.js";
import { parseId } from "../../ids/resolve-id.js";
import { orUndef, tsFromIso } from "../../shared/proto.js";

/** The columns of `transactions` (and `transaction_versions`), in one list for every query that reads rows. */
export const TRANSACTION_COLUMNS = [
  "id",
  "short_id",
  "account_id",
  "amount",
  "iso_currency_code",
  "date",
  "authorized_date",
  "provider",
  "provider_transaction_id",
  "provider_name",
  "provider_merchant_name",
  "provider_category_primary",
  "provider_category_detailed",
  "pending",
  "category_id",
  "category_source",
  "tag_ids",
  "metadata",
  "counterparty_id",
  "deleted_at",
  "created_at",
  "updated_at",
  "seq",
] as const;

/**
 * Wraps any SELECT that yields transaction rows (alias `t`, columns as in
 * TRANSACTION_COLUMNS) with what a presented transaction needs: account,
 * owner, category, counterparty and tag slugs. Joins run on the page only.
 * Dates, timestamps and amounts come out as text so nothing is parsed by JS
 * floats or local time zones.
 */
export function viewSql(inner: string): string {
  return `
    select t.id, t.short_id, t.amount::text as amount, t.iso_currency_code,
      to_char(t.date, 'YYYY-MM-DD') as date, to_char(t.authorized_date, 'YYYY-MM-DD') as authorized_date,
      t.provider, t.provider_transaction_id, t.provider_name, t.provider_merchant_name,
      t.provider_category_primary, t.provider_category_detailed, t.pending, t.category_source, t.metadata,
      ${iso("t.deleted_at")} as deleted_at, ${iso("t.created_at")} as created_at, ${iso("t.updated_at")} as updated_at,
      a.short_id as account_short_id, a.name as account_name, u.short_id as user_short_id, u.name as user_name,
      coalesce(c.slug, 'uncategorized') as category_slug,
      coalesce(c.display_name, (select display_name from categories where slug = 'uncategorized')) as category_display_name,
      pc.slug as category_parent_slug,
      cp.short_id as counterparty_short_id, cp.name as counterparty_name,
      coalesce((select array_agg(g.slug order by g.slug) from tags g where g.id = any(t.tag_ids)), '{}') as tags
    from (${inner}) t
    join accounts a on a.id = t.account_id
    join users u on u.id = a.user_id
    left join categories c on c.id = t.category_id
    left join categories pc on pc.id = c.parent_id
    left join counterparties cp on cp.id = t.counterparty_id`;
}

export interface TransactionViewRow {
  id: string;
  short_id: string;
  amount: string;
  iso_currency_code: string;
  date: string;
  authorized_date: string | null;
  provider: string;
  provider_transaction_id: string;
  provider_name: string;
  provider_merchant_name: string | null;
  provider_category_primary: string | null;
  provider_category_detailed: string | null;
  pending: boolean;
  category_source: string | null;
  metadata: JsonObject;
  deleted_at: string | null;
  created_at: string;
  updated_at: string;
  account_short_id: string;
  account_name: string;
  user_short_id: string;
  user_name: string;
  category_slug: string;
  category_display_name: string;
  category_parent_slug: string | null;
  counterparty_short_id: string | null;
  counterparty_name: string | null;
  tags: string[];
}

/**
 * A presented row as a coffer.v1.Transaction. Every field is given, so the
 * message is written as a literal: protobuf-es's create() (defaults and
 * checks per field) cost more than the rest of building a page of 100.
 */
export function transactionToProto(r: TransactionViewRow): TransactionMsg {
  return {
    $typeName: "coffer.v1.Transaction",
    id: r.id,
    shortId: r.short_id,
    accountId: r.account_short_id,
    accountName: r.account_name,
    userId: r.user_short_id,
    userName: r.user_name,
    amount: r.amount,
    isoCurrencyCode: r.iso_currency_code,
    date: r.date,
    authorizedDate: orUndef(r.authorized_date),
    name: r.provider_merchant_name ?? r.provider_name,
    provider: r.provider,
    providerTransactionId: r.provider_transaction_id,
    providerName: r.provider_name,
    providerMerchantName: orUndef(r.provider_merchant_name),
    providerCategoryPrimary: orUndef(r.provider_category_primary),
    providerCategoryDetailed: orUndef(r.provider_category_detailed),
    pending: r.pending,
    categorySlug: r.category_slug,
    categoryDisplayName: r.category_display_name,
    categoryParentSlug: orUndef(r.category_parent_slug),
    categorySource: orUndef(r.category_source),
    tags: r.tags,
    metadata: r.metadata,
    counterpartyId: orUndef(r.counterparty_short_id),
    counterpartyName: orUndef(r.counterparty_name),
    deletedAt: r.deleted_at ? tsFromIso(r.deleted_at) : undefined,
    createdAt: tsFromIso(r.created_at),
    updatedAt: tsFromIso(r.updated_at),
  };
}

/** UUID of a transaction from a raw `{id}` (UUID or short id); soft-deleted ones only when asked. */
export async function resolveTransactionId(em: Em, raw: string, opts: { includeDeleted?: boolean } = {}): Promise<string> {
  const lookup = parseId(raw);
  if (lookup) {
    const rows = await query<{ id: string }>(
      em,
      `select id from transactions where ${lookup.column} = ?${opts.includeDeleted ? "" : " and deleted_at is null"}`,
      [lookup.value],
    );
    if (rows.length > 0) return rows[0].id;
  }
  throw notFound("Transaction");
}

/** One presented transaction by UUID (deleted or not). */
export async function loadTransaction(em: Em, id: string): Promise<TransactionMsg> {
  const rows = await query<TransactionViewRow>(em, viewSql(`select * from transactions where id = ?`), [id]);
  if (rows.length === 0) throw notFound("Transaction");
  return transactionToProto(rows[0]);
}
