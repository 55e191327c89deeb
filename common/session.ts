/**
 * How a web-console session travels. The browser holds the token in the
 * coffer_session cookie; the REST gateway copies it into x-coffer-session on
 * its call to the core, which judges it (services/auth/sessions.ts) as it
 * judges X-API-Key: one auth path.
 */
export const SESSION_COOKIE = "coffer_session";
export const SESSION_HEADER = "x-coffer-session";
/** The address a sign-in came from as the REST gateway saw it, for the core's per-address limit. */
export const CLIENT_IP_HEADER = "x-coffer-client-ip";
