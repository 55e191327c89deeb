import type { Em } from "../orm.js";
import { query } from "../sql.js";

/** The id of the user with this email, compared case-insensitively like its unique index. */
export async function userIdByEmail(em: Em, email: string): Promise<string | undefined> {
  const rows = await query<{ id: string }>(em, `select id from users where lower(email) = lower(?)`, [email]);
  return rows[0]?.id;
}

/** How a row is named in a lookup: its UUID or its short id. */
type IdLookup = { column: "id" | "short_id"; value: string };

/** The UUID of the user a lookup names. */
export async function userIdByLookup(em: Em, lookup: IdLookup): Promise<string | undefined> {
  const [row] = await query<{ id: string }>(em, `select id from users where ${lookup.column} = ?`, [lookup.value]);
  return row?.id;
}

/** The short id of the user a lookup names. */
export async function userShortIdByLookup(em: Em, lookup: IdLookup): Promise<string | undefined> {
  const [row] = await query<{ short_id: string }>(em, `select short_id from users where ${lookup.column} = ?`, [
    lookup.value,
  ]);
  return row?.short_id;
}

/** The UUIDs of the first `limit` users, oldest first. */
export async function oldestUserIds(em: Em, limit: number): Promise<string[]> {
  const rows = await query<{ id: string }>(em, `select id from users order by created_at limit ?`, [limit]);
  return rows.map((r) => r.id);
}
