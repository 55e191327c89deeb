import type { FastifyInstance } from "fastify";
import { VERSION } from "../../services/config.js";
import { coreClients, coreTransport, type CoreClients } from "./core-client.js";

/**
 * Runs one gateway process: a Connect client to COFFER_CORE_URL, the app
 * listening on its port, and a clean close on SIGTERM/SIGINT.
 */
export async function runGateway(
  env: NodeJS.ProcessEnv,
  portVar: "COFFER_REST_PORT" | "COFFER_MCP_PORT",
  defaultPort: number,
  build: (opts: { core: CoreClients; version: string }) => Promise<FastifyInstance>,
): Promise<FastifyInstance> {
  const port = Number(env[portVar] ?? defaultPort);
  const coreUrl = env.COFFER_CORE_URL ?? `http://127.0.0.1:${env.COFFER_CORE_PORT ?? 7100}`;
  const app = await build({ core: coreClients(coreTransport(coreUrl)), version: VERSION });
  await app.listen({ port, host: env.COFFER_HOST ?? "127.0.0.1" });
  const stop = async () => {
    await app.close();
    process.exit(0);
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  return app;
}
