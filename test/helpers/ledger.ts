import type { Em } from "../../services/db/orm.js";
import { pgArray, query } from "../../services/db/sql.js";
import { newShortId } from "../../services/ids/short-id.js";
import { insertTransactions, type NewTransaction } from "../../services/ledger/transactions/insert.js";
import { createUser } from "../../services/users/users.js";

/** Test factories that write real rows through the real insert paths. */
export async function newUser(em: Em, name = "Ann"): Promise<{ id: string; shortId: string }> {
  const u = await createUser(em, { name });
  return { id: u.id, shortId: u.shortId };
}

export async function newAccount(
  em: Em,
  userId: string,
  opts: { name?: string; currency?: string; type?: string } = {},
): Promise<{ id: string; shortId: string }> {
  const id = crypto.randomUUID();
  const shortId = newShortId();
  await query(
    em,
    `insert into accounts (id, short_id, user_id, name, type, iso_currency_code, balance_current)
     values (?, ?, ?, ?, ?, ?, ?)`,
    [id, shortId, userId, opts.name ?? "Checking", opts.type ?? "depository", opts.currency ?? "USD", "1000.00"],
  );
  return { id, shortId };
}

let counter = 0;

/** Inserts transactions with sensible defaults; returns their UUIDs in input order. */
export async function newTransactions(em: Em, accountId: string, items: Partial<NewTransaction>[]): Promise<string[]> {
  const full: NewTransaction[] = items.map((t) => ({
    accountId,
    amount: "10.00",
    isoCurrencyCode: "USD",
    date: "2026-01-15",
    provider: "csv",
    providerTransactionId: `tx-${process.pid}-${++counter}`,
    providerName: "Some shop",
    ...t,
  }));
  const ids = await insertTransactions(em, full);
  // insertTransactions returns ids in insert order; map back by provider id to keep input order.
  const rows = await query<{ id: string; provider_transaction_id: string }>(
    em,
    `select id, provider_transaction_id from transactions where id = any(?::uuid[])`,
    [pgArray(ids)],
  );
  const byProviderId = new Map(rows.map((r) => [r.provider_transaction_id, r.id]));
  return full.map((t) => byProviderId.get(t.providerTransactionId)!);
}

export async function categoryId(em: Em, slug: string): Promise<string> {
  const rows = await query<{ id: string }>(em, `select id from categories where slug = ?`, [slug]);
  if (!rows[0]) throw new Error(`no category ${slug}`);
  return rows[0].id;
}
