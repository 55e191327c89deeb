import type { CategorySource } from "../../db/entities/index.js";
import type { Em } from "../../db/orm.js";
import { query } from "../../db/sql.js";
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

interface Row {
  id: string;
  short_id: string;
  category_id: string | null;
  category_slug: string;
  category_source: CategorySource | null;
  tag_ids: string[];
  metadata: Record<string, unknown>;
  deleted_at: string | null;
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
  const [row] = await query<Row>(
    tx,
    `select t.id, t.short_id, t.category_id, coalesce(c.slug, 'uncategorized') as category_slug, t.category_source,
       t.tag_ids::text[] as tag_ids, t.metadata, t.deleted_at::text as deleted_at
     from transactions t left join categories c on c.id = t.category_id
     where t.id = ?
     for update of t`,
    [id],
  );
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
  const [row] = await query<{ short_id: string }>(em, `select short_id from transactions where id = ?`, [id]);
  if (!row) throw notFound("Transaction");
  return row.short_id;
}

/** User input echoed in a message: bounded, so a huge value cannot flood logs or replies. */
export const quoted = (raw: string) => JSON.stringify(raw.length > 64 ? `${raw.slice(0, 64)}…` : raw);
