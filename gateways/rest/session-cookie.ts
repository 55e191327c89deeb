import { SESSION_COOKIE } from "../../common/session.js";

/** The cookie lives as long as an unused session (30 days); each GET /auth/session renews it, as the core slides. */
const MAX_AGE_SECONDS = 30 * 24 * 3600;

/** One cookie's value from a Cookie header, or undefined. Only the session cookie is read, so no general parser. */
export function readCookie(header: string | undefined, name: string = SESSION_COOKIE): string | undefined {
  if (!header) return undefined;
  for (const part of header.split(";")) {
    const eq = part.indexOf("=");
    if (eq !== -1 && part.slice(0, eq).trim() === name) {
      const value = part.slice(eq + 1).trim();
      return value === "" ? undefined : value;
    }
  }
  return undefined;
}

/**
 * The Set-Cookie value for a session: HttpOnly (no script reads it),
 * SameSite=Strict (no other site's page sends it), Path=/, and Secure when
 * the console is served over https.
 */
export function sessionCookie(token: string, publicUrl: string): string {
  return attributes(`${SESSION_COOKIE}=${token}; Max-Age=${MAX_AGE_SECONDS}`, publicUrl);
}

/** Removes the session cookie (sign-out). */
export function clearedSessionCookie(publicUrl: string): string {
  return attributes(`${SESSION_COOKIE}=; Max-Age=0`, publicUrl);
}

function attributes(cookie: string, publicUrl: string): string {
  const secure = new URL(publicUrl).protocol === "https:" ? "; Secure" : "";
  return `${cookie}; Path=/; HttpOnly; SameSite=Strict${secure}`;
}
