import { readEnv, type LogFormat } from "../common/env.js";
import { VERSION } from "../common/version.js";
import type { ProviderSettings } from "./sync/registry.js";

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
  /** json unless set (tests build configs without it). */
  logFormat?: LogFormat;
  /** statement_timeout of every database connection the core serves with (ms; 0: none). */
  statementTimeoutMs: number;
  /** 64 hex characters, or undefined: then provider credentials cannot be stored (ENCRYPTION_KEY_MISSING). */
  encryptionKey: string | undefined;
  syncIntervalSeconds: number;
  /** Finished sync logs older than this many days are deleted (each connection keeps its newest). */
  syncLogRetentionDays: number;
  providers: ProviderSettings;
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
    logFormat: e.logFormat,
    statementTimeoutMs: e.statementTimeoutMs,
    encryptionKey: e.encryptionKey,
    syncIntervalSeconds: e.syncIntervalSeconds,
    syncLogRetentionDays: e.syncLogRetentionDays,
    providers: { plaid: e.plaid, teller: e.teller, simplefin: e.simplefin, providerRetry: e.providerRetry },
    rulePreviewTimeoutMs: e.rulePreviewTimeoutMs,
  };
}
