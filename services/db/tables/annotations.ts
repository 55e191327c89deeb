import type { Em } from "../orm.js";
import { pgArray, query } from "../sql.js";

/** The statements that write and read `annotations`, the audit timeline (docs/transaction-changes.md). */

/** One audit entry as it is inserted. */
export interface AnnotationRow {
  id: string;
  short_id: string;
  transaction_id: string | null;
  entity_type: string;
  entity_id: string;
  action: string;
  actor_type: string;
  actor_id: string | null;
  actor_name: string;
  details: Record<string, unknown>;
}

/**
 * Inserts the entries in one statement; a row whose short id is taken is
 * skipped (the caller retries it with a new one). Returns the ids inserted.
 *
 * A batch repeats a few kinds of entry (a rule's tag_added on every new
 * transaction of a sync page): each distinct kind (entity type, action,
 * actor, details) is sent once, and each row as its ids and the kind's
 * index, as bound arrays. That is a third of the bytes of one JSON object a
 * row, and PostgreSQL parses no JSON per row.
 *
 * clock_timestamp(), not one JS Date: it has microseconds and advances from row to row (in the
 * order given), so the timeline's (created_at, id) order is the order the changes were made.
 */
export async function insertAnnotations(em: Em, rows: readonly AnnotationRow[]): Promise<string[]> {
  const kinds: string[] = [];
  const kindIndex = new Map<string, number>();
  const kindOf = rows.map((r) => {
    const kind = JSON.stringify([r.entity_type, r.action, r.actor_type, r.actor_id, r.actor_name, r.details]);
    let i = kindIndex.get(kind);
    if (i === undefined) kindIndex.set(kind, (i = kinds.push(kind) - 1));
    return String(i);
  });
  const inserted = await query<{ id: string }>(
    em,
    `insert into annotations
       (id, short_id, transaction_id, entity_type, entity_id, action, actor_type, actor_id, actor_name, details,
        created_at)
     select x.id, x.short_id, x.transaction_id, k.kinds -> x.kind ->> 0, x.entity_id, k.kinds -> x.kind ->> 1,
       k.kinds -> x.kind ->> 2, k.kinds -> x.kind ->> 3, k.kinds -> x.kind ->> 4, k.kinds -> x.kind -> 5,
       clock_timestamp()
     from (select ?::jsonb as kinds) k,
       unnest(?::uuid[], ?::text[], ?::uuid[], ?::uuid[], ?::int[]) as x(id, short_id, transaction_id, entity_id, kind)
     on conflict (short_id) do nothing returning id`,
    [
      `[${kinds.join(",")}]`,
      pgArray(rows.map((r) => r.id)),
      pgArray(rows.map((r) => r.short_id)),
      pgArray(rows.map((r) => r.transaction_id)),
      pgArray(rows.map((r) => r.entity_id)),
      pgArray(kindOf),
    ],
  );
  return inserted.map((r) => r.id);
}
