import { createHash } from "node:crypto";
import { ForeignKeyConstraintViolationException } from "@mikro-orm/core";
import type { Knex } from "@mikro-orm/postgresql";
import pg from "pg";
import type { Em } from "./orm.js";

/**
 * Parameterized raw SQL (`?` placeholders) on the entity manager's connection,
 * inside its current transaction when there is one. The only way raw SQL is run.
 *
 * MikroORM writes the parameters into the SQL text itself; `bound` sends them
 * to PostgreSQL as bind parameters instead, which is cheaper for statements
 * that carry megabytes of values (the sync engine's page writes). Its
 * parameters must be scalars or array literals (`pgArray`), never JS arrays.
 */
export async function query<T = Record<string, unknown>>(
  em: Em,
  sql: string,
  params: unknown[] = [],
  opts: { prepare?: boolean; bound?: boolean } = {},
): Promise<T[]> {
  if (opts.prepare && !em.getTransactionContext()) return prepared<T>(em, sql, params);
  if (opts.bound) {
    const raw = em.getKnex().raw(sql, params as never[]);
    const tx = em.getTransactionContext<Knex.Transaction>();
    const result = (await (tx ? raw.transacting(tx) : raw)) as { rows: T[] };
    return result.rows;
  }
  return em.getConnection().execute<T[]>(sql, params, "all", em.getTransactionContext());
}

/**
 * Named prepared statements run on a small pg pool of their own beside the
 * ORM's, since knex has no public way to name a statement. One pool per ORM
 * connection, made on first use, with the ORM's connection settings (size,
 * statement and connect timeouts); closeOrm ends it (idle clients also end by themselves,
 * so a forgotten pool never keeps a process alive).
 */
const preparedPools = new WeakMap<object, pg.Pool>();

function preparedPool(em: Em): pg.Pool {
  const owner = em.getConnection();
  let pool = preparedPools.get(owner);
  if (!pool) {
    const connection = em.config.get("driverOptions")?.connection as
      { statement_timeout?: number; connectionTimeoutMillis?: number } | undefined;
    pool = new pg.Pool({
      connectionString: em.config.get("clientUrl"),
      max: em.config.get("pool")?.max ?? 10,
      statement_timeout: connection?.statement_timeout,
      connectionTimeoutMillis: connection?.connectionTimeoutMillis,
      idleTimeoutMillis: 30_000,
      allowExitOnIdle: true,
    });
    // An idle client the server dropped (a restart, a dropped test database): the pool replaces it.
    pool.on("error", () => undefined);
    preparedPools.set(owner, pool);
  }
  return pool;
}

/** Ends the prepared-statement pool of an ORM, if it has one. */
export async function endPreparedPool(em: Em): Promise<void> {
  const owner = em.getConnection();
  const pool = preparedPools.get(owner);
  preparedPools.delete(owner);
  await pool?.end();
}

/**
 * The hot reads (every RPC's key lookup, every transaction page) run as named
 * prepared statements: each pooled connection parses a statement once and
 * PostgreSQL caches its analysis, which saves planning work on every call of
 * the transaction page. The name is derived from the SQL text.
 *
 * Turning `?` into `$n` and hashing the text cost about 0.4 ms for a page
 * statement, so both are done once per statement text and remembered (a few
 * dozen texts exist: one per filter shape and sort). Values are passed as
 * they are, which is what knex does with plain values; a knex Raw or query
 * builder among the values is refused (they would be inlined into the text).
 */
const nativeStatements = new Map<string, { name: string; text: string }>();
const MAX_NATIVE_STATEMENTS = 2000;

function nativeStatement(em: Em, sql: string, params: unknown[]): { name: string; text: string } {
  let statement = nativeStatements.get(sql);
  if (!statement) {
    // `??` (an identifier) would make the text depend on the values.
    if (sql.includes("??")) throw new Error("a prepared statement cannot bind identifiers (??)");
    const native = em
      .getKnex()
      .raw(sql, params as never[])
      .toSQL()
      .toNative();
    statement = {
      name: `coffer_${createHash("sha1").update(native.sql).digest("hex").slice(0, 24)}`,
      text: native.sql,
    };
    // A bound on memory should a caller ever build unbounded texts; clearing is only a lost optimisation.
    if (nativeStatements.size >= MAX_NATIVE_STATEMENTS) nativeStatements.clear();
    nativeStatements.set(sql, statement);
  }
  return statement;
}

const isKnexValue = (v: unknown) =>
  typeof v === "object" && v !== null && typeof (v as { toSQL?: unknown }).toSQL === "function";

async function prepared<T>(em: Em, sql: string, params: unknown[]): Promise<T[]> {
  if (params.some((v) => v === undefined || isKnexValue(v))) {
    throw new Error("a prepared statement takes plain defined values, not undefined or knex builders");
  }
  const { name, text } = nativeStatement(em, sql, params);
  const result = await preparedPool(em).query({ name, text, values: params });
  return result.rows as T[];
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
 * `pgArray(ids)`. Every element is quoted and escaped; null is SQL NULL.
 */
export function pgArray(values: readonly (string | null)[]): string {
  return `{${values.map((v) => (v === null ? "NULL" : `"${v.replace(/\\/g, "\\\\").replace(/"/g, '\\"')}"`)).join(",")}}`;
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
