/** Everything the core reads from the environment, in one place. */
export interface CoreConfig {
  databaseUrl: string;
  port: number;
  host: string;
  version: string;
  deviceCodeTtlSeconds: number;
  /** Where people reach the REST gateway; used to build the device-code verification URL. */
  publicUrl: string;
  logLevel: string;
}

export const CONTRACT_VERSION = "1.0.0";
export const VERSION = "0.1.0";

function int(name: string, fallback: number, env: NodeJS.ProcessEnv): number {
  const raw = env[name];
  if (raw === undefined || raw === "") return fallback;
  const n = Number(raw);
  if (!Number.isInteger(n) || n <= 0) throw new Error(`${name} must be a positive integer, got "${raw}"`);
  return n;
}

export function coreConfigFromEnv(env: NodeJS.ProcessEnv = process.env): CoreConfig {
  const databaseUrl = env.DATABASE_URL;
  if (!databaseUrl) throw new Error("DATABASE_URL is required for the core (coffer start sets it for the embedded database)");
  return {
    databaseUrl,
    port: int("COFFER_CORE_PORT", 7100, env),
    host: env.COFFER_HOST ?? "127.0.0.1",
    version: VERSION,
    deviceCodeTtlSeconds: int("COFFER_DEVICE_CODE_TTL_SECONDS", 600, env),
    publicUrl: (env.COFFER_PUBLIC_URL ?? `http://localhost:${int("COFFER_REST_PORT", 8080, env)}`).replace(/\/$/, ""),
    logLevel: env.COFFER_LOG_LEVEL ?? "info",
  };
}
