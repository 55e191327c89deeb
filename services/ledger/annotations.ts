import { AnnotationEntity, type Annotation } from "../db/entities/index.js";
import type { Em } from "../db/orm.js";
import { newShortId } from "../ids/short-id.js";
import { query } from "../db/sql.js";
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
    // clock_timestamp(), not one JS Date: it has microseconds and advances from row to row (in the
    // order given), so the timeline's (created_at, id) order is the order the changes were made.
    const inserted = await query<{ id: string }>(
      em,
      `insert into annotations
         (id, short_id, transaction_id, entity_type, entity_id, action, actor_type, actor_id, actor_name, details,
          created_at)
       select v.id, v.short_id, v.transaction_id, v.entity_type, v.entity_id, v.action, v.actor_type, v.actor_id,
         v.actor_name, v.details, clock_timestamp()
       from jsonb_to_recordset(?::jsonb) as v(id uuid, short_id text, transaction_id uuid, entity_type text,
         entity_id uuid, action text, actor_type text, actor_id text, actor_name text, details jsonb)
       on conflict (short_id) do nothing returning id`,
      [JSON.stringify(rows)],
    );
    const done = new Set(inserted.map((r) => r.id));
    pending = pending.filter((r) => !done.has(r.id));
  }
}

export async function listTransactionAnnotations(em: Em, transactionId: string): Promise<Annotation[]> {
  return em.find(AnnotationEntity, { transactionId }, { orderBy: { createdAt: "asc", id: "asc" } });
}
