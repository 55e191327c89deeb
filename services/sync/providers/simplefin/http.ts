import { ProviderError } from "../provider.js";
import type { AccessUrl } from "./access-url.js";

/**
 * The two SimpleFIN calls: the one-time claim of a setup token and
 * `GET <root>/accounts`. Failures become ProviderErrors whose messages never
 * carry the access URL (it is the credential).
 */

const unavailable = (why: string) => new ProviderError("unavailable", "PROVIDER_UNAVAILABLE", `SimpleFIN: ${why}`);

async function send(url: string, init: RequestInit, timeoutMs: number): Promise<Response> {
  try {
    return await fetch(url, { ...init, redirect: "error", signal: AbortSignal.timeout(timeoutMs) });
  } catch (err) {
    const name = (err as Error | null)?.name;
    if (name === "TimeoutError" || name === "AbortError") throw unavailable("the request timed out");
    throw unavailable("the request failed");
  }
}

async function readText(res: Response, timeoutMs: number): Promise<string> {
  try {
    return await res.text();
  } catch {
    throw unavailable(`the answer was cut off or took longer than ${timeoutMs} ms`);
  }
}

/** POST to the claim URL: the access URL, once. */
export async function claim(url: URL, timeoutMs: number): Promise<string> {
  const res = await send(url.toString(), { method: "POST", body: "" }, timeoutMs);
  const text = await readText(res, timeoutMs);
  if (res.status === 403) {
    throw new ProviderError(
      "invalid_input",
      "INVALID_CREDENTIALS",
      "SimpleFIN does not know this setup token or it was already claimed: the token may be compromised. " +
        "Disable it at your SimpleFIN Bridge and make a new one.",
    );
  }
  if (res.status !== 200) throw failureFor(res.status, res.headers);
  return text.trim();
}

/** GET <root>/accounts with the given query; the parsed JSON body of a 200. */
export async function getAccounts(access: AccessUrl, query: URLSearchParams, timeoutMs: number): Promise<unknown> {
  const res = await send(
    `${access.root}/accounts?${query.toString()}`,
    { headers: { authorization: access.authorization, accept: "application/json" } },
    timeoutMs,
  );
  const text = await readText(res, timeoutMs);
  if (res.status !== 200) throw failureFor(res.status, res.headers);
  try {
    return JSON.parse(text);
  } catch {
    throw unavailable("malformed JSON from /accounts");
  }
}

function failureFor(status: number, headers: Headers): ProviderError {
  if (status === 403) {
    return new ProviderError(
      "reauth_required",
      "ITEM_LOGIN_REQUIRED",
      "SimpleFIN refused the access URL (403): access was revoked or disabled; connect again with a new setup token",
    );
  }
  if (status === 402) {
    // Not transient and not a login problem: the person must renew the Bridge subscription.
    return new ProviderError(
      "revoked",
      "PAYMENT_REQUIRED",
      "SimpleFIN: payment required (402); renew the subscription",
    );
  }
  if (status === 429) {
    const retry = headers.get("retry-after");
    return new ProviderError("rate_limited", "RATE_LIMITED", "SimpleFIN: too many requests (429)", {
      retryAfterSeconds: retry && /^\d+$/.test(retry) ? Number(retry) : undefined,
    });
  }
  return unavailable(`HTTP ${status}`);
}
