import type { ApiKeyCache } from "./auth/key-cache.js";
import type { Clock } from "./clock.js";
import type { CoreConfig } from "./config.js";
import type { Orm } from "./db/orm.js";
import type { CursorKeyring } from "./pagination/cursor-keys.js";
import type { SyncRuntime } from "./sync/runtime.js";

/** Long-lived dependencies every area's routes receive. */
export interface CoreDeps {
  orm: Orm;
  config: CoreConfig;
  /** "Now" for every decision the core makes in code; domain modules reach it through their entity manager. */
  clock: Clock;
  /** Fully-qualified names of the services the core serves (for the health service). */
  serviceNames: Set<string>;
  /** The keys cursors are signed with, cached for this process. */
  cursorKeys: CursorKeyring;
  /** The API keys this core authenticated recently (services/auth/key-cache.ts). */
  keyCache: ApiKeyCache;
  /** Providers, credentials, the sync engine and its scheduler. */
  sync: SyncRuntime;
}
