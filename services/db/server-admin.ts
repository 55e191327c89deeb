import type pg from "pg";

/**
 * The statements the supervisor sends to a PostgreSQL server before any ORM
 * exists (cli/embedded-postgres.ts): on a bare `pg` client of its own.
 */

/** Whether the server answers a statement on this connected client (throws when not). */
export async function ping(client: pg.Client): Promise<void> {
  await client.query("select 1");
}

/** Creates the database unless it exists; `name` is a plain lower-case identifier. */
export async function createDatabaseIfMissing(admin: pg.Client, name: string): Promise<void> {
  // CREATE DATABASE takes no bind parameter for its name, so only a plain identifier is accepted.
  if (!/^[a-z_][a-z0-9_]*$/.test(name)) throw new Error(`not a plain database name: ${name}`);
  const { rowCount } = await admin.query("select 1 from pg_database where datname = $1", [name]);
  if (!rowCount) await admin.query(`create database ${name}`);
}
