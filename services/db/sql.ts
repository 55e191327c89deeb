import type { Knex } from "@mikro-orm/postgresql";
import type { Em } from "./orm.js";

/**
 * Parameterized raw SQL (`?` placeholders) on the entity manager's connection,
 * inside its current transaction when there is one. The only way raw SQL is run.
 */
export async function query<T = Record<string, unknown>>(em: Em, sql: string, params: unknown[] = []): Promise<T[]> {
  return (await em.getConnection().execute(sql, params as never[], "all", em.getTransactionContext())) as T[];
}

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
