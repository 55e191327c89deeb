import { createHash } from "node:crypto";
import { ForeignKeyConstraintViolationException } from "@mikro-orm/core";
import type { Knex } from "@mikro-orm/postgresql";
import type { Em } from "./orm.js";

/**
 * Parameterized raw SQL (`?` placeholders) on the entity manager's connection,
 * inside its current transaction when there is one. The only way raw SQL is
 * run, and only from the table modules (services/db/tables/): every statement
 * goes through the ORM's knex on the ORM's one pool, and every parameter is
 * sent to PostgreSQL as a bind parameter, never spliced into the SQL text.
 * Parameters must be scalars or array literals (`pgArray`), never JS arrays
 * (knex would expand them into a list).
 *
 * `prepare` names the statement (outside a transaction): each pooled
 * connection parses it once and PostgreSQL keeps its analysis, which saves
 * planning work on the hot reads (every RPC's key lookup, every transaction
 * page). The name is derived from the SQL text, so the same text is the same
 * statement on every connection.
 */
export async function query<T = Record<string, unknown>>(
  em: Em,
  sql: string,
  params: unknown[] = [],
  opts: { prepare?: boolean } = {},
): Promise<T[]> {
  // pg would send a Date in the host's zone; UTC text keeps a date column's day independent of the host.
  const bound = params.map((p) => (p instanceof Date ? p.toISOString() : p));
  let raw = em.getKnex().raw(sql, bound as never[]);
  const tx = em.getTransactionContext<Knex.Transaction>();
  if (tx) raw = raw.transacting(tx);
  else if (opts.prepare) raw = raw.options({ name: statementName(sql) });
  const result = (await raw) as { rows: T[] };
  return result.rows;
}

/**
 * knex's PostgreSQL client passes a raw query's options through to pg, whose
 * `name` makes it a named statement. Hashing a page statement's text costs
 * a measurable part of a call, so each text's name is computed once (a few
 * dozen texts exist: one per filter shape and sort).
 */
const statementNames = new Map<string, string>();
const MAX_STATEMENT_NAMES = 2000;

function statementName(sql: string): string {
  let name = statementNames.get(sql);
  if (!name) {
    name = `coffer_${createHash("sha1").update(sql).digest("hex").slice(0, 24)}`;
    // A bound on memory should a caller ever build unbounded texts; clearing is only a lost optimisation.
    if (statementNames.size >= MAX_STATEMENT_NAMES) statementNames.clear();
    statementNames.set(sql, name);
  }
  return name;
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
  // A sync page sends a dozen arrays of thousands of values: most need no escaping, so none is attempted.
  return `{${values.map((v) => (v === null ? "NULL" : `"${NEEDS_ESCAPE.test(v) ? v.replace(/\\/g, "\\\\").replace(/"/g, '\\"') : v}"`)).join(",")}}`;
}

const NEEDS_ESCAPE = /["\\]/;

/**
 * A write refused by a foreign key. PostgreSQL reports an ON DELETE RESTRICT
 * refusal as 23001 (restrict_violation) from version 18 on and as 23503
 * (foreign_key_violation) before; MikroORM only recognises the latter.
 */
export function isForeignKeyViolation(e: unknown): boolean {
  const code = (e as { code?: unknown } | null)?.code;
  return e instanceof ForeignKeyConstraintViolationException || code === "23503" || code === "23001";
}
