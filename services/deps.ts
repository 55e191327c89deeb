import type { CoreConfig } from "./config.js";
import type { Orm } from "./db/orm.js";
import type { SyncRuntime } from "./sync/runtime.js";

/** Long-lived dependencies every area's routes receive. */
export interface CoreDeps {
  orm: Orm;
  config: CoreConfig;
  /** Fully-qualified names of the services the core serves (for the health service). */
  serviceNames: Set<string>;
  /** Providers, credentials, the sync engine and its scheduler. */
  sync: SyncRuntime;
}
