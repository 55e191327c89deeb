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
      const collided = e instanceof UniqueConstraintViolationException && /short_id/.test(e.message);
      if (!collided || i >= attempts) throw e;
    }
  }
}
