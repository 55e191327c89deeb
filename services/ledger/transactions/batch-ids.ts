import type { Em } from "../../db/orm.js";
import { pgArray, query } from "../../db/sql.js";
import { CofferError, validation } from "../../errors/coffer-error.js";
import { parseId } from "../../ids/resolve-id.js";
import { quoted } from "./locked-row.js";

/** The most transactions one batch change (categorize, assign a counterparty) may name. */
export const MAX_BATCH = 500;

export function checkBatchSize(rawIds: readonly string[]): void {
  if (rawIds.length === 0) throw validation("transaction_ids must list at least one transaction");
  if (rawIds.length > MAX_BATCH) throw validation(`transaction_ids may list at most ${MAX_BATCH} transactions`);
}

/**
 * UUIDs of live transactions for raw ids (UUID or short id), duplicates
 * folded. Any id that is malformed, unknown or soft-deleted → NOT_FOUND naming
 * the first few, so a batch never half-applies.
 */
export async function resolveTransactionIds(em: Em, rawIds: string[]): Promise<string[]> {
  const lookups = rawIds.map((raw) => ({ raw, lookup: parseId(raw) }));
  const uuids = lookups.flatMap((l) => (l.lookup?.column === "id" ? [l.lookup.value] : []));
  const shortIds = lookups.flatMap((l) => (l.lookup?.column === "short_id" ? [l.lookup.value] : []));
  const rows = await query<{ id: string; short_id: string }>(
    em,
    `select id, short_id from transactions
     where (id = any(?::uuid[]) or short_id = any(?::text[])) and deleted_at is null`,
    [pgArray(uuids), pgArray(shortIds)],
  );
  const byUuid = new Set(rows.map((r) => r.id));
  const byShort = new Map(rows.map((r) => [r.short_id, r.id]));
  const found = new Set<string>();
  const missing: string[] = [];
  for (const { raw, lookup } of lookups) {
    const id = !lookup
      ? undefined
      : lookup.column === "id"
        ? byUuid.has(lookup.value)
          ? lookup.value
          : undefined
        : byShort.get(lookup.value);
    if (id) found.add(id);
    else if (!missing.includes(raw)) missing.push(raw);
  }
  if (missing.length > 0) {
    const named = missing.slice(0, 5).map(quoted).join(", ");
    const more = missing.length > 5 ? ` and ${missing.length - 5} more` : "";
    throw new CofferError(
      "NOT_FOUND",
      `${missing.length} transaction${missing.length === 1 ? "" : "s"} not found: ${named}${more}; nothing was changed`,
    );
  }
  return [...found];
}
