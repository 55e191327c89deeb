import { nowOf } from "../clock.js";
import type { Em } from "../db/orm.js";
import { deleteLoginLeftovers } from "../db/tables/login-sessions.js";
import type { PeriodicTask } from "../periodic.js";

/**
 * Deletes what sign-in leaves behind once it can no longer matter: sessions
 * ended or expired a day ago, setup links used or expired a day ago, and
 * sign-in attempts older than an hour (the limit looks back one minute).
 * Returns how many rows went.
 */
export async function purgeLoginLeftovers(em: Em): Promise<number> {
  return deleteLoginLeftovers(em, nowOf(em));
}

export const purgeLoginLeftoversTask: PeriodicTask = {
  queue: "coffer-purge-login-leftovers",
  name: "purge ended sessions and spent setup links",
  run: (em) => purgeLoginLeftovers(em),
};
