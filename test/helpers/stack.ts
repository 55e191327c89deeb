import type { AddressInfo } from "node:net";
import { buildMcpApp } from "../../gateways/mcp/http.js";
import { buildRestApp } from "../../gateways/rest/app.js";
import { coreClients, coreTransport, type CoreClients } from "../../gateways/shared/core-client.js";
import { awaitWrites } from "../../gateways/shared/write-deadline.js";
import { DEFAULTS } from "../../common/env.js";
import { insertApiKey } from "../../services/auth/api-keys.js";
import { VERSION } from "../../common/version.js";
import { coreConfigFromEnv, type CoreConfig } from "../../services/config.js";
import { closeOrm, openOrm, type Orm } from "../../services/db/orm.js";
import type { Clock } from "../../services/clock.js";
import type { PeriodicTask } from "../../services/periodic.js";
import { buildCoreServer, syncRuntimeOf } from "../../services/server.js";
import type { SyncRuntime, SyncRuntimeOptions } from "../../services/sync/runtime.js";
import { createTestDatabase } from "./db.js";

export interface Stack {
  databaseUrl: string;
  orm: Orm;
  config: CoreConfig;
  coreUrl: string;
  core: CoreClients;
  rest: Awaited<ReturnType<typeof buildRestApp>>;
  mcp: Awaited<ReturnType<typeof buildMcpApp>>;
  /** Plaintext keys created for the test: full_access and read_only. */
  adminKey: string;
  readKey: string;
  /** The core's sync runtime (its provider registry, engine and scheduler). */
  sync: SyncRuntime;
  /** The core's app (for periodicTasksOf). */
  coreApp: object;
  close(): Promise<void>;
}

/** The encryption key test cores run with (unless a test asks for none). */
export const STACK_ENCRYPTION_KEY = "fedcba9876543210".repeat(4);

/**
 * A real core listening on h2c (random port) over this file's own database,
 * with the REST and MCP gateways built in process and talking to it over HTTP/2.
 * `coreLog` receives the core's log lines (give `logLevel` too: the default is silent).
 * The core works no periodic task unless `periodicTasks` names some: pg-boss's
 * clock would run them whenever a minute turns, in the middle of a test.
 * `clock` is the core's clock (a ManualClock lets a test move time on).
 */
export async function startStack(
  overrides: Partial<CoreConfig> = {},
  opts: {
    coreLog?: { write(line: string): void };
    sync?: SyncRuntimeOptions;
    periodicTasks?: PeriodicTask[];
    clock?: Clock;
  } = {},
): Promise<Stack> {
  const databaseUrl = await createTestDatabase();
  const config: CoreConfig = {
    ...coreConfigFromEnv({ DATABASE_URL: databaseUrl }),
    logLevel: "silent",
    encryptionKey: STACK_ENCRYPTION_KEY,
    ...overrides,
  };
  // The core's pools, as in production: with the configured statement timeout.
  const orm = await openOrm(databaseUrl, 5, { statementTimeoutMs: config.statementTimeoutMs });
  const coreApp = await buildCoreServer(orm, config, {
    ...(opts.coreLog ? { logStream: opts.coreLog } : { logger: false }),
    sync: opts.sync,
    periodicTasks: opts.periodicTasks ?? [],
    clock: opts.clock,
  });
  await coreApp.listen({ port: 0, host: "127.0.0.1" });
  const coreUrl = `http://127.0.0.1:${(coreApp.server.address() as AddressInfo).port}`;
  const core = coreClients(awaitWrites(coreTransport(coreUrl), DEFAULTS.coreTimeoutMs, DEFAULTS.coreWriteTimeoutMs));
  // Every answer the REST tests see is also checked against the OpenAPI document.
  const rest = await buildRestApp({ core, version: VERSION, logger: false, checkResponses: true });
  const mcp = await buildMcpApp({ core, version: VERSION, logger: false });
  const adminKey = (await insertApiKey(orm.em.fork(), { name: "test admin", scope: "full_access" })).plaintext;
  const readKey = (await insertApiKey(orm.em.fork(), { name: "test reader", scope: "read_only" })).plaintext;
  return {
    databaseUrl,
    orm,
    config,
    coreUrl,
    core,
    rest,
    mcp,
    adminKey,
    readKey,
    sync: syncRuntimeOf(coreApp),
    coreApp,
    async close() {
      await rest.close();
      await mcp.close();
      await coreApp.close();
      await closeOrm(orm);
    },
  };
}
