import { VERSION } from "../../services/config.js";
import { coreClients, coreTransport } from "../shared/core-client.js";
import { buildRestApp } from "./app.js";

export async function runRest(env: NodeJS.ProcessEnv = process.env) {
  const port = Number(env.COFFER_REST_PORT ?? 8080);
  const coreUrl = env.COFFER_CORE_URL ?? `http://127.0.0.1:${env.COFFER_CORE_PORT ?? 7100}`;
  const app = await buildRestApp({ core: coreClients(coreTransport(coreUrl)), version: VERSION });
  await app.listen({ port, host: env.COFFER_HOST ?? "127.0.0.1" });
  const stop = async () => {
    await app.close();
    process.exit(0);
  };
  process.on("SIGTERM", stop);
  process.on("SIGINT", stop);
  return app;
}
