import type { Em } from "../orm.js";
import { pgArray, query } from "../sql.js";

/**
 * The raw statements on `tags` (the ORM entity TagEntity covers single-row
 * reads and writes). The table is small: readers that need every tag read it whole.
 */

/** Every tag. */
export async function allTags(em: Em): Promise<{ id: string; slug: string }[]> {
  return query<{ id: string; slug: string }>(em, `select id, slug from tags`);
}

/** The tags with these slugs (slugs that name none are left out). */
export async function findTagsBySlug(em: Em, slugs: readonly string[]): Promise<{ id: string; slug: string }[]> {
  if (slugs.length === 0) return [];
  return query<{ id: string; slug: string }>(em, `select id, slug from tags where slug = any(?::text[])`, [
    pgArray(slugs),
  ]);
}

/**
 * Inserts a tag unless its slug or short id is taken ("on conflict do
 * nothing": a concurrent creator of the same slug, or a short-id clash,
 * does not abort the surrounding transaction). Returns whether it was inserted.
 */
export async function insertTagIfAbsent(
  tx: Em,
  tag: { id: string; shortId: string; slug: string; displayName: string },
): Promise<boolean> {
  const inserted = await query<{ id: string }>(
    tx,
    `insert into tags (id, short_id, slug, display_name) values (?, ?, ?, ?) on conflict do nothing returning id`,
    [tag.id, tag.shortId, tag.slug, tag.displayName],
  );
  return inserted.length > 0;
}
