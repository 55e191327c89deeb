import { randomBytes } from "node:crypto";
import { nowOf } from "../clock.js";
import type { Principal } from "../context.js";
import type { Em } from "../db/orm.js";
import {
  insertLoginSession,
  revokeSessionByTokenHash,
  revokeSessionsOfLogin,
  touchLiveSession,
} from "../db/tables/login-sessions.js";
import { updateLoginLastLogin } from "../db/tables/logins.js";
import { CofferError } from "../errors/coffer-error.js";
import { hashSecret } from "./key-hash.js";
import { SCOPE_OF_ROLE } from "./roles.js";

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
  await insertLoginSession(em, {
    id: crypto.randomUUID(),
    loginId,
    tokenHash: hashSecret(token),
    ttlDays: SESSION_TTL_DAYS,
    now: nowOf(em),
  });
  await updateLoginLastLogin(em, loginId);
  return token;
}

/**
 * The principal of a presented session token, on every call made with one:
 * one indexed query that also slides the expiry forward (when the last touch
 * is older than a minute). The role is read each time, so a changed role or a
 * deleted login takes effect at the next call.
 */
export async function authenticateSession(em: Em, presented: string): Promise<SessionPrincipal> {
  const row = looksLikeToken(presented)
    ? await touchLiveSession(em, hashSecret(presented), nowOf(em), SESSION_TTL_DAYS, TOUCH_INTERVAL_SECONDS)
    : undefined;
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
  await revokeSessionByTokenHash(em, hashSecret(presented));
}

/** Ends every session of a login (its password was set again). */
export async function revokeSessionsOf(em: Em, loginId: string): Promise<void> {
  await revokeSessionsOfLogin(em, loginId);
}
