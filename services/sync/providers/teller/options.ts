import { readFileSync } from "node:fs";
import { createSecureContext } from "node:tls";
import { ProviderError } from "../provider.js";
import type { Clock } from "../../../clock.js";
import type { RetryPolicy } from "../retry.js";

/**
 * What the Teller client needs, as plain values (the registry maps
 * TELLER_APPLICATION_ID, TELLER_CERT, TELLER_KEY, TELLER_CA, TELLER_BASE_URL
 * and TELLER_WEBHOOK_SECRETS onto them; this folder never reads process.env).
 */
export interface TellerOptions {
  /** The application id Teller Connect is set up with (`app_…`). */
  applicationId: string;
  /**
   * The application's client certificate: PEM text or the path of a PEM file.
   * Teller requires it in development and production; in the sandbox it is
   * optional (but checked when sent). Give both or neither.
   */
  cert?: string;
  /** Its private key: PEM text or the path of a PEM file. */
  key?: string;
  /** CA certificates to trust for the Teller server instead of Node's roots (tests: the fake's CA). */
  ca?: string;
  /** Default https://api.teller.io. */
  baseUrl?: string;
  /** Webhook signing secrets; a signature under any of them is accepted (two during a rotation). */
  webhookSecrets?: string[];
  /** Per-request timeout. Default 30 s. */
  timeoutMs?: number;
  /** How a sync retries a request that failed transiently (providers/retry.ts). Default: no retry. */
  retry?: RetryPolicy;
  /** How far before the stored cursor date each sync re-reads. Default 10 days. */
  overlapDays?: number;
  /** Transactions asked for per request (`count`). Default 250. */
  pageSize?: number;
  /** The core's clock. Default the system clock. */
  clock?: Clock;
}

export const TELLER_BASE_URL = "https://api.teller.io";

/**
 * PEM text as given, or the contents of the file it names. Environment
 * variables often carry PEM with its newlines written as `\n`; those are
 * turned back into newlines.
 */
export function readPem(value: string, variable: string): string {
  const text = value.trim();
  if (text.includes("-----BEGIN")) return text.includes("\n") ? text : text.replace(/\\n/g, "\n");
  try {
    const file = readFileSync(text, "utf8");
    if (file.includes("-----BEGIN")) return file;
  } catch {
    // reported below
  }
  throw new ProviderError("misconfigured", "PROVIDER_MISCONFIGURED", `${variable} is neither PEM text nor a PEM file`);
}

export interface TlsMaterial {
  cert: string | undefined;
  key: string | undefined;
  ca: string | undefined;
}

/** The certificate, key and CA, read and checked to belong together before any request. */
export function tlsMaterial(options: Pick<TellerOptions, "cert" | "key" | "ca">): TlsMaterial {
  if (!options.cert !== !options.key) {
    const missing = options.cert ? "TELLER_KEY" : "TELLER_CERT";
    throw new ProviderError("misconfigured", "PROVIDER_MISCONFIGURED", `${missing} is needed with the other`);
  }
  const material = {
    cert: options.cert ? readPem(options.cert, "TELLER_CERT") : undefined,
    key: options.key ? readPem(options.key, "TELLER_KEY") : undefined,
    ca: options.ca ? readPem(options.ca, "TELLER_CA") : undefined,
  };
  try {
    createSecureContext(material);
  } catch {
    throw new ProviderError(
      "misconfigured",
      "PROVIDER_MISCONFIGURED",
      "TELLER_CERT and TELLER_KEY are not a certificate and its private key",
    );
  }
  return material;
}
