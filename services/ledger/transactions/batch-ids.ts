import type { Em } from "../../db/orm.js";
import { findLiveTransactionsByIds } from "../../db/tables/transactions.js";
import { CofferError, validation } from "../../errors/coffer-error.js";
import { parseId } from "../../ids/resolve-id.js";
import { quoted } from "./locked-row.js";

/** The most transactions one batch change (categorize, assign a counterparty) may name. */
export const MAX_BATCH = 500;

export function checkBatchSize(rawIds: readonly string[]): void {
  if (rawIds.length === 0) throw validation("transaction_ids must list at least one transaction");
  if (rawIds.length > MAX_BATCH) throw validation(`transaction_ids may list at most ${MAX_BATCH} transactions`);
}

/** The live transactions some raw ids (UUID or short id) name, duplicates folded, in the order given. */
export interface TransactionIdLookup {
  found: { id: string; shortId: string }[];
  /** The raw ids that are malformed, unknown or name a soft-deleted transaction, each once. */
  missing: string[];
}

export async function lookupTransactionIds(em: Em, rawIds: readonly string[]): Promise<TransactionIdLookup> {
  const lookups = rawIds.map((raw) => ({ raw, lookup: parseId(raw) }));
  const uuids = lookups.flatMap((l) => (l.lookup?.column === "id" ? [l.lookup.value] : []));
  const shortIds = lookups.flatMap((l) => (l.lookup?.column === "short_id" ? [l.lookup.value] : []));
  const rows = await findLiveTransactionsByIds(em, uuids, shortIds);
  const byUuid = new Map(rows.map((r) => [r.id, r]));
  const byShort = new Map(rows.map((r) => [r.short_id, r]));
  const found = new Map<string, { id: string; shortId: string }>();
  const missing: string[] = [];
  for (const { raw, lookup } of lookups) {
    const row = !lookup ? undefined : lookup.column === "id" ? byUuid.get(lookup.value) : byShort.get(lookup.value);
    if (row) found.set(row.id, { id: row.id, shortId: row.short_id });
    else if (!missing.includes(raw)) missing.push(raw);
  }
  return { found: [...found.values()], missing };
}

/** '2 transactions not found: "Ab12Cd34", "x"', naming the first five. */
export function describeMissing(missing: readonly string[]): string {
  const named = missing.slice(0, 5).map(quoted).join(", ");
  const more = missing.length > 5 ? ` and ${missing.length - 5} more` : "";
  return `${missing.length} transaction${missing.length === 1 ? "" : "s"} not found: ${named}${more}`;
}

/**
 * UUIDs of live transactions for raw ids (UUID or short id), duplicates
 * folded. Any id that is malformed, unknown or soft-deleted → NOT_FOUND naming
 * the first few, so a batch never half-applies.
 */
export async function resolveTransactionIds(em: Em, rawIds: string[]): Promise<string[]> {
  const { found, missing } = await lookupTransactionIds(em, rawIds);
  if (missing.length > 0) throw new CofferError("NOT_FOUND", `${describeMissing(missing)}; nothing was changed`);
  return found.map((f) => f.id);
}
