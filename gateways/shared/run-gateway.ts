import type { FastifyBaseLogger, FastifyInstance } from "fastify";
import { readEnv, type CofferEnv, type TrustProxy } from "../../common/env.js";
import { prettyLogStream, processLogger, type LogStream } from "../../common/logging.js";
import { handleProcessFaults, type FaultLogger } from "../../common/process-faults.js";
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
  const logStream = e.logFormat === "pretty" ? prettyLogStream() : undefined;
  let fallbackLog: FaultLogger | null = null;
  let stopGateway: (code: number) => void = (code) => process.exit(code); // until the app runs, nothing needs finishing
  handleProcessFaults({
    log: () => logTo.log ?? (fallbackLog ??= processLogger("gateway", e.logLevel, logStream)),
    stop: (code) => stopGateway(code),
  });
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
  let closing = false;
  const stop = async (code = 0) => {
    if (closing) return;
    closing = true;
    await app.close();
    process.exit(code);
  };
  stopGateway = (code) => void stop(code);
  // Before listen(): a signal as soon as the port answers still stops it cleanly.
  process.on("SIGTERM", () => void stop());
  process.on("SIGINT", () => void stop());
  stopWithSupervisor(() => void stop());
  await app.listen({ port: portOf(e), host: e.host });
  return app;
}
