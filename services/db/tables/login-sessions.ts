import type { LoginRole } from "../../auth/roles.js";
import type { Em } from "../orm.js";
import { iso, query } from "../sql.js";

/** A session that ends `ttlDays` after `now` (the core's clock) unless it is used. */
export async function insertLoginSession(
  em: Em,
  s: { id: string; loginId: string; tokenHash: string; ttlDays: number; now: Date },
): Promise<void> {
  await query(
    em,
    `insert into login_sessions (id, login_id, token_hash, last_seen_at, expires_at)
     values (?, ?, ?, ?::timestamptz, ?::timestamptz + make_interval(days => ?))`,
    [s.id, s.loginId, s.tokenHash, s.now, s.now, s.ttlDays],
  );
}

export interface LiveSessionRow {
  id: string;
  login_id: string;
  role: LoginRole;
  email: string;
  user_id: string;
  user_short_id: string;
  user_name: string;
  expires_at: string;
}

/**
 * The session with this token hash that is live at `now` (the core's clock),
 * with its login and household member; slides the expiry forward (to
 * `ttlDays` from now) when the last touch is older than `touchSeconds`. A
 * prepared statement: every call made with a session runs it.
 */
export async function touchLiveSession(
  em: Em,
  tokenHash: string,
  now: Date,
  ttlDays: number,
  touchSeconds: number,
): Promise<LiveSessionRow | undefined> {
  const [row] = await query<LiveSessionRow>(
    em,
    `with s as (select id, login_id, expires_at, last_seen_at from login_sessions
                where token_hash = ? and revoked_at is null and expires_at > ?::timestamptz),
          touched as (update login_sessions
                      set last_seen_at = ?::timestamptz, expires_at = ?::timestamptz + make_interval(days => ?)
                      from s where login_sessions.id = s.id
                        and s.last_seen_at < ?::timestamptz - make_interval(secs => ?)
                      returning login_sessions.expires_at)
     select s.id, s.login_id, l.role, l.email, u.id as user_id, u.short_id as user_short_id, u.name as user_name,
            ${iso("coalesce((select expires_at from touched), s.expires_at)")} as expires_at
     from s join logins l on l.id = s.login_id join users u on u.id = l.user_id`,
    [tokenHash, now, now, now, ttlDays, now, touchSeconds],
    { prepare: true },
  );
  return row;
}

export async function revokeSessionByTokenHash(em: Em, tokenHash: string): Promise<void> {
  await query(em, `update login_sessions set revoked_at = now() where token_hash = ? and revoked_at is null`, [
    tokenHash,
  ]);
}

export async function revokeSessionsOfLogin(em: Em, loginId: string): Promise<void> {
  await query(em, `update login_sessions set revoked_at = now() where login_id = ? and revoked_at is null`, [loginId]);
}

/**
 * Deletes sessions ended or expired a day before `now` (the core's clock), and
 * with them (one statement) setup links used or expired a day before and
 * sign-in attempts older than an hour. Returns how many rows went.
 */
export async function deleteLoginLeftovers(em: Em, now: Date): Promise<number> {
  const [row] = await query<{ n: number }>(
    em,
    `with cutoff as (select ?::timestamptz - interval '1 day' as day, ?::timestamptz - interval '1 hour' as hour),
          s as (delete from login_sessions using cutoff
                where revoked_at < cutoff.day or expires_at < cutoff.day
                returning 1),
          t as (delete from login_setup_tokens using cutoff
                where consumed_at < cutoff.day or expires_at < cutoff.day
                returning 1),
          a as (delete from login_attempts using cutoff where attempted_at < cutoff.hour returning 1)
     select ((select count(*) from s) + (select count(*) from t) + (select count(*) from a))::int as n`,
    [now, now],
  );
  return row.n;
}
