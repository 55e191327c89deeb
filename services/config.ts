import { readEnv } from "../common/env.js";
import { VERSION } from "../common/version.js";

/** Everything the core reads from the environment. */
export interface CoreConfig {
  databaseUrl: string;
  port: number;
  host: string;
  version: string;
  deviceCodeTtlSeconds: number;
  /** Where people reach the REST gateway; used to build the device-code verification URL. */
  publicUrl: string;
  logLevel: string;
  /** How long preview_rule may take before it answers 400 VALIDATION_ERROR. */
  rulePreviewTimeoutMs: number;
}

export function coreConfigFromEnv(env: NodeJS.ProcessEnv = process.env): CoreConfig {
  const e = readEnv(env);
  if (!e.databaseUrl) {
    throw new Error("DATABASE_URL is required for the core (coffer start sets it for the embedded database)");
  }
  return {
    databaseUrl: e.databaseUrl,
    port: e.corePort,
    host: e.host,
    version: VERSION,
    deviceCodeTtlSeconds: e.deviceCodeTtlSeconds,
    publicUrl: e.publicUrl,
    logLevel: e.logLevel,
    rulePreviewTimeoutMs: e.rulePreviewTimeoutMs,
  };
}
