import { createHash } from "node:crypto";
import { ForeignKeyConstraintViolationException } from "@mikro-orm/core";
import type { Knex } from "@mikro-orm/postgresql";
import type { Em } from "./orm.js";

/**
 * Parameterized raw SQL (`?` placeholders) on the entity manager's connection,
 * inside its current transaction when there is one. The only way raw SQL is run.
 */
export async function query<T = Record<string, unknown>>(
  em: Em,
  sql: string,
  params: unknown[] = [],
  opts: { prepare?: boolean } = {},
): Promise<T[]> {
  if (opts.prepare && !em.getTransactionContext()) return prepared<T>(em, sql, params);
  return (await em.getConnection().execute(sql, params as never[], "all", em.getTransactionContext())) as T[];
}

interface PgConnection {
  query(q: { name: string; text: string; values: readonly unknown[] }): Promise<{ rows: unknown[] }>;
}

/**
 * The hot reads (every RPC's key lookup, every transaction page) run as named
 * prepared statements: each pooled connection parses a statement once and
 * PostgreSQL caches its analysis, which saves a few milliseconds of planning
 * work per call on the transaction page. The name is derived from the SQL text.
 */
async function prepared<T>(em: Em, sql: string, params: unknown[]): Promise<T[]> {
  const knex = em.getKnex();
  const native = knex.raw(sql, params as never[]).toSQL().toNative();
  const name = `coffer_${createHash("sha1").update(native.sql).digest("hex").slice(0, 24)}`;
  const client = knex.client as unknown as { acquireConnection(): Promise<PgConnection>; releaseConnection(c: PgConnection): Promise<void> };
  const conn = await client.acquireConnection();
  try {
    return (await conn.query({ name, text: native.sql, values: native.bindings })).rows as T[];
  } finally {
    await client.releaseConnection(conn);
  }
}

/** SQL rendering a timestamptz column as UTC ISO 8601 text with milliseconds (what `tsFromIso` and `new Date` read). */
export const iso = (column: string) => `to_char(${column} at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.MS"Z"')`;

/** A knex query builder bound to the entity manager's current transaction. */
export function table(em: Em, name: string): Knex.QueryBuilder {
  const qb = em.getKnex().table(name);
  const tx = em.getTransactionContext<Knex.Transaction>();
  return tx ? qb.transacting(tx) : qb;
}

/**
 * knex expands an array binding into a list of values, so arrays are passed
 * as one Postgres array literal instead: `where id = any(?::uuid[])` with
 * `pgArray(ids)`. Every element is quoted and escaped.
 */
export function pgArray(values: readonly string[]): string {
  return `{${values.map((v) => `"${v.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`).join(",")}}`;
}

/**
 * A write refused by a foreign key. PostgreSQL reports an ON DELETE RESTRICT
 * refusal as 23001 (restrict_violation) from version 18 on and as 23503
 * (foreign_key_violation) before; MikroORM only recognises the latter.
 */
export function isForeignKeyViolation(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return e instanceof ForeignKeyConstraintViolationException || code === "23503" || code === "23001";
}
