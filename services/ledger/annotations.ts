import { AnnotationEntity, type Annotation } from "../db/entities/index.js";
import type { Em } from "../db/orm.js";
import { newShortId } from "../ids/short-id.js";
import { insertAnnotations } from "../db/tables/annotations.js";
import type { Actor } from "./actor.js";

export interface AnnotationInput {
  entityType:
    | "transaction"
    | "category"
    | "tag"
    | "counterparty"
    | "account"
    | "comment"
    | "report"
    | "series"
    | "connection"
    | "rule";
  entityId: string;
  /** The transaction whose timeline shows this entry, if any. */
  transactionId?: string | null;
  action: string;
  details?: Record<string, unknown>;
}

/**
 * Writes one audit entry. Call it inside the same database transaction as the
 * change it records, so a change and its annotation commit or roll back together.
 */
export async function recordAnnotation(em: Em, actor: Actor, input: AnnotationInput): Promise<void> {
  await recordAnnotations(em, actor, [input]);
}

/** Many entries in one INSERT (batch operations), sent as one JSON parameter. */
export async function recordAnnotations(em: Em, actor: Actor, inputs: AnnotationInput[]): Promise<void> {
  if (inputs.length === 0) return;
  let pending = inputs.map((i) => ({
    id: crypto.randomUUID(),
    transaction_id: i.transactionId ?? null,
    entity_type: i.entityType,
    entity_id: i.entityId,
    action: i.action,
    actor_type: actor.type,
    actor_id: actor.id,
    actor_name: actor.name,
    details: i.details ?? {},
  }));
  // Rows whose short id collided are skipped by the insert and retried with a new one.
  for (let attempt = 0; pending.length > 0; attempt++) {
    if (attempt === 5) throw new Error("could not allocate unique short ids for annotations");
    const rows = pending.map((r) => ({ ...r, short_id: newShortId() }));
    const inserted = await insertAnnotations(em, rows);
    const done = new Set(inserted);
    pending = pending.filter((r) => !done.has(r.id));
  }
}

export async function listTransactionAnnotations(em: Em, transactionId: string): Promise<Annotation[]> {
  return em.find(AnnotationEntity, { transactionId }, { orderBy: { createdAt: "asc", id: "asc" } });
}
