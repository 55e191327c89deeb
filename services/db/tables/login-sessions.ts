import type { LoginRole } from "../../auth/roles.js";
import type { Em } from "../orm.js";
import { iso, query } from "../sql.js";

export async function insertLoginSession(
  em: Em,
  s: { id: string; loginId: string; tokenHash: string; ttlDays: number },
): Promise<void> {
  await query(
    em,
    `insert into login_sessions (id, login_id, token_hash, expires_at)
     values (?, ?, ?, now() + make_interval(days => ?))`,
    [s.id, s.loginId, s.tokenHash, s.ttlDays],
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
 * The live session with this token hash, with its login and household member;
 * slides the expiry forward (to `ttlDays` from now) when the last touch is
 * older than `touchSeconds`. A prepared statement: every call made with a
 * session runs it.
 */
export async function touchLiveSession(
  em: Em,
  tokenHash: string,
  ttlDays: number,
  touchSeconds: number,
): Promise<LiveSessionRow | undefined> {
  const [row] = await query<LiveSessionRow>(
    em,
    `with s as (select id, login_id, expires_at, last_seen_at from login_sessions
                where token_hash = ? and revoked_at is null and expires_at > now()),
          touched as (update login_sessions set last_seen_at = now(), expires_at = now() + make_interval(days => ?)
                      from s where login_sessions.id = s.id
                        and s.last_seen_at < now() - make_interval(secs => ?)
                      returning login_sessions.expires_at)
     select s.id, s.login_id, l.role, l.email, u.id as user_id, u.short_id as user_short_id, u.name as user_name,
            ${iso("coalesce((select expires_at from touched), s.expires_at)")} as expires_at
     from s join logins l on l.id = s.login_id join users u on u.id = l.user_id`,
    [tokenHash, ttlDays, touchSeconds],
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
 * Deletes sessions ended or expired a day ago, and with them (one statement)
 * setup links used or expired a day ago and sign-in attempts older than an
 * hour. Returns how many rows went.
 */
export async function deleteLoginLeftovers(em: Em): Promise<number> {
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
