import { CategoryEntity, type Category } from "../../db/entities/index.js";
import type { Em } from "../../db/orm.js";
import { moveTransactionsToCategory } from "../../db/tables/transactions-edits.js";
import { isForeignKeyViolation } from "../../db/sql.js";
import { CofferError, notFound, validation } from "../../errors/coffer-error.js";
import { withShortId } from "../../ids/insert.js";
import { parseId } from "../../ids/resolve-id.js";
import type { Actor } from "../actor.js";
import { recordAnnotation, recordAnnotations } from "../annotations.js";
import { UNCATEGORIZED } from "../taxonomy.js";
import { isSlug, parseSlug } from "../../shared/validate.js";
import { isSlugTaken, parseDisplayName, slugOrDerived } from "./slug.js";
import { assertNotUsedByRules } from "../../rules/usage.js";
import { nowOf } from "../../clock.js";

// Protecting the system category is a permission question (no caller may do
// it, whatever the state), so it answers 403 FORBIDDEN; state clashes
// (children in the way) answer 409 CONFLICT.
const systemProtected = (what: string) =>
  new CofferError("FORBIDDEN", `The system category "${UNCATEGORIZED}" cannot ${what}`);
const slugTaken = (slug: string) => new CofferError("SLUG_CONFLICT", `A category with slug "${slug}" already exists`);

/**
 * A category by UUID, short id or slug. An 8-letter slug ("shopping") also
 * looks like a short id, so a short-id miss falls back to the slug.
 */
async function findCategory(em: Em, raw: string): Promise<Category | null> {
  const lookup = parseId(raw);
  if (lookup) {
    const where = lookup.column === "id" ? { id: lookup.value } : { shortId: lookup.value };
    const found = await em.findOne(CategoryEntity, where, { refresh: true });
    if (found) return found;
  }
  return isSlug(raw) ? em.findOne(CategoryEntity, { slug: raw }, { refresh: true }) : null;
}

/** Ids of the categories with these slugs; a slug that names no category is left out. */
export async function categoryIdsBySlug(em: Em, rawSlugs: string[]): Promise<Map<string, string>> {
  const slugs = [...new Set(rawSlugs.map((s) => parseSlug(s)))];
  if (slugs.length === 0) return new Map();
  const found = await em.find(CategoryEntity, { slug: { $in: slugs } }, { refresh: true });
  return new Map(found.map((c) => [c.slug, c.id]));
}

/** The category a path `{id}` names, or 404. */
export async function resolveCategory(em: Em, raw: string): Promise<Category> {
  const found = await findCategory(em, raw);
  if (!found) throw notFound("Category");
  return found;
}

/**
 * The category a body field names. Like a category slug given to a
 * transaction, a value that names nothing is a bad value (400), not a
 * missing resource.
 */
async function categoryNamedBy(
  em: Em,
  raw: string,
  field: string,
  opts: { slugOnly?: boolean } = {},
): Promise<Category> {
  const found = opts.slugOnly
    ? await em.findOne(CategoryEntity, { slug: raw }, { refresh: true })
    : await findCategory(em, raw);
  if (!found) throw validation(`${field} ${JSON.stringify(raw.slice(0, 64))} names no category`);
  return found;
}

async function assertSlugFree(em: Em, slug: string): Promise<void> {
  if (await em.count(CategoryEntity, { slug })) throw slugTaken(slug);
}

/** A parent must be an ordinary top-level category: the taxonomy has two levels. */
function assertCanBeParent(parent: Category): void {
  if (parent.isSystem) throw validation(`"${parent.slug}" cannot have child categories`);
  if (parent.parentId) throw validation(`"${parent.slug}" is itself a child category; categories have two levels only`);
}

async function childrenOf(em: Em, id: string): Promise<Category[]> {
  return em.find(CategoryEntity, { parentId: id }, { orderBy: { slug: "asc" }, refresh: true });
}

/** A category as the API shows it: with its parent and, for a top-level one, its children. */
export interface CategoryNode {
  category: Category;
  parent: Category | null;
  children: CategoryNode[];
}

/** The whole taxonomy: top-level categories by slug, each with its children by slug. */
export async function listCategoryTree(em: Em): Promise<CategoryNode[]> {
  const all = await em.find(CategoryEntity, {}, { orderBy: { slug: "asc" }, refresh: true });
  const byId = new Map(all.map((c) => [c.id, c]));
  const kids = new Map<string, CategoryNode[]>();
  for (const c of all) {
    if (!c.parentId) continue;
    kids.set(c.parentId, [
      ...(kids.get(c.parentId) ?? []),
      { category: c, parent: byId.get(c.parentId) ?? null, children: [] },
    ]);
  }
  return all.filter((c) => !c.parentId).map((c) => ({ category: c, parent: null, children: kids.get(c.id) ?? [] }));
}

export async function loadCategory(em: Em, id: string): Promise<CategoryNode> {
  const c = await em.findOneOrFail(CategoryEntity, { id }, { refresh: true });
  const parent = c.parentId ? await em.findOneOrFail(CategoryEntity, { id: c.parentId }, { refresh: true }) : null;
  const children = (await childrenOf(em, c.id)).map((k) => ({ category: k, parent: c, children: [] }));
  return { category: c, parent, children };
}

export async function createCategory(
  em: Em,
  actor: Actor,
  req: { slug?: string; displayName: string; parentSlug?: string },
): Promise<string> {
  const displayName = parseDisplayName(req.displayName);
  const slug = slugOrDerived(req.slug, displayName);
  const parentSlug = req.parentSlug?.trim() ? parseSlug(req.parentSlug, "parent_slug") : null;
  return em.transactional(async (tx) => {
    const parent = parentSlug ? await categoryNamedBy(tx, parentSlug, "parent_slug", { slugOnly: true }) : null;
    if (parent) assertCanBeParent(parent);
    await assertSlugFree(tx, slug);
    const id = crypto.randomUUID();
    const now = nowOf(tx);
    // Each attempt in its own savepoint, so a short-id clash does not abort the transaction.
    await withShortId((shortId) =>
      tx.transactional((sp) =>
        sp.insert(CategoryEntity, {
          id,
          shortId,
          slug,
          displayName,
          parentId: parent?.id ?? null,
          isSystem: false,
          createdAt: now,
          updatedAt: now,
        }),
      ),
    ).catch((e) => {
      throw isSlugTaken(e) ? slugTaken(slug) : e;
    });
    await recordAnnotation(tx, actor, {
      entityType: "category",
      entityId: id,
      action: "created",
      details: { slug, display_name: displayName, parent_slug: parent?.slug ?? null },
    });
    return id;
  });
}

export async function updateCategory(
  em: Em,
  actor: Actor,
  req: { id: string; slug?: string; displayName?: string; parentSlug?: string },
): Promise<string> {
  return em.transactional(async (tx) => {
    const c = await resolveCategory(tx, req.id);
    const changes: Record<string, { from: unknown; to: unknown }> = {};
    const set: Partial<Category> = {};

    if (req.displayName !== undefined) {
      const displayName = parseDisplayName(req.displayName);
      if (displayName !== c.displayName) {
        set.displayName = displayName;
        changes.display_name = { from: c.displayName, to: displayName };
      }
    }
    if (req.slug !== undefined) {
      const slug = parseSlug(req.slug);
      if (slug !== c.slug) {
        if (c.isSystem) throw systemProtected("change its slug");
        await assertSlugFree(tx, slug);
        set.slug = slug;
        changes.slug = { from: c.slug, to: slug };
      }
    }
    if (req.parentSlug !== undefined) {
      const wanted = req.parentSlug.trim()
        ? await categoryNamedBy(tx, parseSlug(req.parentSlug, "parent_slug"), "parent_slug", { slugOnly: true })
        : null;
      if ((wanted?.id ?? null) !== c.parentId) {
        if (c.isSystem) throw systemProtected("be moved under another category");
        const current = c.parentId ? await tx.findOneOrFail(CategoryEntity, { id: c.parentId }) : null;
        if (wanted) {
          if (wanted.id === c.id) throw validation("a category cannot be its own parent");
          assertCanBeParent(wanted);
          if ((await tx.count(CategoryEntity, { parentId: c.id })) > 0) {
            throw new CofferError(
              "CONFLICT",
              `"${c.slug}" has child categories, so it cannot become a child itself; move or merge its children first`,
            );
          }
        }
        set.parentId = wanted?.id ?? null;
        changes.parent_slug = { from: current?.slug ?? null, to: wanted?.slug ?? null };
      }
    }

    if (Object.keys(changes).length === 0) return c.id;
    await tx.nativeUpdate(CategoryEntity, { id: c.id }, { ...set, updatedAt: nowOf(tx) }).catch((e) => {
      throw isSlugTaken(e) ? slugTaken(String(set.slug)) : e;
    });
    await recordAnnotation(tx, actor, {
      entityType: "category",
      entityId: c.id,
      action: "updated",
      details: { slug: set.slug ?? c.slug, changes },
    });
    return c.id;
  });
}

/**
 * Sets the category of every transaction in `from` to `to` (null =
 * uncategorized), with one annotation per transaction in the same vocabulary
 * as a single categorization (category_set / category_reset).
 */
async function moveTransactions(
  tx: Em,
  actor: Actor,
  from: Category,
  to: Category | null,
  reason: string,
): Promise<number> {
  // A merge keeps how each transaction got its category; uncategorizing clears the source too.
  const moved = await moveTransactionsToCategory(tx, from.id, to?.id ?? null, to !== null);
  await recordAnnotations(
    tx,
    actor,
    moved.map((r) => ({
      entityType: "transaction" as const,
      entityId: r.id,
      transactionId: r.id,
      action: to ? "category_set" : "category_reset",
      details: to
        ? { from: from.slug, to: to.slug, source: r.previous_source, previous_source: r.previous_source, reason }
        : { from: from.slug, previous_source: r.previous_source, reason },
    })),
  );
  return moved.length;
}

async function deleteRow(tx: Em, c: Category): Promise<void> {
  try {
    await tx.nativeDelete(CategoryEntity, { id: c.id });
  } catch (e) {
    // A child added concurrently: the parent_id foreign key refuses the delete.
    if (isForeignKeyViolation(e)) throw new CofferError("CONFLICT", `"${c.slug}" has child categories`);
    throw e;
  }
}

/** Deletes a category; its transactions become uncategorized. Returns how many did. */
export async function deleteCategory(em: Em, actor: Actor, rawId: string): Promise<number> {
  return em.transactional(async (tx) => {
    const c = await resolveCategory(tx, rawId);
    if (c.isSystem) throw systemProtected("be deleted");
    await assertNotUsedByRules(tx, { kind: "category", id: c.id, slug: c.slug });
    const children = await childrenOf(tx, c.id);
    if (children.length > 0) {
      throw new CofferError(
        "CONFLICT",
        `"${c.slug}" has ${children.length} child categories; delete or merge them first, ` +
          `or merge "${c.slug}" into another top-level category`,
      );
    }
    const count = await moveTransactions(tx, actor, c, null, "category_deleted");
    await deleteRow(tx, c);
    await recordAnnotation(tx, actor, {
      entityType: "category",
      entityId: c.id,
      action: "deleted",
      details: { slug: c.slug, display_name: c.displayName, transactions_uncategorized: count },
    });
    return count;
  });
}

/**
 * Merges one category into another: its transactions move (keeping their
 * category_source), its children move under the target when the target is
 * top-level, and the source is deleted. Returns the target's id and the count.
 */
export async function mergeCategory(
  em: Em,
  actor: Actor,
  req: { id: string; into: string },
): Promise<{ targetId: string; moved: number }> {
  if (!req.into?.trim())
    throw validation("into is required: the slug or id of the category that receives the transactions");
  return em.transactional(async (tx) => {
    const source = await resolveCategory(tx, req.id);
    const target = await categoryNamedBy(tx, req.into.trim(), "into");
    if (source.id === target.id) throw validation("a category cannot be merged into itself");
    if (source.isSystem) throw systemProtected("be merged into another category");
    await assertNotUsedByRules(tx, { kind: "category", id: source.id, slug: source.slug });
    if (target.isSystem)
      throw validation(
        `merging into "${UNCATEGORIZED}" is not a merge; delete the category to uncategorize its transactions`,
      );

    const children = await childrenOf(tx, source.id);
    if (children.length > 0) {
      if (target.parentId) {
        throw new CofferError(
          "CONFLICT",
          `"${source.slug}" has child categories and "${target.slug}" is a child category; ` +
            "merge into a top-level category",
        );
      }
      await tx.nativeUpdate(CategoryEntity, { parentId: source.id }, { parentId: target.id, updatedAt: nowOf(tx) });
      await recordAnnotations(
        tx,
        actor,
        children.map((k) => ({
          entityType: "category" as const,
          entityId: k.id,
          action: "updated",
          details: {
            slug: k.slug,
            changes: { parent_slug: { from: source.slug, to: target.slug } },
            reason: "category_merged",
          },
        })),
      );
    }
    const moved = await moveTransactions(tx, actor, source, target, "category_merged");
    await deleteRow(tx, source);
    await recordAnnotation(tx, actor, {
      entityType: "category",
      entityId: source.id,
      action: "merged",
      details: {
        slug: source.slug,
        into: target.slug,
        transactions_moved: moved,
        children_moved: children.map((k) => k.slug),
      },
    });
    return { targetId: target.id, moved };
  });
}
