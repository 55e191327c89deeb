import { coreConfigFromEnv } from "./config.js";
import { closeOrm, migrate, openOrm } from "./db/orm.js";
import { buildCoreServer } from "./server.js";

/** The core process: migrate, then serve Connect + gRPC + gRPC-Web on h2c. */
export async function runCore(env: NodeJS.ProcessEnv = process.env) {
  const config = coreConfigFromEnv(env);
  const orm = await openOrm(config.databaseUrl);
  await migrate(orm);
  const app = await buildCoreServer(orm, config);
  await app.listen({ port: config.port, host: config.host });
  if (!config.encryptionKey) {
    app.log.warn(
      "COFFER_ENCRYPTION_KEY is not set: provider connections cannot be created (ENCRYPTION_KEY_MISSING) " +
        "until the core runs with a key",
    );
  }
  let closing = false;
  const stop = async () => {
    if (closing) return;
    closing = true;
    app.log.info("shutting down: finishing in-flight calls");
    await app.close();
    await closeOrm(orm);
    process.exit(0);
  };
  process.on("SIGTERM", () => void stop());
  process.on("SIGINT", () => void stop());
  return app;
}
