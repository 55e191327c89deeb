import { randomBytes } from "node:crypto";
import type { Principal } from "../context.js";
import type { Em } from "../db/orm.js";
import { iso, query } from "../db/sql.js";
import { CofferError } from "../errors/coffer-error.js";
import { hashSecret } from "./key-hash.js";
import { SCOPE_OF_ROLE, type LoginRole } from "./roles.js";

export type SessionPrincipal = Extract<Principal, { kind: "session" }>;

/** A session lasts this long after it was last used (sliding expiry). */
export const SESSION_TTL_DAYS = 30;
/** last_seen_at (and with it expires_at) moves at most this often, so reads do not all turn into writes. */
const TOUCH_INTERVAL_SECONDS = 60;

/** 32 random bytes: guessing one is hopeless, so a plain SHA-256 is the right storage form (as for keys). */
export const newSecretToken = () => randomBytes(32).toString("base64url");
const looksLikeToken = (s: string) => /^[A-Za-z0-9_-]{43}$/.test(s);

/** Opens a session for a login (after a password or a setup link was checked) and returns its token, once. */
export async function openSession(em: Em, loginId: string): Promise<string> {
  const token = newSecretToken();
  await query(
    em,
    `insert into login_sessions (id, login_id, token_hash, expires_at)
     values (?, ?, ?, now() + make_interval(days => ?))`,
    [crypto.randomUUID(), loginId, hashSecret(token), SESSION_TTL_DAYS],
  );
  await query(em, `update logins set last_login_at = now() where id = ?`, [loginId]);
  return token;
}

interface SessionRow {
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
 * The principal of a presented session token, on every call made with one:
 * one indexed query that also slides the expiry forward (when the last touch
 * is older than a minute). The role is read each time, so a changed role or a
 * deleted login takes effect at the next call.
 */
export async function authenticateSession(em: Em, presented: string): Promise<SessionPrincipal> {
  const [row] = looksLikeToken(presented)
    ? await query<SessionRow>(
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
        [hashSecret(presented), SESSION_TTL_DAYS, TOUCH_INTERVAL_SECONDS],
        { prepare: true },
      )
    : [];
  if (!row) throw new CofferError("INVALID_CREDENTIALS", "The session has ended or is not valid; sign in again");
  return {
    kind: "session",
    sessionId: row.id,
    loginId: row.login_id,
    userId: row.user_id,
    userShortId: row.user_short_id,
    userName: row.user_name,
    email: row.email,
    role: row.role,
    scope: SCOPE_OF_ROLE[row.role],
    expiresAt: new Date(row.expires_at),
  };
}

/** Ends the session with this token, if it is one; signing out twice is not an error. */
export async function revokeSession(em: Em, presented: string | null): Promise<void> {
  if (!presented || !looksLikeToken(presented)) return;
  await query(em, `update login_sessions set revoked_at = now() where token_hash = ? and revoked_at is null`, [
    hashSecret(presented),
  ]);
}

/** Ends every session of a login (its password was set again). */
export async function revokeSessionsOf(em: Em, loginId: string): Promise<void> {
  await query(em, `update login_sessions set revoked_at = now() where login_id = ? and revoked_at is null`, [loginId]);
}
