import { prettyLogStream, processLogger } from "../common/logging.js";
import { handleProcessFaults, type FaultLogger } from "../common/process-faults.js";
import {
  databaseReady,
  stopWithSupervisor,
  type DatabaseWaitMessage,
  type FirstRunSetupMessage,
} from "../common/supervision.js";
import { firstRunSetupUrl } from "./auth/logins.js";
import { coreConfigFromEnv } from "./config.js";
import { isDatabaseUnreachable, waitForDatabase } from "./db/availability.js";
import { closeOrm, migrate, openOrm, type Orm } from "./db/orm.js";
import { rotateCursorKey } from "./pagination/cursor-keys.js";
import { buildCoreServer } from "./server.js";

/** Under `coffer start`: hands the supervisor the first-run setup link for its summary (see supervision.ts). */
async function tellSupervisorFirstRunSetup(orm: Orm, publicUrl: string) {
  if (!process.send) return;
  let message: FirstRunSetupMessage;
  try {
    message = { kind: "first-run-setup", url: await firstRunSetupUrl(orm.em.fork(), publicUrl) };
  } catch (e) {
    message = { kind: "first-run-setup", url: null, error: (e as Error).message };
  }
  process.send(message);
}

/**
 * Waits for the database with backoff, one log line per attempt that fails;
 * under `coffer start` it tells the supervisor it is waiting (so a long
 * outage is not taken for a core that crashes) and when the database answers.
 */
async function awaitDatabase(databaseUrl: string, log: FaultLogger & { info(obj: object, msg: string): void }) {
  const tell = (m: DatabaseWaitMessage) => process.send?.(m);
  let waited = false;
  await waitForDatabase(databaseUrl, {
    onAttemptFailed: (attempt, reason, retryInMs) => {
      if (!waited) tell({ kind: "database-waiting" });
      waited = true;
      log.warn(
        { attempt, reason, retryInMs },
        `the database does not answer (${reason}); trying again in ${(retryInMs / 1000).toFixed(1)} s`,
      );
    },
  });
  if (!waited) return;
  log.info({}, "the database answers");
  tell({ kind: "database-answers" });
}

/** The core process: migrate, rotate the cursor key if due, then serve Connect + gRPC + gRPC-Web on h2c. */
export async function runCore(env: NodeJS.ProcessEnv = process.env) {
  const config = coreConfigFromEnv(env);
  const logStream = config.logFormat === "pretty" ? prettyLogStream() : undefined;
  // The server's logger once there is a server; until then one of the same kind.
  let log: FaultLogger = processLogger("core", config.logLevel, logStream);
  let stopCore: (code: number) => void = (code) => process.exit(code); // until the server runs, nothing needs finishing
  handleProcessFaults({ log: () => log, passes: isDatabaseUnreachable, stop: (code) => stopCore(code) });
  stopWithSupervisor(() => process.exit(0));
  await databaseReady(env);
  await awaitDatabase(config.databaseUrl, processLogger("core", config.logLevel, logStream));
  // Migrations run on their own short-lived ORM: they may take minutes (a column on a large
  // table), so they must not inherit the statement timeout the serving connections have.
  const migrator = await openOrm(config.databaseUrl, 2);
  let applied: string[];
  try {
    applied = await migrate(migrator);
  } finally {
    await closeOrm(migrator);
  }
  const orm = await openOrm(config.databaseUrl, undefined, { statementTimeoutMs: config.statementTimeoutMs });
  // The periodic task rotates the cursor key hourly; a core restarted more often than that
  // would never get to it, so every start checks once too.
  await rotateCursorKey(orm.em.fork());
  const app = await buildCoreServer(orm, config, { logStream });
  log = app.log;
  app.log.info(
    { migrations: applied },
    applied.length ? `migrated the database (${applied.length} new)` : "the database is up to date (migrated)",
  );
  await tellSupervisorFirstRunSetup(orm, config.publicUrl);
  let closing = false;
  const stop = async (code = 0) => {
    if (closing) return;
    closing = true;
    app.log.info("shutting down: finishing in-flight calls");
    await app.close();
    await closeOrm(orm);
    process.exit(code);
  };
  stopCore = (code) => void stop(code);
  // Before listen(): a signal as soon as the port answers still stops it cleanly.
  process.on("SIGTERM", () => void stop());
  process.on("SIGINT", () => void stop());
  process.removeAllListeners("disconnect");
  stopWithSupervisor(() => void stop());
  await app.listen({ port: config.port, host: config.host });
  if (!config.encryptionKey) {
    app.log.warn(
      "COFFER_ENCRYPTION_KEY is not set: provider connections cannot be created (ENCRYPTION_KEY_MISSING) " +
        "until the core runs with a key",
    );
  }
  return app;
}
