import type { FastifyInstance } from "fastify";
import { readEnv, type CofferEnv } from "../../common/env.js";
import { prettyLogStream, type LogStream } from "../../common/logging.js";
import { stopWithSupervisor } from "../../common/supervision.js";
import { VERSION } from "../../common/version.js";
import { coreClients, coreTransport, type CoreClients } from "./core-client.js";
import type { HostGuardConfig } from "./host-guard.js";

export interface GatewayOptions {
  core: CoreClients;
  version: string;
  logLevel: string;
  /** Unset: JSON lines on stdout. */
  logStream?: LogStream;
  guard: HostGuardConfig;
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
  const core = coreClients(coreTransport(e.coreUrl, e.coreTimeoutMs));
  const guard: HostGuardConfig = {
    listenHost: e.host,
    publicUrl: e.publicUrl,
    allowedHosts: e.allowedHosts,
    allowedOrigins: e.mcpAllowedOrigins,
  };
  const logStream = e.logFormat === "pretty" ? prettyLogStream() : undefined;
  const app = await build({ core, version: VERSION, logLevel: e.logLevel, logStream, guard, env: e });
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
