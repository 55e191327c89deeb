import type { Em } from "../orm.js";
import { query } from "../sql.js";

/** An attempt made at `at` (the core's clock, which the window is judged by). */
export async function insertLoginAttempt(em: Em, email: string, ip: string, at: Date): Promise<string> {
  const [{ id }] = await query<{ id: string }>(
    em,
    `insert into login_attempts (email, ip, attempted_at) values (?, ?, ?::timestamptz) returning id`,
    [email, ip, at],
  );
  return id;
}

/**
 * Seconds until the `limit`-th most recent attempt other than `exceptId` for
 * this email, and for this address, leaves the `windowSeconds` window ending
 * at `now` (the core's clock); null for a side with fewer attempts than the limit.
 */
export async function loginAttemptWaits(
  em: Em,
  a: { email: string; ip: string; exceptId: string; limit: number; windowSeconds: number; now: Date },
): Promise<{ email_wait: string | null; ip_wait: string | null }> {
  // The window and limit are our own integer constants, written into the text so the plan is fixed.
  const window = Math.trunc(a.windowSeconds);
  const offset = Math.trunc(a.limit) - 1;
  const wait = (column: "email" | "ip") =>
    `(select ceil(extract(epoch from attempted_at + make_interval(secs => ${window}) - clock.at))
      from login_attempts where ${column} = ? and id <> ?
        and attempted_at > clock.at - make_interval(secs => ${window})
      order by attempted_at desc offset ${offset} limit 1)`;
  const [row] = await query<{ email_wait: string | null; ip_wait: string | null }>(
    em,
    `select ${wait("email")} as email_wait, ${wait("ip")} as ip_wait from (select ?::timestamptz as at) clock`,
    [a.email, a.exceptId, a.ip, a.exceptId, a.now],
  );
  return row;
}

export async function deleteLoginAttempt(em: Em, id: string): Promise<void> {
  await query(em, `delete from login_attempts where id = ?`, [id]);
}
