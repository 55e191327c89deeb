import { TagEntity, type Tag } from "../../db/entities/index.js";
import type { Em } from "../../db/orm.js";
import { removeTagFromTransactions } from "../../db/tables/transactions-edits.js";
import { CofferError, notFound, validation } from "../../errors/coffer-error.js";
import { withShortId } from "../../ids/insert.js";
import { parseId } from "../../ids/resolve-id.js";
import type { Actor } from "../actor.js";
import { recordAnnotation, recordAnnotations } from "../annotations.js";
import { isSlug, parseSlug } from "../../shared/validate.js";
import { isSlugTaken, parseDisplayName, slugify } from "../categories/slug.js";
import { assertNotUsedByRules } from "../../rules/usage.js";
import { nowOf } from "../../clock.js";

const COLOR = /^#[0-9a-f]{6}$/;
const slugTaken = (slug: string) => new CofferError("SLUG_CONFLICT", `A tag with slug "${slug}" already exists`);

/** "#RRGGBB" in any case → "#rrggbb"; "" → null (no color). */
export function parseColor(raw: string): string | null {
  const color = raw.trim().toLowerCase();
  if (color === "") return null;
  if (!COLOR.test(color)) throw validation('color must be a hex color like "#1f77b4"');
  return color;
}

/** "tax_deductible" → "Tax deductible": a readable name when only a slug was given. */
export function displayNameFromSlug(slug: string): string {
  const words = slug.replace(/_+/g, " ").trim();
  return words.charAt(0).toUpperCase() + words.slice(1);
}

/** A tag by UUID, short id or slug (an 8-letter slug also looks like a short id, so both are tried). */
export async function resolveTag(em: Em, raw: string): Promise<Tag> {
  const lookup = parseId(raw);
  if (lookup) {
    const where = lookup.column === "id" ? { id: lookup.value } : { shortId: lookup.value };
    const found = await em.findOne(TagEntity, where, { refresh: true });
    if (found) return found;
  }
  if (isSlug(raw)) {
    const found = await em.findOne(TagEntity, { slug: raw }, { refresh: true });
    if (found) return found;
  }
  throw notFound("Tag");
}

/** The id of the tag with this slug, or null. */
export async function findTagIdBySlug(em: Em, rawSlug: string): Promise<string | null> {
  const found = await em.findOne(TagEntity, { slug: parseSlug(rawSlug) }, { refresh: true });
  return found?.id ?? null;
}

export async function listTags(em: Em): Promise<Tag[]> {
  return em.find(TagEntity, {}, { orderBy: { slug: "asc" }, refresh: true });
}

export async function loadTag(em: Em, id: string): Promise<Tag> {
  return em.findOneOrFail(TagEntity, { id }, { refresh: true });
}

async function assertSlugFree(em: Em, slug: string): Promise<void> {
  if (await em.count(TagEntity, { slug })) throw slugTaken(slug);
}

/** Slug and display name: either may be left out and is then derived from the other. */
function nameAndSlug(req: { slug?: string; displayName?: string }): { slug: string; displayName: string } {
  const hasSlug = !!req.slug?.trim();
  const hasName = !!req.displayName?.trim();
  if (!hasSlug && !hasName) throw validation("give a slug or a display_name (or both)");
  const displayName = hasName ? parseDisplayName(req.displayName) : displayNameFromSlug(parseSlug(req.slug!));
  const slug = hasSlug ? parseSlug(req.slug!) : slugify(displayName);
  if (!slug) throw validation("slug cannot be derived from display_name; give a slug of a-z, 0-9 and _");
  return { slug, displayName };
}

export async function createTag(
  em: Em,
  actor: Actor,
  req: { slug?: string; displayName?: string; color?: string },
): Promise<string> {
  const { slug, displayName } = nameAndSlug(req);
  const color = req.color === undefined ? null : parseColor(req.color);
  return em.transactional(async (tx) => {
    await assertSlugFree(tx, slug);
    const id = crypto.randomUUID();
    const now = nowOf(tx);
    // Each attempt in its own savepoint, so a short-id clash does not abort the transaction.
    await withShortId((shortId) =>
      tx.transactional((sp) =>
        sp.insert(TagEntity, { id, shortId, slug, displayName, color, createdAt: now, updatedAt: now }),
      ),
    ).catch((e) => {
      throw isSlugTaken(e) ? slugTaken(slug) : e;
    });
    await recordAnnotation(tx, actor, {
      entityType: "tag",
      entityId: id,
      action: "created",
      details: { slug, display_name: displayName, color },
    });
    return id;
  });
}

export async function updateTag(
  em: Em,
  actor: Actor,
  req: { id: string; slug?: string; displayName?: string; color?: string },
): Promise<string> {
  return em.transactional(async (tx) => {
    const t = await resolveTag(tx, req.id);
    const set: Partial<Tag> = {};
    const changes: Record<string, { from: unknown; to: unknown }> = {};
    if (req.slug !== undefined) {
      const slug = parseSlug(req.slug);
      if (slug !== t.slug) {
        await assertSlugFree(tx, slug);
        set.slug = slug;
        changes.slug = { from: t.slug, to: slug };
      }
    }
    if (req.displayName !== undefined) {
      const displayName = parseDisplayName(req.displayName);
      if (displayName !== t.displayName) {
        set.displayName = displayName;
        changes.display_name = { from: t.displayName, to: displayName };
      }
    }
    if (req.color !== undefined) {
      const color = parseColor(req.color);
      if (color !== t.color) {
        set.color = color;
        changes.color = { from: t.color, to: color };
      }
    }
    if (Object.keys(changes).length === 0) return t.id;
    await tx.nativeUpdate(TagEntity, { id: t.id }, { ...set, updatedAt: nowOf(tx) }).catch((e) => {
      throw isSlugTaken(e) ? slugTaken(String(set.slug)) : e;
    });
    await recordAnnotation(tx, actor, {
      entityType: "tag",
      entityId: t.id,
      action: "updated",
      details: { slug: set.slug ?? t.slug, changes },
    });
    return t.id;
  });
}

/** Deletes a tag and takes it off every transaction carrying it, one annotation per transaction. */
export async function deleteTag(em: Em, actor: Actor, rawId: string): Promise<number> {
  return em.transactional(async (tx) => {
    const t = await resolveTag(tx, rawId);
    await assertNotUsedByRules(tx, { kind: "tag", id: t.id, slug: t.slug });
    const affected = await removeTagFromTransactions(tx, t.id);
    await recordAnnotations(
      tx,
      actor,
      affected.map((id) => ({
        entityType: "transaction" as const,
        entityId: id,
        transactionId: id,
        action: "tag_removed",
        details: { slug: t.slug, reason: "tag_deleted" },
      })),
    );
    await tx.nativeDelete(TagEntity, { id: t.id });
    await recordAnnotation(tx, actor, {
      entityType: "tag",
      entityId: t.id,
      action: "deleted",
      details: { slug: t.slug, display_name: t.displayName, transactions_updated: affected.length },
    });
    return affected.length;
  });
}
