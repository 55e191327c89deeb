import type { Em } from "../../db/orm.js";
import { transactionViewById, type TransactionView } from "../../db/queries/transaction-view.js";
import { findTransactionId } from "../../db/tables/transactions.js";
import { notFound } from "../../errors/coffer-error.js";
import { parseId } from "../../ids/resolve-id.js";

export type { TransactionView };

/** UUID of a transaction from a raw `{id}` (UUID or short id); soft-deleted ones only when asked. */
export async function resolveTransactionId(
  em: Em,
  raw: string,
  opts: { includeDeleted?: boolean } = {},
): Promise<string> {
  const lookup = parseId(raw);
  if (lookup) {
    const id = await findTransactionId(em, lookup, opts);
    if (id !== null) return id;
  }
  throw notFound("Transaction");
}

/** One presented transaction by UUID (deleted or not). */
export async function loadTransaction(em: Em, id: string): Promise<TransactionView> {
  const row = await transactionViewById(em, id);
  if (!row) throw notFound("Transaction");
  return row;
}
