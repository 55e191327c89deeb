import { createConnectRouter, createContextValues } from "@connectrpc/connect";
import { fastifyConnectPlugin } from "@connectrpc/connect-fastify";
import { fastify } from "fastify";
import type { CoreConfig } from "./config.js";
import { kEm, kEntry, kLog, kPeer } from "./context.js";
import { guardEntries } from "./entry.js";
import { ApiKeyCache } from "./auth/key-cache.js";
import type { Orm } from "./db/orm.js";
import type { CoreDeps } from "./deps.js";
import { authInterceptor } from "./interceptors/auth.js";
import { errorInterceptor } from "./interceptors/errors.js";
import { bindClock, systemClock, type Clock } from "./clock.js";
import { startPeriodicTasks, type PeriodicTask, type RunningTasks } from "./periodic.js";
import { PERIODIC_TASKS } from "./periodic-tasks.js";
import { routes } from "./routes.js";
import { CursorKeyring } from "./pagination/cursor-keys.js";
import { createSyncRuntime, type SyncRuntime, type SyncRuntimeOptions } from "./sync/runtime.js";
import { moveSealedCsvFilesAtStart } from "./sync/file-imports.js";
import { loggerOptions, requestLogController } from "../common/logging.js";

/**
 * Connect's JSON options. The decoder is a documented option of Connect's JSON
 * serialization that its handler options type does not list, hence a variable.
 */
const JSON_OPTIONS = { ignoreUnknownFields: false, textDecoder: new TextDecoder("utf-8", { fatal: true }) };

/**
 * Builds the core server (h2c: Connect, gRPC and gRPC-Web) without listening.
 * The job queue (pg-boss: syncs) starts when it gets ready, the periodic tasks
 * on it when it listens; both stop when it closes.
 */
export async function buildCoreServer(
  orm: Orm,
  config: CoreConfig,
  opts: {
    logger?: boolean;
    /** Where log lines go instead of stdout (tests read them). */
    logStream?: { write(line: string): void };
    /** The periodic tasks this core works (default all of them). */
    periodicTasks?: PeriodicTask[];
    sync?: SyncRuntimeOptions;
    /** "Now" for the core's decisions (default the system clock; tests set their own). */
    clock?: Clock;
  } = {},
) {
  const app = fastify({
    http2: true,
    // Node 20: without this, close() waits for clients to drop their h2 sessions.
    forceCloseConnections: true,
    logger:
      opts.logger === false
        ? false
        : { ...(loggerOptions("core", config.logLevel) as object), ...(opts.logStream && { stream: opts.logStream }) },
    logController: requestLogController(),
    requestIdHeader: "x-request-id",
  });
  const clock = opts.clock ?? systemClock;
  bindClock(orm, clock);
  const keyCache = new ApiKeyCache(orm.config.get("clientUrl"), { log: app.log });
  const deps: CoreDeps = {
    orm,
    keyCache,
    config,
    clock,
    serviceNames: new Set(),
    cursorKeys: new CursorKeyring(),
    sync: createSyncRuntime(orm, config, app.log, { clock, ...opts.sync }),
  };
  const probe = createConnectRouter();
  routes(deps)(probe);
  for (const h of probe.handlers) deps.serviceNames.add(h.service.typeName);

  await app.register(fastifyConnectPlugin, {
    routes: (router) => {
      routes(deps)(router);
      guardEntries(router.handlers, keyCache);
    },
    interceptors: [errorInterceptor, authInterceptor],
    // Unknown JSON fields are refused (as the REST gateway refuses them), and so is invalid UTF-8.
    jsonOptions: JSON_OPTIONS,
    contextValues: (req) =>
      createContextValues()
        .set(kEm, orm.em.fork())
        .set(kLog, req.log)
        .set(kEntry, { reached: false })
        .set(kPeer, req.ip),
    // In-flight calls get this long to finish when the core shuts down.
    shutdownTimeoutMs: 10_000,
  });

  let running: RunningTasks | null = null;
  // Before listening: a core whose job queue cannot start (e.g. its schema is missing) must not serve.
  app.addHook("onReady", async () => {
    // Before any sync runs: files older CSV connections keep sealed move to csv_imports (needs the key).
    await moveSealedCsvFilesAtStart(orm.em.fork(), deps.sync.cipher, app.log);
    await deps.sync.scheduler.start();
    await keyCache.start();
  });
  app.addHook("onListen", async () => {
    running = await startPeriodicTasks(deps.sync.scheduler.jobQueue, opts.periodicTasks ?? PERIODIC_TASKS, {
      fork: () => orm.em.fork(),
      config,
      log: app.log,
      schedule: deps.sync.scheduler.keepsSchedule,
    });
    periodic.set(app, running);
  });
  app.addHook("onClose", async () => {
    await running?.stop();
    await deps.sync.scheduler.stop();
    await keyCache.stop();
  });
  runtimes.set(app, deps.sync);
  return app;
}

const runtimes = new WeakMap<object, SyncRuntime>();
const periodic = new WeakMap<object, RunningTasks>();

/** The periodic tasks of a listening core built by buildCoreServer (tests run one now through it). */
export function periodicTasksOf(app: object): RunningTasks {
  const running = periodic.get(app);
  if (!running) throw new Error("not a listening core built by buildCoreServer");
  return running;
}

/** The sync runtime of a core built by buildCoreServer (tests and the CLI reach its engine and scheduler here). */
export function syncRuntimeOf(app: object): SyncRuntime {
  const runtime = runtimes.get(app);
  if (!runtime) throw new Error("not a core built by buildCoreServer");
  return runtime;
}
