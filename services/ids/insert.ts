import { UniqueConstraintViolationException } from "@mikro-orm/core";
import { newShortId } from "./short-id.js";

/**
 * Runs `insert` with a fresh short id, retrying with a new one when the id
 * collides with an existing row. Other unique violations pass through.
 */
export async function withShortId<T>(insert: (shortId: string) => Promise<T>, attempts = 5): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await insert(newShortId());
    } catch (e) {
      if (!isShortIdClash(e) || i >= attempts) throw e;
    }
  }
}

/** A unique violation of a short_id column, from the ORM or from raw SQL. */
export function isShortIdClash(e: unknown): boolean {
  const err = e as { code?: unknown; constraint?: unknown; message?: unknown } | null;
  // The constraint's name decides when it is known: the ORM's message quotes the whole INSERT, which
  // names the short_id column whichever unique index failed (retrying an email clash inside a
  // transaction would then fail with "current transaction is aborted").
  if (typeof err?.constraint === "string") return /short_id/.test(err.constraint);
  if (e instanceof UniqueConstraintViolationException) return /short_id/.test(e.message);
  return err?.code === "23505" && /short_id/.test(`${String(err.constraint)} ${String(err.message)}`);
}

/**
 * Runs a bulk insert whose rows carry fresh short ids, again (with new ids)
 * when one collided. Each attempt must run in its own savepoint, so a
 * collision does not abort the surrounding transaction.
 */
export async function retryOnShortIdClash<T>(attempt: () => Promise<T>, attempts = 5): Promise<T> {
  for (let i = 1; ; i++) {
    try {
      return await attempt();
    } catch (e) {
      if (!isShortIdClash(e) || i >= attempts) throw e;
    }
  }
}
