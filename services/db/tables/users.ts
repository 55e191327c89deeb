import type { Em } from "../orm.js";
import { query } from "../sql.js";

/** The id of the user with this email, compared case-insensitively like its unique index. */
export async function userIdByEmail(em: Em, email: string): Promise<string | undefined> {
  const rows = await query<{ id: string }>(em, `select id from users where lower(email) = lower(?)`, [email]);
  return rows[0]?.id;
}
