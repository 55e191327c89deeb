import type { Em } from "../orm.js";
import { query } from "../sql.js";

/** Answers when the database runs a statement; throws when it cannot. */
export async function pingDatabase(em: Em): Promise<void> {
  await query(em, "select 1");
}

export async function serverVersion(em: Em): Promise<string> {
  const [{ server_version }] = await query<{ server_version: string }>(
    em,
    `select current_setting('server_version') as server_version`,
  );
  return server_version;
}

/** The migrations the database records as applied, in order. */
export async function appliedMigrations(em: Em): Promise<{ name: string; executed_at: Date | string }[]> {
  return query<{ name: string; executed_at: Date | string }>(
    em,
    `select name, executed_at from mikro_orm_migrations order by id`,
  );
}
