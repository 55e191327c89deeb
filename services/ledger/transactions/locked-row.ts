import type { CategorySource } from "../../db/entities/index.js";
import type { Em } from "../../db/orm.js";
import { findTransactionShortId } from "../../db/tables/transactions.js";
import { lockTransactionRow } from "../../db/tables/transactions-edits.js";
import { notFound } from "../../errors/coffer-error.js";

/** The parts of a transaction row a write needs to decide what changes and what to annotate. */
export interface LockedTransaction {
  id: string;
  shortId: string;
  categoryId: string | null;
  /** "uncategorized" when category_id is null. */
  categorySlug: string;
  categorySource: CategorySource | null;
  tagIds: string[];
  metadata: Record<string, unknown>;
  deletedAt: string | null;
}

/**
 * Locks one transaction row until the surrounding DB transaction ends, so the
 * "before" a write reads (and records in its annotation) is the row it
 * changes, even when two writers race. Call inside em.transactional. A row
 * deleted meanwhile is NOT_FOUND unless `deleted` is "allow" (restore).
 */
export async function lockTransaction(
  tx: Em,
  id: string,
  opts: { deleted?: "allow" } = {},
): Promise<LockedTransaction> {
  const row = await lockTransactionRow(tx, id);
  if (!row || (row.deleted_at !== null && opts.deleted !== "allow")) throw notFound("Transaction");
  return {
    id: row.id,
    shortId: row.short_id,
    categoryId: row.category_id,
    categorySlug: row.category_slug,
    categorySource: row.category_source,
    tagIds: row.tag_ids,
    metadata: row.metadata,
    deletedAt: row.deleted_at,
  };
}

/** The short id of a transaction known to exist (for presenting references to it). */
export async function transactionShortId(em: Em, id: string): Promise<string> {
  const shortId = await findTransactionShortId(em, id);
  if (shortId === null) throw notFound("Transaction");
  return shortId;
}

/** User input echoed in a message: bounded, so a huge value cannot flood logs or replies. */
export const quoted = (raw: string) => JSON.stringify(raw.length > 64 ? `${raw.slice(0, 64)}…` : raw);
