import type { FastifyBaseLogger, FastifyInstance } from "fastify";
import { readEnv, type CofferEnv, type TrustProxy } from "../../common/env.js";
import { prettyLogStream, type LogStream } from "../../common/logging.js";
import { stopWithSupervisor } from "../../common/supervision.js";
import { VERSION } from "../../common/version.js";
import { coreClients, coreTransport, type CoreClients } from "./core-client.js";
import { awaitWrites } from "./write-deadline.js";
import type { HostGuardConfig } from "./host-guard.js";

export interface GatewayOptions {
  core: CoreClients;
  version: string;
  logLevel: string;
  /** Unset: JSON lines on stdout. */
  logStream?: LogStream;
  guard: HostGuardConfig;
  trustProxy: TrustProxy;
  /** The settings the process was started with. */
  env: CofferEnv;
}

/**
 * Runs one gateway process: a Connect client to COFFER_CORE_URL, the app
 * listening on its port, and a clean close on SIGTERM/SIGINT.
 */
export async function runGateway(
  env: NodeJS.ProcessEnv,
  portOf: (e: CofferEnv) => number,
  build: (opts: GatewayOptions) => Promise<FastifyInstance>,
): Promise<FastifyInstance> {
  const e = readEnv(env);
  // The app's logger, once there is an app (the client to the core is made first).
  const logTo: { log?: FastifyBaseLogger } = {};
  const core = coreClients(
    awaitWrites(
      coreTransport(e.coreUrl, e.coreTimeoutMs, (reason) =>
        logTo.log?.warn({ reason }, "replaced the HTTP/2 session to the core"),
      ),
      e.coreTimeoutMs,
      e.coreWriteTimeoutMs,
    ),
  );
  const guard: HostGuardConfig = {
    listenHost: e.host,
    publicUrl: e.publicUrl,
    allowedHosts: e.allowedHosts,
    allowedOrigins: e.mcpAllowedOrigins,
  };
  const logStream = e.logFormat === "pretty" ? prettyLogStream() : undefined;
  const app = await build({
    core,
    version: VERSION,
    logLevel: e.logLevel,
    logStream,
    guard,
    trustProxy: e.trustProxy,
    env: e,
  });
  logTo.log = app.log;
  const stop = async () => {
    await app.close();
    process.exit(0);
  };
  // Before listen(): a signal as soon as the port answers still stops it cleanly.
  process.on("SIGTERM", () => void stop());
  process.on("SIGINT", () => void stop());
  stopWithSupervisor(() => void stop());
  await app.listen({ port: portOf(e), host: e.host });
  return app;
}
