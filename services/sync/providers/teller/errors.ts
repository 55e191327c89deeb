import { ProviderError } from "../provider.js";

/**
 * Teller's answers → ProviderError. Teller's error body is
 * `{"error":{"code","message"}}`; the code is dot-separated
 * (`enrollment.disconnected.user_action.mfa_required`, `account.closed`).
 */

export interface TellerErrorBody {
  code: string | null;
  message: string | null;
}

export function readErrorBody(json: unknown): TellerErrorBody {
  const error = typeof json === "object" && json !== null ? (json as Record<string, unknown>).error : null;
  if (typeof error !== "object" || error === null) return { code: null, message: null };
  const e = error as Record<string, unknown>;
  return {
    code: typeof e.code === "string" ? e.code : null,
    message: typeof e.message === "string" ? e.message.slice(0, 200) : null,
  };
}

const text = (status: number, body: TellerErrorBody) =>
  `Teller ${body.code ?? `HTTP ${status}`}${body.message ? `: ${body.message}` : ""}`;

export const isDisconnected = (body: TellerErrorBody) => body.code?.startsWith("enrollment.disconnected") ?? false;
export const isAccountClosed = (body: TellerErrorBody) => body.code?.startsWith("account.closed") ?? false;

/** A non-2xx answer as a ProviderError. */
export function statusError(status: number, body: TellerErrorBody, retryAfterSeconds?: number): ProviderError {
  if (status === 404 && isDisconnected(body)) {
    return new ProviderError("reauth_required", "ITEM_LOGIN_REQUIRED", text(status, body));
  }
  if (status === 400 || status === 401) {
    // 400 bad_request is what Teller answers when the client certificate is missing or not its own.
    return new ProviderError("misconfigured", "PROVIDER_MISCONFIGURED", text(status, body));
  }
  if (status === 403) return new ProviderError("revoked", "ACCESS_REVOKED", text(status, body));
  if (status === 410) return new ProviderError("revoked", "ACCOUNT_CLOSED", text(status, body));
  if (status === 429) {
    return new ProviderError("rate_limited", "RATE_LIMITED", text(status, body), { retryAfterSeconds });
  }
  // 502 (the bank is down), other 5xx, and anything undocumented: try again later.
  return new ProviderError("unavailable", "PROVIDER_UNAVAILABLE", text(status, body));
}

export const unavailable = (why: string) => new ProviderError("unavailable", "PROVIDER_UNAVAILABLE", `Teller: ${why}`);
