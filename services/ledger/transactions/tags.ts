import { isSlug } from "../../shared/validate.js";
import type { Em } from "../../db/orm.js";
import { findTagsBySlug, insertTagIfAbsent } from "../../db/tables/tags.js";
import { setTransactionTagIds } from "../../db/tables/transactions-edits.js";
import { CofferError, notFound, validation } from "../../errors/coffer-error.js";
import { newShortId } from "../../ids/short-id.js";
import type { Actor } from "../actor.js";
import { recordAnnotation, recordAnnotations, type AnnotationInput } from "../annotations.js";
import { lockTransaction, quoted } from "./locked-row.js";
import { loadTransaction, resolveTransactionId, type TransactionView } from "./view.js";

export function parseTagSlug(raw: string): string {
  const slug = raw.trim();
  if (!isSlug(slug)) throw validation(`tag slug ${quoted(slug)} must be 1-64 characters of a-z, 0-9 and _`);
  return slug;
}

/** "coffee_shops" → "Coffee shops": the display name of a tag created by tagging a transaction with a new slug. */
export function displayNameFromSlug(slug: string): string {
  const words = slug.split("_").filter(Boolean).join(" ");
  return words ? words[0].toUpperCase() + words.slice(1) : slug;
}

/** Ids of the tags with these slugs, creating the missing ones (each with its own annotation). */
export async function ensureTags(tx: Em, actor: Actor, slugs: string[]): Promise<Map<string, string>> {
  const ids = await tagIdsBySlug(tx, slugs);
  for (const slug of slugs.filter((s) => !ids.has(s))) {
    ids.set(slug, await createTag(tx, actor, slug));
  }
  return ids;
}

async function tagIdsBySlug(em: Em, slugs: string[]): Promise<Map<string, string>> {
  if (slugs.length === 0) return new Map();
  const rows = await findTagsBySlug(em, slugs);
  return new Map(rows.map((r) => [r.slug, r.id]));
}

/**
 * Inserts a tag; "on conflict do nothing" covers both a concurrent creator of
 * the same slug (then its row is used) and a short-id clash (then retried with
 * a new short id), without aborting the surrounding transaction.
 */
async function createTag(tx: Em, actor: Actor, slug: string): Promise<string> {
  const displayName = displayNameFromSlug(slug);
  for (let attempt = 0; attempt < 5; attempt++) {
    const id = crypto.randomUUID();
    if (await insertTagIfAbsent(tx, { id, shortId: newShortId(), slug, displayName })) {
      await recordAnnotation(tx, actor, {
        entityType: "tag",
        entityId: id,
        action: "tag_created",
        details: { slug, display_name: displayName, via: "transaction_tag" },
      });
      return id;
    }
    const existing = await tagIdsBySlug(tx, [slug]);
    if (existing.has(slug)) return existing.get(slug)!;
  }
  throw new Error("could not allocate a unique short id for a tag");
}

export interface TagChanges {
  add?: string[];
  remove?: string[];
}

/**
 * Adds and removes tags in one atomic change with one annotation per tag
 * actually added or removed. Adding a tag already present changes nothing;
 * removing one the transaction does not carry is NOT_FOUND and nothing changes.
 */
export async function updateTransactionTags(
  em: Em,
  actor: Actor,
  rawId: string,
  changes: TagChanges,
): Promise<TransactionView> {
  const add = [...new Set((changes.add ?? []).map(parseTagSlug))];
  // A slug that cannot exist cannot be on the transaction: the same NOT_FOUND as any absent tag.
  const remove = [...new Set((changes.remove ?? []).map((s) => s.trim()))];
  if (add.length === 0 && remove.length === 0) throw validation("give at least one tag to add or remove");
  const both = add.find((s) => remove.includes(s));
  if (both) throw validation(`tag ${quoted(both)} is both added and removed`);
  const id = await resolveTransactionId(em, rawId);

  await em.transactional(async (tx) => {
    const row = await lockTransaction(tx, id);
    const current = new Set(row.tagIds);
    const removeIds = await tagIdsBySlug(tx, remove.filter(isSlug));
    for (const slug of remove) {
      const tagId = removeIds.get(slug);
      if (!tagId) throw notFound(`Tag ${quoted(slug)}`);
      if (!current.has(tagId)) throw new CofferError("NOT_FOUND", `Tag ${quoted(slug)} is not on this transaction`);
    }
    const addIds = await ensureTags(tx, actor, add);
    const added = add.filter((slug) => !current.has(addIds.get(slug)!));
    if (added.length === 0 && remove.length === 0) return;

    const removed = new Set(removeIds.values());
    const next = [...row.tagIds.filter((t) => !removed.has(t)), ...added.map((s) => addIds.get(s)!)];
    await setTransactionTagIds(tx, id, next);
    const annotation = (action: string, slug: string): AnnotationInput => ({
      entityType: "transaction",
      entityId: id,
      transactionId: id,
      action,
      details: { tag: slug },
    });
    await recordAnnotations(tx, actor, [
      ...added.map((s) => annotation("tag_added", s)),
      ...remove.map((s) => annotation("tag_removed", s)),
    ]);
  });
  return loadTransaction(em, id);
}
