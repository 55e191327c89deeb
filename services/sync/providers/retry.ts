import pRetry from "p-retry";
import { ProviderError } from "./provider.js";

/**
 * Transient failures of one provider request, retried inside the sync: a 5xx,
 * a 429, a timeout, a reset or refused connection, a garbled answer (every
 * ProviderError whose failure is `unavailable` or `rate_limited`). Anything
 * else (a login the bank wants, a revoked token, a bad configuration) fails at
 * once. The waits grow exponentially with jitter (p-retry); a 429's
 * Retry-After is waited first, unless it asks for longer than `maxWaitMs`: the
 * sync then fails and the job's own retry (services/sync/scheduler.ts) takes
 * over, so a sync never sits for minutes on one page.
 *
 * Every provider client wraps its page requests (and the account listing a
 * sync starts with) in `retrying`, the one place this policy lives.
 */
export interface RetryPolicy {
  /** Attempts in all, the first included (1: no retry). */
  tries: number;
  /** The wait before the first retry; each next one doubles, each with jitter (×1 to ×2). */
  firstDelayMs: number;
  /** The longest Retry-After honoured within the sync. */
  maxWaitMs: number;
}

/** One attempt: what a client does when it is given no policy (tests of its failures, enrollment). */
export const NO_RETRY: RetryPolicy = { tries: 1, firstDelayMs: 0, maxWaitMs: 0 };

/** 3 tries over about 30 s: waits of 10–20 s, then 20–40 s at most. */
export const DEFAULT_RETRY: RetryPolicy = { tries: 3, firstDelayMs: 10_000, maxWaitMs: 60_000 };

/** The ProviderError a failure is or carries (Teller's status errors keep theirs as `providerError`). */
function providerErrorOf(e: unknown): ProviderError | null {
  if (e instanceof ProviderError) return e;
  const carried = (e as { providerError?: unknown } | null)?.providerError;
  return carried instanceof ProviderError ? carried : null;
}

/** A failure worth trying again soon: the provider is down, slow, garbled or rate-limiting; null otherwise. */
export function transientProviderError(e: unknown): ProviderError | null {
  const p = providerErrorOf(e);
  return p && (p.failure === "unavailable" || p.failure === "rate_limited") ? p : null;
}

const sleep = (ms: number) => new Promise<void>((resolve) => setTimeout(resolve, ms));

/** `request`, again while it fails transiently, as `policy` says; the last failure is thrown. */
export async function retrying<T>(policy: RetryPolicy, request: () => Promise<T>): Promise<T> {
  if (policy.tries <= 1) return request();
  return pRetry(request, {
    retries: policy.tries - 1,
    factor: 2,
    minTimeout: policy.firstDelayMs,
    maxTimeout: Math.max(policy.firstDelayMs, policy.maxWaitMs),
    randomize: true,
    shouldRetry: ({ error }) => {
      const transient = transientProviderError(error);
      return transient !== null && (transient.retryAfterSeconds ?? 0) * 1000 <= policy.maxWaitMs;
    },
    // Called before shouldRetry and awaited: the provider's own Retry-After comes first, then the backoff.
    onFailedAttempt: async ({ error, retriesLeft }) => {
      const asked = (transientProviderError(error)?.retryAfterSeconds ?? 0) * 1000;
      if (retriesLeft > 0 && asked > 0 && asked <= policy.maxWaitMs) await sleep(asked);
    },
  });
}
