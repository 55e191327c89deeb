import type { Em } from "../db/orm.js";
import { query } from "../db/sql.js";
import type { PeriodicTask } from "../periodic.js";

/**
 * Deletes what sign-in leaves behind once it can no longer matter: sessions
 * ended or expired a day ago, setup links used or expired a day ago, and
 * sign-in attempts older than an hour (the limit looks back one minute).
 * Returns how many rows went.
 */
export async function purgeLoginLeftovers(em: Em): Promise<number> {
  const [row] = await query<{ n: number }>(
    em,
    `with s as (delete from login_sessions
                where revoked_at < now() - interval '1 day' or expires_at < now() - interval '1 day'
                returning 1),
          t as (delete from login_setup_tokens
                where consumed_at < now() - interval '1 day' or expires_at < now() - interval '1 day'
                returning 1),
          a as (delete from login_attempts where attempted_at < now() - interval '1 hour' returning 1)
     select ((select count(*) from s) + (select count(*) from t) + (select count(*) from a))::int as n`,
  );
  return row.n;
}

export const purgeLoginLeftoversTask: PeriodicTask = {
  queue: "coffer-purge-login-leftovers",
  name: "purge ended sessions and spent setup links",
  run: (em) => purgeLoginLeftovers(em),
};
