import type { Em } from "../orm.js";
import { query } from "../sql.js";

/** A list of rows newest first by a timestamp, then id: what services/pagination/time-keyset.ts pages through. */
export interface TimeOrderedRows {
  /** Whether the row a cursor continues from still exists. */
  has(em: Em, id: string): Promise<boolean>;
  /**
   * Up to `limit` rows, newest first, after `after` when given; each with its
   * position (the timestamp as UTC text with microseconds, so the keyset never
   * rounds two rows onto one position).
   */
  page(
    em: Em,
    after: { position: string; id: string } | null,
    limit: number,
  ): Promise<{ id: string; position: string }[]>;
}

/** The rows of `table` matching `where` (`?` parameters), newest first by `timeColumn`. */
export function timeOrdered(
  table: "sync_logs" | "webhook_events",
  timeColumn: "started_at" | "received_at",
  where: { sql: string; params: unknown[] },
): TimeOrderedRows {
  return {
    async has(em, id) {
      return (await query(em, `select 1 from ${table} where id = ?::uuid`, [id])).length > 0;
    },
    async page(em, after, limit) {
      const keyset = after ? ` and (${timeColumn}, id) < (?::timestamptz, ?::uuid)` : "";
      return query<{ id: string; position: string }>(
        em,
        `select id, to_char(${timeColumn} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as position
         from ${table} where (${where.sql})${keyset}
         order by ${timeColumn} desc, id desc limit ${Math.trunc(limit)}`,
        after ? [...where.params, after.position, after.id] : where.params,
      );
    },
  };
}
