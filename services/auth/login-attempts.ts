import { nowOf } from "../clock.js";
import type { Em } from "../db/orm.js";
import { deleteLoginAttempt, insertLoginAttempt, loginAttemptWaits } from "../db/tables/login-attempts.js";
import { CofferError } from "../errors/coffer-error.js";

/** Sign-in attempts allowed per account and per address within WINDOW_SECONDS. */
export const ATTEMPT_LIMIT = 5;
export const WINDOW_SECONDS = 60;

/** The key an account is limited under: the email as typed, trimmed and lower-cased (known or not). */
export const attemptKey = (email: string) => email.trim().toLowerCase().slice(0, 320);

/**
 * Records an attempt before the password is checked, then counts the other
 * attempts in the window for the account and for the address. Recording first
 * means simultaneous attempts see one another (on any core replica: the
 * table is the shared state), so a burst cannot slip past the count. At the
 * limit the attempt is dropped again and RATE_LIMITED says when the oldest
 * counted one leaves the window. Returns the attempt's id: a successful
 * sign-in deletes it (only failures count), a failed one leaves it.
 */
export async function admitAttempt(em: Em, email: string, ip: string): Promise<string> {
  const key = attemptKey(email);
  const now = nowOf(em);
  const id = await insertLoginAttempt(em, key, ip, now);
  const row = await loginAttemptWaits(em, {
    now,
    email: key,
    ip,
    exceptId: id,
    limit: ATTEMPT_LIMIT,
    windowSeconds: WINDOW_SECONDS,
  });
  if (row.email_wait !== null || row.ip_wait !== null) {
    await forgetAttempt(em, id);
    const seconds = Math.max(1, Number(row.email_wait ?? 0), Number(row.ip_wait ?? 0));
    throw new CofferError(
      "RATE_LIMITED",
      `Too many sign-in attempts; try again in ${seconds} second${seconds === 1 ? "" : "s"}`,
      { retryAfterSeconds: seconds },
    );
  }
  return id;
}

export async function forgetAttempt(em: Em, id: string): Promise<void> {
  await deleteLoginAttempt(em, id);
}
