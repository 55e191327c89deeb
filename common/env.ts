/**
 * The one reader of Coffer's environment. Every process (core, gateways, CLI)
 * takes its ports, hosts and URLs from here, so each default is written once
 * and a bad value stops the process at start with the variable's name.
 */

export const LOG_LEVELS = ["trace", "debug", "info", "warn", "error", "fatal", "silent"] as const;
export type LogLevel = (typeof LOG_LEVELS)[number];

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
  deviceCodeTtlSeconds: number;
  /** How long preview_rule may take before it answers 400. */
  rulePreviewTimeoutMs: number;
  /** The key `coffer mcp --stdio` acts with. */
  apiKey: string | undefined;
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

function oneOf<T extends string>(env: Env, name: string, allowed: readonly T[], fallback: T): T {
  const v = raw(env, name);
  if (v === undefined) return fallback;
  if (!(allowed as readonly string[]).includes(v)) throw new EnvError(name, `must be one of ${allowed.join(", ")}`, v);
  return v as T;
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
  rulePreviewTimeoutMs: 10_000,
} as const;

/** Reads and checks every COFFER_* variable (and DATABASE_URL); throws EnvError naming the first bad one. */
export function readEnv(env: Env = process.env): CofferEnv {
  const corePort = port(env, "COFFER_CORE_PORT", DEFAULTS.corePort);
  const restPort = port(env, "COFFER_REST_PORT", DEFAULTS.restPort);
  return {
    databaseUrl: raw(env, "DATABASE_URL"),
    dataDir: raw(env, "COFFER_DATA_DIR") ?? DEFAULTS.dataDir,
    embeddedPgPort: port(env, "COFFER_EMBEDDED_PG_PORT", DEFAULTS.embeddedPgPort),
    host: raw(env, "COFFER_HOST") ?? DEFAULTS.host,
    corePort,
    restPort,
    mcpPort: port(env, "COFFER_MCP_PORT", DEFAULTS.mcpPort),
    coreUrl: httpUrl(env, "COFFER_CORE_URL", `http://127.0.0.1:${corePort}`),
    publicUrl: httpUrl(env, "COFFER_PUBLIC_URL", `http://localhost:${restPort}`),
    logLevel: oneOf(env, "COFFER_LOG_LEVEL", LOG_LEVELS, DEFAULTS.logLevel),
    deviceCodeTtlSeconds: integer(
      env,
      "COFFER_DEVICE_CODE_TTL_SECONDS",
      DEFAULTS.deviceCodeTtlSeconds,
      1,
      7 * 24 * 3600,
    ),
    rulePreviewTimeoutMs: integer(
      env,
      "COFFER_RULE_PREVIEW_TIMEOUT_MS",
      DEFAULTS.rulePreviewTimeoutMs,
      1,
      10 * 60 * 1000,
    ),
    apiKey: raw(env, "COFFER_API_KEY"),
  };
}
