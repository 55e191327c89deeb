import { VERSION } from "../../common/version.js";
import { coreClients, coreTransport } from "../shared/core-client.js";
import { buildRestApp } from "./app.js";
import { OPENAPI_URL } from "./openapi.js";

/**
 * The OpenAPI document exactly as GET /api/v1/openapi.json serves it, without
 * a running core or a listening socket: building the app registers every
 * route, and no route calls the core until a request comes.
 */
export async function openApiDocument(): Promise<Record<string, unknown>> {
  const app = await buildRestApp({
    core: coreClients(coreTransport("http://127.0.0.1:9", 1000)),
    version: VERSION,
    logger: false,
  });
  try {
    const res = await app.inject({ method: "GET", url: OPENAPI_URL });
    if (res.statusCode !== 200) throw new Error(`${OPENAPI_URL} answered ${res.statusCode}: ${res.body}`);
    return res.json<Record<string, unknown>>();
  } finally {
    await app.close();
  }
}
