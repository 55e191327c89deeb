import { prettyLogStream } from "../common/logging.js";
import { databaseReady, stopWithSupervisor, type FirstRunSetupMessage } from "../common/supervision.js";
import { firstRunSetupUrl } from "./auth/logins.js";
import { coreConfigFromEnv } from "./config.js";
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

/** The core process: migrate, rotate the cursor key if due, then serve Connect + gRPC + gRPC-Web on h2c. */
export async function runCore(env: NodeJS.ProcessEnv = process.env) {
  const config = coreConfigFromEnv(env);
  stopWithSupervisor(() => process.exit(0)); // until the server runs, nothing needs finishing
  await databaseReady(env);
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
  const app = await buildCoreServer(orm, config, {
    logStream: config.logFormat === "pretty" ? prettyLogStream() : undefined,
  });
  app.log.info(
    { migrations: applied },
    applied.length ? `migrated the database (${applied.length} new)` : "the database is up to date (migrated)",
  );
  await tellSupervisorFirstRunSetup(orm, config.publicUrl);
  let closing = false;
  const stop = async () => {
    if (closing) return;
    closing = true;
    app.log.info("shutting down: finishing in-flight calls");
    await app.close();
    await closeOrm(orm);
    process.exit(0);
  };
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
