import type { CategorySource } from "../entities/index.js";
import type { Em } from "../orm.js";
import { query } from "../sql.js";

/** The statements of the rules pass (services/rules/runner.ts): it writes what rules change, at the version read. */

// ---------------------------------------------------------------- the rules

/** The values the rules leave on a stored row, at the version (seq) they read. */
export interface RuledRow {
  id: string;
  seq: string;
  category_id: string | null;
  category_source: CategorySource | null;
  tag_ids: string[];
  metadata: Record<string, unknown>;
  counterparty_id: string | null;
}

/**
 * Writes the rules' values in one statement; with `checkVersion`, only rows
 * still at the version read. Returns the ids written.
 */
export async function writeRuledTransactions(
  tx: Em,
  rows: readonly RuledRow[],
  opts: { checkVersion: boolean },
): Promise<string[]> {
  const updated = await query<{ id: string }>(
    tx,
    `update transactions t set category_id = v.category_id, category_source = v.category_source,
       tag_ids = v.tag_ids, metadata = v.metadata, counterparty_id = v.counterparty_id
     from jsonb_to_recordset(?::jsonb) as v(id uuid, seq bigint, category_id uuid, category_source text,
       tag_ids uuid[], metadata jsonb, counterparty_id uuid)
     where t.id = v.id and t.deleted_at is null${opts.checkVersion ? " and t.seq = v.seq" : ""}
     returning t.id`,
    [JSON.stringify(rows)],
  );
  return updated.map((r) => r.id);
}

/**
 * Locks live rows in id order (the rows a rule changes without changing
 * their columns, e.g. it only adds a comment); with `checkVersion`, only
 * rows still at the version read. Returns the ids locked.
 */
export async function lockTransactionsAtVersion(
  tx: Em,
  rows: readonly { id: string; seq: string }[],
  opts: { checkVersion: boolean },
): Promise<string[]> {
  const locked = await query<{ id: string }>(
    tx,
    `select t.id from transactions t join jsonb_to_recordset(?::jsonb) as v(id uuid, seq bigint) on t.id = v.id
     where t.deleted_at is null${opts.checkVersion ? " and t.seq = v.seq" : ""} order by t.id for update of t`,
    [JSON.stringify(rows)],
  );
  return locked.map((r) => r.id);
}
