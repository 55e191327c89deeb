import type { Clock } from "../../../clock.js";
import type { RetryPolicy } from "../retry.js";

/**
 * What the Plaid client needs, as plain values: the registry reads them from
 * the environment (PLAID_CLIENT_ID, PLAID_SECRET, PLAID_ENV or PLAID_BASE_URL,
 * …) and passes them in; this folder never reads process.env.
 */
export interface PlaidOptions {
  clientId: string;
  secret: string;
  /** `sandbox` or `production`; ignored when `baseUrl` is set. Default `sandbox`. */
  env?: PlaidEnv;
  /** Any base URL (a local fake in tests), without a trailing slash (one is removed). */
  baseUrl?: string;
  /** Shown in Plaid Link (at most 30 characters). Default "Coffer". */
  clientName?: string;
  /** ISO 3166 codes Link offers institutions from. Default ["US"]. */
  countryCodes?: string[];
  /** Where Plaid sends this Item's webhooks (set on new link sessions), if anywhere. */
  webhookUrl?: string;
  /** OAuth redirect URI registered with Plaid, if any. */
  redirectUri?: string;
  /** Days of history a new Item asks for (1..730). Default 730. */
  daysRequested?: number;
  /** Per-request timeout. Default 30 s. */
  timeoutMs?: number;
  /** How many times one sync restarts its pagination after TRANSACTIONS_SYNC_MUTATION_DURING_PAGINATION. */
  maxPaginationRestarts?: number;
  /** How a sync retries a request that failed transiently (providers/retry.ts). Default: no retry. */
  retry?: RetryPolicy;
  /** The core's clock (a webhook JWT's age). Default the system clock. */
  clock?: Clock;
}

export const PLAID_ENVS = ["sandbox", "production"] as const;
export type PlaidEnv = (typeof PLAID_ENVS)[number];

const ENV_URLS: Record<PlaidEnv, string> = {
  sandbox: "https://sandbox.plaid.com",
  production: "https://production.plaid.com",
};

/**
 * The base URL the client calls. The plaid package concatenates
 * `basePath + "/transactions/sync"`, so a trailing slash would make `//path`.
 */
export function plaidBaseUrl(options: Pick<PlaidOptions, "env" | "baseUrl">): string {
  if (options.baseUrl) return options.baseUrl.replace(/\/+$/, "");
  return ENV_URLS[options.env ?? "sandbox"];
}
