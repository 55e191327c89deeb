import { ProviderError } from "../provider.js";

/**
 * Plaid failures → ProviderError. The plaid package throws axios errors whose
 * `config.headers` carry PLAID-SECRET, so nothing here keeps the error object
 * (not even as `cause`): only the status, Plaid's codes and its request id.
 */

/** Item errors only the person can fix, in Link's update mode. */
export const REAUTH_CODES = new Set([
  "ITEM_LOGIN_REQUIRED",
  "ITEM_LOCKED",
  "INVALID_CREDENTIALS",
  "INVALID_MFA",
  "INVALID_UPDATED_USERNAME",
  "INSUFFICIENT_CREDENTIALS",
  "USER_SETUP_REQUIRED",
  "ACCESS_NOT_GRANTED",
  "NO_ACCOUNTS",
  "PASSWORD_RESET_REQUIRED",
  "USER_PERMISSION_REVOKED",
]);

/** The server's own Plaid setup is wrong. */
const MISCONFIGURED_CODES = new Set([
  "INVALID_API_KEYS",
  "UNAUTHORIZED_ENVIRONMENT",
  "INVALID_PRODUCT",
  "PRODUCTS_NOT_SUPPORTED",
  "INVALID_LINK_CUSTOMIZATION",
]);

/** The access token no longer names a live Item. */
const REVOKED_CODES = new Set(["INVALID_ACCESS_TOKEN", "ITEM_NOT_FOUND", "ITEM_CONCURRENTLY_DELETED"]);

/** What the person brought cannot be exchanged (used or expired public token). */
const INVALID_INPUT_CODES = new Set(["INVALID_PUBLIC_TOKEN"]);

export const MUTATION_DURING_PAGINATION = "TRANSACTIONS_SYNC_MUTATION_DURING_PAGINATION";

/** Plaid's error body, when the failure carried one. */
export interface PlaidErrorBody {
  errorType: string | null;
  errorCode: string | null;
  message: string | null;
  requestId: string | null;
}

interface AxiosLike {
  code?: unknown;
  message?: unknown;
  response?: { status?: unknown; data?: unknown; headers?: unknown };
}

const str = (v: unknown): string | null => (typeof v === "string" && v !== "" ? v : null);

/** The Plaid error code of a failed call (e.g. to spot a mutation during pagination), or null. */
export function plaidErrorCode(err: unknown): string | null {
  return readBody(err)?.errorCode ?? null;
}

function readBody(err: unknown): PlaidErrorBody | null {
  const data = (err as AxiosLike | null)?.response?.data;
  if (typeof data !== "object" || data === null) return null;
  const d = data as Record<string, unknown>;
  return {
    errorType: str(d.error_type),
    errorCode: str(d.error_code),
    message: str(d.display_message) ?? str(d.error_message),
    requestId: str(d.request_id),
  };
}

function retryAfter(headers: unknown): number | undefined {
  if (typeof headers !== "object" || headers === null) return undefined;
  const v = (headers as Record<string, unknown>)["retry-after"];
  const n = typeof v === "string" && /^\d+$/.test(v.trim()) ? Number(v.trim()) : NaN;
  return Number.isFinite(n) ? n : undefined;
}

/** A short, secret-free message: Plaid's code, its user-facing text and request id, nothing else. */
function describe(status: number | null, body: PlaidErrorBody | null, fallback: string): string {
  const parts = [`Plaid ${body?.errorCode ?? (status ? `HTTP ${status}` : "error")}`];
  parts.push(body?.message ? body.message.slice(0, 200) : fallback);
  const text = parts.join(": ");
  return body?.requestId ? `${text} (request ${body.requestId})` : text;
}

/** Any failure of a Plaid call as a ProviderError (a ProviderError passes through unchanged). */
export function toProviderError(err: unknown): ProviderError {
  if (err instanceof ProviderError) return err;
  const e = (err ?? {}) as AxiosLike;
  const status = typeof e.response?.status === "number" ? e.response.status : null;
  if (status === null) {
    const code = str(e.code);
    const timedOut = code === "ECONNABORTED" || code === "ETIMEDOUT" || /timeout/i.test(str(e.message) ?? "");
    const what = timedOut ? "the request timed out" : `the request failed${code ? ` (${code})` : ""}`;
    return new ProviderError("unavailable", "PROVIDER_UNAVAILABLE", `Plaid: ${what}`);
  }
  const body = readBody(err);
  const code = body?.errorCode ?? null;
  if (code && REAUTH_CODES.has(code)) {
    return new ProviderError("reauth_required", "ITEM_LOGIN_REQUIRED", describe(status, body, "log in again"));
  }
  if (code && MISCONFIGURED_CODES.has(code)) {
    return new ProviderError("misconfigured", "PROVIDER_MISCONFIGURED", describe(status, body, "check PLAID_*"));
  }
  if (code && REVOKED_CODES.has(code)) {
    return new ProviderError("revoked", "ACCESS_REVOKED", describe(status, body, "the Item is gone"));
  }
  if (code && INVALID_INPUT_CODES.has(code)) {
    return new ProviderError("invalid_input", "INVALID_CREDENTIALS", describe(status, body, "invalid token"));
  }
  if (status === 429 || body?.errorType === "RATE_LIMIT_EXCEEDED") {
    return new ProviderError("rate_limited", "RATE_LIMITED", describe(status, body, "rate limited"), {
      retryAfterSeconds: retryAfter(e.response?.headers),
    });
  }
  if (body === null) {
    // A non-2xx without Plaid's error body: a proxy or gateway answered.
    return new ProviderError("unavailable", "PROVIDER_UNAVAILABLE", describe(status, null, "unexpected answer"));
  }
  // 5xx, API_ERROR, INSTITUTION_ERROR, PRODUCT_NOT_READY and anything unknown: try again later.
  return new ProviderError("unavailable", "PROVIDER_UNAVAILABLE", describe(status, body, "try again later"));
}

/** A 2xx whose body is not the JSON object Plaid documents (axios hands over unparsable text as a string). */
export function malformed(what: string): ProviderError {
  return new ProviderError("unavailable", "PROVIDER_UNAVAILABLE", `Plaid: malformed ${what} response`);
}
