import type { Annotation } from "../../db/entities/index.js";
import type { Em } from "../../db/orm.js";
import { restoreDeletedTransaction, softDeleteTransaction } from "../../db/tables/transactions-edits.js";
import { CofferError } from "../../errors/coffer-error.js";
import type { Actor } from "../actor.js";
import { listTransactionAnnotations, recordAnnotation } from "../annotations.js";
import { lockTransaction, transactionShortId } from "./locked-row.js";
import { loadTransaction, resolveTransactionId, type TransactionView } from "./view.js";

// Soft delete: deleted_at hides a transaction from lists, counts, GET and
// every write, but keeps the row (so a re-import does not bring it back and
// its comments and audit timeline survive) until it is restored.

export async function deleteTransaction(em: Em, actor: Actor, rawId: string): Promise<void> {
  const id = await resolveTransactionId(em, rawId);
  await em.transactional(async (tx) => {
    await lockTransaction(tx, id);
    await softDeleteTransaction(tx, id);
    await recordAnnotation(tx, actor, {
      entityType: "transaction",
      entityId: id,
      transactionId: id,
      action: "deleted",
    });
  });
}

/** Restoring a transaction that is not deleted is a CONFLICT: the caller's picture of it is stale. */
export async function restoreTransaction(em: Em, actor: Actor, rawId: string): Promise<TransactionView> {
  const id = await resolveTransactionId(em, rawId, { includeDeleted: true });
  await em.transactional(async (tx) => {
    const row = await lockTransaction(tx, id, { deleted: "allow" });
    if (row.deletedAt === null) throw new CofferError("CONFLICT", "This transaction is not deleted");
    await restoreDeletedTransaction(tx, id);
    await recordAnnotation(tx, actor, {
      entityType: "transaction",
      entityId: id,
      transactionId: id,
      action: "restored",
    });
  });
  return loadTransaction(em, id);
}

/**
 * The audit timeline, oldest first. Readable for a soft-deleted transaction
 * too: it is how one finds out who deleted it, and when.
 */
export async function listAnnotations(
  em: Em,
  rawId: string,
): Promise<{ transactionShortId: string; annotations: Annotation[] }> {
  const id = await resolveTransactionId(em, rawId, { includeDeleted: true });
  return {
    transactionShortId: await transactionShortId(em, id),
    annotations: await listTransactionAnnotations(em, id),
  };
}
