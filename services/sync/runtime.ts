import { systemClock, type Clock } from "../clock.js";
import type { CoreConfig } from "../config.js";
import type { Orm } from "../db/orm.js";
import type { ConnectionDeps } from "./connections.js";
import { CredentialCipher } from "./credentials.js";
import { SyncEngine, type EngineLogger } from "./engine.js";
import { POST_COMMIT_HOOKS, type PostCommitHook } from "./hooks.js";
import { providersFromEnv, type ProviderRegistry } from "./registry.js";
import { SyncScheduler, type SchedulerOptions } from "./scheduler.js";
import type { WebhookDeps } from "./webhooks.js";

/** Everything the core's sync area runs on: providers, the credential cipher, the engine and its scheduler. */
export interface SyncRuntime extends ConnectionDeps, WebhookDeps {
  registry: ProviderRegistry;
  cipher: CredentialCipher;
  engine: SyncEngine;
  scheduler: SyncScheduler;
}

export interface SyncRuntimeOptions {
  /** The core's clock, given to the providers (default the system clock). */
  clock?: Clock;
  /** Providers other than the environment's (tests). */
  registry?: ProviderRegistry;
  hooks?: PostCommitHook[];
  /** Scheduler settings other than the defaults (tests use short delays). */
  scheduler?: Partial<Omit<SchedulerOptions, "databaseUrl" | "engine" | "fork" | "log">>;
}

export function createSyncRuntime(
  orm: Orm,
  config: CoreConfig,
  log: EngineLogger,
  opts: SyncRuntimeOptions = {},
): SyncRuntime {
  const registry = opts.registry ?? providersFromEnv(config.providers, opts.clock ?? systemClock);
  // The database the ORM uses (config.databaseUrl names the same one when the core runs for real).
  const databaseUrl = orm.config.get("clientUrl") ?? config.databaseUrl;
  const cipher = new CredentialCipher(config.encryptionKey);
  const engine = new SyncEngine({
    orm,
    databaseUrl,
    cipher,
    registry,
    hooks: opts.hooks ?? POST_COMMIT_HOOKS,
    log,
  });
  const scheduler = new SyncScheduler({
    databaseUrl,
    engine,
    fork: () => orm.em.fork(),
    log,
    intervalSeconds: config.syncIntervalSeconds,
    ...opts.scheduler,
  });
  return {
    registry,
    cipher,
    engine,
    scheduler,
    requestSync: (connectionId, trigger) => scheduler.requestSync(connectionId, trigger),
  };
}
