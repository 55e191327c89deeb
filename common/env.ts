import { readFileSync } from "node:fs";
import { isIP } from "node:net";

/**
 * The one reader of Coffer's environment. Every process (core, gateways, CLI)
 * takes its ports, hosts and URLs from here, so each default is written once
 * and a bad value stops the process at start with the variable's name.
 */

export const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];
/** json: one pino object per line, for machines; pretty: one short readable line, for a person at a terminal. */
export const LOG_FORMATS = ["json", "pretty"] as const;
export type LogFormat = (typeof LOG_FORMATS)[number];

export interface CofferEnv {
  /** Unset: `coffer start` and the CLI run the embedded PostgreSQL. */
  databaseUrl: string | undefined;
  /** Where the embedded PostgreSQL keeps its data. */
  dataDir: string;
  embeddedPgPort: number;
  /** The interface every process listens on. */
  host: string;
  corePort: number;
  restPort: number;
  mcpPort: number;
  /** Where the gateways reach the core. */
  coreUrl: string;
  /** Where people reach the REST gateway (no trailing slash). */
  publicUrl: string;
  logLevel: LogLevel;
  /** COFFER_LOG_FORMAT, else pretty when stdout is a terminal and json otherwise. */
  logFormat: LogFormat;
  deviceCodeTtlSeconds: number;
  /** The deadline of a gateway's call to the core, unless a route or tool sets its own. */
  coreTimeoutMs: number;
  /** The deadline of a gateway's write to the core (a write is awaited: see gateways/shared/write-deadline.ts). */
  coreWriteTimeoutMs: number;
  /** `coffer start`: the first delay before restarting a child that died; it doubles per crash, up to 30 s. */
  restartBackoffMs: number;
  /** How long one database statement of the core may run (ms); 0 means no limit. */
  statementTimeoutMs: number;
  /** How long preview_rule may take before it answers 400. */
  rulePreviewTimeoutMs: number;
  /** The key `coffer mcp --stdio` acts with. */
  apiKey: string | undefined;
  /** Host names the gateways answer to besides loopback names and COFFER_PUBLIC_URL's host (lower-case). */
  allowedHosts: string[];
  /** Browser origins the MCP gateway accepts besides COFFER_PUBLIC_URL's (and loopback ones on loopback). */
  mcpAllowedOrigins: string[];
  /** 64 hex characters (32 bytes) encrypting provider credentials; unset: credentials cannot be stored. */
  encryptionKey: string | undefined;
  /** How often each connection is synced by the schedule. */
  syncIntervalSeconds: number;
  /** How many days finished sync logs are kept. */
  syncLogRetentionDays: number;
  /** Whether the gateways take the client's address from X-Forwarded-For (behind a reverse proxy). */
  trustProxy: TrustProxy;
  /** Plaid, when PLAID_CLIENT_ID and PLAID_SECRET are set. */
  plaid: PlaidEnv | null;
  /** Teller, when TELLER_APPLICATION_ID is set. */
  teller: TellerEnv | null;
  simplefin: SimplefinEnv;
  /** How a sync retries a provider request that failed transiently (services/sync/providers/retry.ts). */
  providerRetry: ProviderRetryEnv;
  /** The widgets' scripts the console's link pages load (tests point them at local fakes). */
  plaidLinkScriptUrl: string;
  tellerConnectScriptUrl: string;
}

/**
 * Which peers' X-Forwarded-For the gateways believe (fastify's trustProxy):
 * none, any (`true`), or listed addresses, subnets and proxy-addr's names
 * (`loopback`, `linklocal`, `uniquelocal`).
 */
export type TrustProxy = boolean | string[];

export interface PlaidEnv {
  clientId: string;
  secret: string;
  /** https://sandbox.plaid.com, https://production.plaid.com, or PLAID_BASE_URL (no trailing slash). */
  baseUrl: string;
  /** Where Plaid sends this server's webhooks (given to Link when a connection is made). */
  webhookUrl: string;
}

export interface TellerEnv {
  applicationId: string;
  /** Teller Connect's environment; the access token decides which data the API serves. */
  environment: "sandbox" | "development" | "production";
  baseUrl: string;
  /** The application's client certificate and key (PEM); required outside the sandbox. */
  certificate: string | null;
  privateKey: string | null;
  /** CA certificates (PEM) trusted for Teller's server instead of Node's roots, e.g. a local test server's CA. */
  ca: string | null;
  /** Webhook signing secrets (two during a rotation). */
  webhookSecrets: string[];
}

export interface ProviderRetryEnv {
  /** Attempts of one request in all (COFFER_PROVIDER_RETRIES; 1: none). */
  tries: number;
  /** The first wait between attempts; it doubles each time, with jitter (COFFER_PROVIDER_RETRY_DELAY_MS). */
  firstDelayMs: number;
  /** The longest Retry-After a sync waits for before it fails instead (COFFER_PROVIDER_RETRY_MAX_WAIT_SECONDS). */
  maxWaitMs: number;
}

export interface SimplefinEnv {
  /** SimpleFIN Bridge can take a minute to answer; a longer request is abandoned and retried later. */
  timeoutSeconds: number;
}

export class EnvError extends Error {
  constructor(name: string, problem: string, raw: string) {
    super(`${name} ${problem}, got "${raw}"`);
    this.name = "EnvError";
  }
}

type Env = Record<string, string | undefined>;

/** The variable's value, or undefined when unset or empty (an empty value means "use the default"). */
function raw(env: Env, name: string): string | undefined {
  const v = env[name];
  return v === undefined || v.trim() === "" ? undefined : v.trim();
}

function integer(env: Env, name: string, fallback: number, min: number, max: number): number {
  const v = raw(env, name);
  if (v === undefined) return fallback;
  if (!/^\d+$/.test(v) || Number(v) < min || Number(v) > max) {
    throw new EnvError(name, `must be a whole number from ${min} to ${max}`, v);
  }
  return Number(v);
}

const port = (env: Env, name: string, fallback: number) => integer(env, name, fallback, 1, 65535);

function httpUrl(env: Env, name: string, fallback: string): string {
  const v = raw(env, name) ?? fallback;
  let url: URL;
  try {
    url = new URL(v);
  } catch {
    throw new EnvError(name, "must be an absolute http(s) URL", v);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new EnvError(name, "must be an http(s) URL", v);
  return v.replace(/\/+$/, "");
}

/** A comma-separated list of host names (no scheme, path or port), lower-cased. */
function hostList(env: Env, name: string): string[] {
  const v = raw(env, name);
  if (v === undefined) return [];
  return v.split(",").map((item) => {
    const host = item.trim().toLowerCase();
    if (!/^(\[[0-9a-f:.]+\]|[a-z0-9.-]+)$/.test(host)) {
      throw new EnvError(name, "must be host names separated by commas (no scheme, path or port)", v);
    }
    return host;
  });
}

/** A comma-separated list of origins (scheme://host[:port]), normalised as browsers send them. */
function originList(env: Env, name: string): string[] {
  const v = raw(env, name);
  if (v === undefined) return [];
  return v.split(",").map((item) => {
    let url: URL;
    try {
      url = new URL(item.trim());
    } catch {
      throw new EnvError(name, "must be origins (scheme://host[:port]) separated by commas", v);
    }
    if ((url.protocol !== "http:" && url.protocol !== "https:") || url.pathname !== "/" || url.search || url.hash) {
      throw new EnvError(name, "must be origins (scheme://host[:port]) separated by commas", v);
    }
    return url.origin;
  });
}

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const v = raw(env, name);
  if (v === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(v)) throw new EnvError(name, `must be one of ${allowed.join(", ")}`, v);
  return v as T;
}

/** A duration written `90s`, `30m`, `12h`, `1d` or as plain seconds. */
function duration(env: Env, name: string, fallback: number, min: number, max: number): number {
  const v = raw(env, name);
  if (v === undefined) return fallback;
  const m = /^(\d{1,9})([smhd]?)$/.exec(v);
  const seconds = m
    ? Number(m[1]) * { "": 1, s: 1, m: 60, h: 3600, d: 86400 }[m[2] as "" | "s" | "m" | "h" | "d"]
    : NaN;
  if (!(seconds >= min && seconds <= max)) {
    throw new EnvError(name, `must be a duration such as 30m, 12h or 1d, from ${min}s to ${max / 86400}d`, v);
  }
  return seconds;
}

/** PEM text given inline or as a path to a file holding it. */
function pem(env: Env, name: string): string | null {
  const v = env[name]?.trim();
  if (!v) return null;
  // A PEM pasted into one line of an env file often carries its line breaks as the two characters \n.
  if (v.startsWith("-----BEGIN ")) return v.replace(/\\n/g, "\n");
  let text: string;
  try {
    text = readFileSync(v, "utf8");
  } catch {
    throw new EnvError(name, "must be PEM text or the path of a readable PEM file", v);
  }
  if (!text.includes("-----BEGIN ")) throw new EnvError(name, "names a file that holds no PEM block", v);
  return text;
}

const PLAID_ENVIRONMENTS = {
  sandbox: "https://sandbox.plaid.com",
  production: "https://production.plaid.com",
} as const;

function plaidEnv(env: Env, publicUrl: string): PlaidEnv | null {
  const clientId = raw(env, "PLAID_CLIENT_ID");
  const secret = raw(env, "PLAID_SECRET");
  if (!clientId && !secret) return null;
  if (!clientId) throw new EnvError("PLAID_CLIENT_ID", "must be set together with PLAID_SECRET", "");
  if (!secret) throw new EnvError("PLAID_SECRET", "must be set together with PLAID_CLIENT_ID", "");
  const given = raw(env, "PLAID_BASE_URL");
  if (!given && !raw(env, "PLAID_ENV")) {
    throw new EnvError("PLAID_ENV", "must be sandbox or production (or set PLAID_BASE_URL)", "");
  }
  return {
    clientId,
    secret,
    baseUrl: given
      ? httpUrl(env, "PLAID_BASE_URL", given)
      : PLAID_ENVIRONMENTS[oneOf(env, "PLAID_ENV", ["sandbox", "production"] as const, "sandbox")],
    webhookUrl: httpUrl(env, "PLAID_WEBHOOK_URL", `${publicUrl}/webhooks/plaid`),
  };
}

function tellerEnv(env: Env): TellerEnv | null {
  const applicationId = raw(env, "TELLER_APPLICATION_ID");
  if (!applicationId) return null;
  const environment = oneOf(env, "TELLER_ENV", ["sandbox", "development", "production"] as const, "sandbox");
  const certificate = pem(env, "TELLER_CERT");
  const privateKey = pem(env, "TELLER_KEY");
  if (!certificate !== !privateKey) {
    const missing = certificate ? "TELLER_KEY" : "TELLER_CERT";
    throw new EnvError(missing, "must be set together with the other of TELLER_CERT and TELLER_KEY", "");
  }
  if (!certificate && environment !== "sandbox") {
    throw new EnvError("TELLER_CERT", `is required when TELLER_ENV is ${environment}`, "");
  }
  return {
    applicationId,
    environment,
    baseUrl: httpUrl(env, "TELLER_BASE_URL", "https://api.teller.io"),
    certificate,
    privateKey,
    ca: pem(env, "TELLER_CA"),
    webhookSecrets: (raw(env, "TELLER_WEBHOOK_SECRETS") ?? "")
      .split(",")
      .map((s) => s.trim())
      .filter(Boolean),
  };
}

const PROXY_NAMES = new Set(["loopback", "linklocal", "uniquelocal"]);

/** COFFER_TRUST_PROXY: `false` (default), `true`, or a comma-separated list of proxies. */
function trustProxy(env: Env): TrustProxy {
  const v = raw(env, "COFFER_TRUST_PROXY");
  if (v === undefined || v.toLowerCase() === "false") return false;
  if (v.toLowerCase() === "true") return true;
  const items = v.split(",").map((item) => item.trim().toLowerCase());
  for (const item of items) {
    const [address, prefix, extra] = item.split("/");
    const family = isIP(address);
    const prefixOk = prefix === undefined || (/^\d{1,3}$/.test(prefix) && Number(prefix) <= (family === 6 ? 128 : 32));
    if (!(PROXY_NAMES.has(item) || (family !== 0 && prefixOk && extra === undefined))) {
      throw new EnvError(
        "COFFER_TRUST_PROXY",
        "must be true, false, or addresses/subnets (or loopback, linklocal, uniquelocal) separated by commas",
        v,
      );
    }
  }
  return items;
}

function encryptionKey(env: Env): string | undefined {
  const v = raw(env, "COFFER_ENCRYPTION_KEY");
  if (v === undefined) return undefined;
  if (!/^[0-9a-fA-F]{64}$/.test(v)) {
    throw new EnvError("COFFER_ENCRYPTION_KEY", "must be 64 hex characters (32 bytes)", `${v.length} characters`);
  }
  return v.toLowerCase();
}

export const DEFAULTS = {
  dataDir: ".coffer",
  embeddedPgPort: 54329,
  host: "127.0.0.1",
  corePort: 7100,
  restPort: 8080,
  mcpPort: 8090,
  logLevel: "info",
  deviceCodeTtlSeconds: 600,
  coreTimeoutMs: 10_000,
  coreWriteTimeoutMs: 300_000,
  restartBackoffMs: 500,
  statementTimeoutMs: 15_000,
  syncIntervalSeconds: 12 * 3600,
  syncLogRetentionDays: 90,
  simplefinTimeoutSeconds: 120,
  providerRetries: 3,
  providerRetryDelayMs: 10_000,
  providerRetryMaxWaitSeconds: 60,
  rulePreviewTimeoutMs: 10_000,
  plaidLinkScriptUrl: "https://cdn.plaid.com/link/v2/stable/link-initialize.js",
  tellerConnectScriptUrl: "https://cdn.teller.io/connect/connect.js",
} as const;

/**
 * Reads and checks every COFFER_* variable (and DATABASE_URL); throws EnvError naming the first bad one.
 * `stdoutIsTty` picks the default log format.
 */
export function readEnv(env: Env = process.env, stdoutIsTty = process.stdout.isTTY === true): CofferEnv {
  const corePort = port(env, "COFFER_CORE_PORT", DEFAULTS.corePort);
  const restPort = port(env, "COFFER_REST_PORT", DEFAULTS.restPort);
  const publicUrl = httpUrl(env, "COFFER_PUBLIC_URL", `http://localhost:${restPort}`);
  return {
    databaseUrl: raw(env, "DATABASE_URL"),
    dataDir: raw(env, "COFFER_DATA_DIR") ?? DEFAULTS.dataDir,
    embeddedPgPort: port(env, "COFFER_EMBEDDED_PG_PORT", DEFAULTS.embeddedPgPort),
    host: raw(env, "COFFER_HOST") ?? DEFAULTS.host,
    corePort,
    restPort,
    mcpPort: port(env, "COFFER_MCP_PORT", DEFAULTS.mcpPort),
    coreUrl: httpUrl(env, "COFFER_CORE_URL", `http://127.0.0.1:${corePort}`),
    publicUrl,
    logLevel: oneOf(env, "COFFER_LOG_LEVEL", LOG_LEVELS, DEFAULTS.logLevel),
    logFormat: oneOf(env, "COFFER_LOG_FORMAT", LOG_FORMATS, stdoutIsTty ? "pretty" : "json"),
    deviceCodeTtlSeconds: integer(
      env,
      "COFFER_DEVICE_CODE_TTL_SECONDS",
      DEFAULTS.deviceCodeTtlSeconds,
      1,
      7 * 24 * 3600,
    ),
    coreTimeoutMs: integer(env, "COFFER_CORE_TIMEOUT_MS", DEFAULTS.coreTimeoutMs, 1, 3_600_000),
    coreWriteTimeoutMs: integer(env, "COFFER_CORE_WRITE_TIMEOUT_MS", DEFAULTS.coreWriteTimeoutMs, 1, 3_600_000),
    restartBackoffMs: integer(env, "COFFER_RESTART_BACKOFF_MS", DEFAULTS.restartBackoffMs, 1, 30_000),
    statementTimeoutMs: integer(env, "COFFER_STATEMENT_TIMEOUT_MS", DEFAULTS.statementTimeoutMs, 0, 3_600_000),
    rulePreviewTimeoutMs: integer(
      env,
      "COFFER_RULE_PREVIEW_TIMEOUT_MS",
      DEFAULTS.rulePreviewTimeoutMs,
      1,
      10 * 60 * 1000,
    ),
    apiKey: raw(env, "COFFER_API_KEY"),
    allowedHosts: hostList(env, "COFFER_ALLOWED_HOSTS"),
    mcpAllowedOrigins: originList(env, "COFFER_MCP_ALLOWED_ORIGINS"),
    encryptionKey: encryptionKey(env),
    syncIntervalSeconds: duration(env, "COFFER_SYNC_INTERVAL", DEFAULTS.syncIntervalSeconds, 60, 30 * 86400),
    syncLogRetentionDays: integer(env, "COFFER_SYNC_LOG_RETENTION_DAYS", DEFAULTS.syncLogRetentionDays, 1, 100 * 365),
    trustProxy: trustProxy(env),
    plaid: plaidEnv(env, publicUrl),
    teller: tellerEnv(env),
    simplefin: {
      timeoutSeconds: integer(env, "SIMPLEFIN_TIMEOUT_SECONDS", DEFAULTS.simplefinTimeoutSeconds, 1, 3600),
    },
    providerRetry: {
      tries: integer(env, "COFFER_PROVIDER_RETRIES", DEFAULTS.providerRetries, 1, 10),
      firstDelayMs: integer(env, "COFFER_PROVIDER_RETRY_DELAY_MS", DEFAULTS.providerRetryDelayMs, 1, 600_000),
      maxWaitMs:
        1000 * integer(env, "COFFER_PROVIDER_RETRY_MAX_WAIT_SECONDS", DEFAULTS.providerRetryMaxWaitSeconds, 0, 3600),
    },
    plaidLinkScriptUrl: httpUrl(env, "PLAID_LINK_SCRIPT_URL", DEFAULTS.plaidLinkScriptUrl),
    tellerConnectScriptUrl: httpUrl(env, "TELLER_CONNECT_SCRIPT_URL", DEFAULTS.tellerConnectScriptUrl),
  };
}
