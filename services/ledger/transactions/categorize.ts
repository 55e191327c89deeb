import { isSlug } from "../../shared/validate.js";
import type { CategorySource } from "../../db/entities/index.js";
import type { Em } from "../../db/orm.js";
import { isForeignKeyViolation } from "../../db/sql.js";
import { findCategoryIdBySlug } from "../../db/tables/categories.js";
import { lockTransactionCategories, setTransactionsCategory } from "../../db/tables/transactions-edits.js";
import { CofferError, validation } from "../../errors/coffer-error.js";
import type { Actor } from "../actor.js";
import { recordAnnotation, recordAnnotations } from "../annotations.js";
import { UNCATEGORIZED } from "../taxonomy.js";
import { checkBatchSize, resolveTransactionIds } from "./batch-ids.js";
import { lockTransaction, quoted } from "./locked-row.js";
import { loadTransaction, resolveTransactionId, type TransactionView } from "./view.js";

/*
 * Who chose a category is stored in category_source: "user" (a person's key,
 * or the operator's CLI), "agent" (an AI agent's key), "rule" (the rules
 * engine) or "system" (the provider's category mapped at import). A later
 * rule may refine a "system" or "rule" category, never a "user" or "agent"
 * one (docs/transaction-changes.md, docs/rules.md). ResetTransactionCategory clears both the
 * category and its source, which hands the row back to the rules.
 */

export interface CategoryChoice {
  /** null for uncategorized (category_id null means uncategorized). */
  id: string | null;
  slug: string;
}

/** A known category slug, or VALIDATION_ERROR naming it. */
export async function categoryBySlug(em: Em, raw: string | undefined): Promise<CategoryChoice> {
  const slug = (raw ?? "").trim();
  if (!slug) throw validation("category_slug is required");
  if (slug === UNCATEGORIZED) return { id: null, slug };
  const id = isSlug(slug) ? await findCategoryIdBySlug(em, slug) : null;
  if (id === null) throw validation(`Unknown category_slug ${quoted(slug)}; GET /api/v1/categories lists the slugs`);
  return { id, slug };
}

/**
 * The category source a change by this actor records. The operator's CLI is
 * a person too; "system" is kept for what importers map from a provider.
 */
const sourceOf = (actor: Actor): CategorySource => (actor.type === "system" ? "user" : actor.type);

/** A category deleted between validation and the update: the same answer as an unknown slug. */
function categoryGone(slug: string) {
  return (e: unknown): never => {
    if (isForeignKeyViolation(e)) throw validation(`Unknown category_slug ${quoted(slug)}`);
    throw e;
  };
}

/**
 * Sets the category as this actor's choice. Setting "uncategorized" is a
 * choice too (category_id null, source kept), so rules leave it alone; use
 * resetTransactionCategory to hand the row back to the rules.
 */
export async function setTransactionCategory(
  em: Em,
  actor: Actor,
  rawId: string,
  rawSlug: string,
): Promise<TransactionView> {
  const id = await resolveTransactionId(em, rawId);
  const category = await categoryBySlug(em, rawSlug);
  const source = sourceOf(actor);
  await em.transactional(async (tx) => {
    const row = await lockTransaction(tx, id);
    if (row.categoryId === category.id && row.categorySource === source) return;
    await setTransactionsCategory(tx, [id], category.id, source).catch(categoryGone(category.slug));
    await recordAnnotation(tx, actor, {
      entityType: "transaction",
      entityId: id,
      transactionId: id,
      action: "category_set",
      details: { from: row.categorySlug, to: category.slug, source, previous_source: row.categorySource },
    });
  });
  return loadTransaction(em, id);
}

/** Forgets the assigned category and who chose it; a no-op (no annotation) when there is nothing to forget. */
export async function resetTransactionCategory(em: Em, actor: Actor, rawId: string): Promise<TransactionView> {
  const id = await resolveTransactionId(em, rawId);
  await em.transactional(async (tx) => {
    const row = await lockTransaction(tx, id);
    if (row.categoryId === null && row.categorySource === null) return;
    await setTransactionsCategory(tx, [id], null, null);
    await recordAnnotation(tx, actor, {
      entityType: "transaction",
      entityId: id,
      transactionId: id,
      action: "category_reset",
      details: { from: row.categorySlug, previous_source: row.categorySource },
    });
  });
  return loadTransaction(em, id);
}

/**
 * Sets one category on up to 500 transactions, all or nothing. Returns how
 * many changed: rows that already had this category from this kind of actor
 * are left as they are and get no annotation.
 */
export async function batchCategorizeTransactions(
  em: Em,
  actor: Actor,
  rawIds: string[],
  rawSlug: string,
): Promise<number> {
  checkBatchSize(rawIds);
  const category = await categoryBySlug(em, rawSlug);
  const ids = await resolveTransactionIds(em, rawIds);
  const source = sourceOf(actor);
  return em.transactional(async (tx) => {
    // Locked in id order so two overlapping batches cannot deadlock.
    const rows = await lockTransactionCategories(tx, ids);
    const gone = rows.length < ids.length ? ids.length - rows.length : rows.filter((r) => r.deleted).length;
    if (gone > 0)
      throw new CofferError("NOT_FOUND", `${gone} of the transactions was deleted meanwhile; nothing was changed`);
    const changed = rows.filter((r) => r.category_id !== category.id || r.category_source !== source);
    if (changed.length === 0) return 0;
    await setTransactionsCategory(
      tx,
      changed.map((r) => r.id),
      category.id,
      source,
    ).catch(categoryGone(category.slug));
    await recordAnnotations(
      tx,
      actor,
      changed.map((r) => ({
        entityType: "transaction" as const,
        entityId: r.id,
        transactionId: r.id,
        action: "category_set",
        details: { from: r.slug, to: category.slug, source, previous_source: r.category_source, batch: true },
      })),
    );
    return changed.length;
  });
}
