import type { Em } from "../orm.js";
import { query } from "../sql.js";

/**
 * The raw statements on `categories` (the ORM entity CategoryEntity covers
 * single-row reads and writes). The table is small: readers that need every
 * category read it whole.
 */

export interface CategoryRow {
  id: string;
  slug: string;
  display_name: string;
}

/** Every category. */
export async function allCategories(em: Em): Promise<CategoryRow[]> {
  return query<CategoryRow>(em, `select id, slug, display_name from categories`);
}

/** The id of the category with this slug, or null. */
export async function findCategoryIdBySlug(em: Em, slug: string): Promise<string | null> {
  const [row] = await query<{ id: string }>(em, `select id from categories where slug = ?`, [slug]);
  return row?.id ?? null;
}

/** The category with this slug and, for a parent, its children (empty when the slug names none). */
export async function categoryAndChildrenIds(em: Em, slug: string): Promise<string[]> {
  const rows = await query<{ id: string }>(
    em,
    `select id from categories where slug = ? or parent_id = (select id from categories where slug = ?)`,
    [slug, slug],
  );
  return rows.map((r) => r.id);
}

/** Every category with its display name lowercased (how provider category names are matched to it). */
export async function allCategoryNames(em: Em): Promise<{ id: string; slug: string; name: string }[]> {
  return query<{ id: string; slug: string; name: string }>(
    em,
    `select id, slug, lower(display_name) as name from categories`,
  );
}
