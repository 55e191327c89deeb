import type { Em } from "../orm.js";
import { query } from "../sql.js";

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
 * clock_timestamp(), not one JS Date: it has microseconds and advances from row to row (in the
 * order given), so the timeline's (created_at, id) order is the order the changes were made.
 */
export async function insertAnnotations(em: Em, rows: readonly AnnotationRow[]): Promise<string[]> {
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
    { bound: true },
  );
  return inserted.map((r) => r.id);
}
