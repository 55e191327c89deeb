import type { Em } from "../orm.js";
import { pgArray, query } from "../sql.js";

/**
 * The raw statements on `counterparties` (the ORM entity CounterpartyEntity
 * covers single-row reads and writes). Names compare case-insensitively,
 * like the table's unique index.
 */

/** Short ids by UUID of these counterparties (unknown ones are left out). */
export async function counterpartyShortIds(em: Em, ids: readonly string[]): Promise<Map<string, string>> {
  if (ids.length === 0) return new Map();
  const rows = await query<{ id: string; short_id: string }>(
    em,
    `select id, short_id from counterparties where id = any(?::uuid[])`,
    [pgArray(ids)],
  );
  return new Map(rows.map((r) => [r.id, r.short_id]));
}

/** The id of the counterparty with this name, or null. */
export async function findCounterpartyIdByName(em: Em, name: string): Promise<string | null> {
  const [row] = await query<{ id: string }>(em, `select id from counterparties where lower(name) = lower(?)`, [name]);
  return row?.id ?? null;
}

/** Whether another counterparty than `exceptId` has this name. */
export async function counterpartyNameTaken(em: Em, name: string, exceptId: string | null): Promise<boolean> {
  const rows = await query(
    em,
    `select 1 from counterparties where lower(name) = lower(?) and id is distinct from ?::uuid`,
    [name, exceptId],
  );
  return rows.length > 0;
}

/** The counterparties among these UUIDs and short ids. */
export async function findCounterpartiesByIds(
  em: Em,
  uuids: readonly string[],
  shortIds: readonly string[],
): Promise<{ id: string; short_id: string; name: string }[]> {
  return query<{ id: string; short_id: string; name: string }>(
    em,
    `select id, short_id, name from counterparties where id = any(?::uuid[]) or short_id = any(?::text[])`,
    [pgArray(uuids), pgArray(shortIds)],
  );
}
