import type { FastifyInstance } from "fastify";
import { callOptions, type CoreClients } from "./core-client.js";
import { envelope, mapAndLog } from "./error-map.js";
import { sendEnvelope } from "./http-app.js";

/** How long /health/ready waits for the core: a probe must answer quickly, whatever the core does. */
export const READY_TIMEOUT_MS = 1000;

export { PROBE_URLS } from "../../common/probes.js";

/**
 * /health and /health/live: this process answers. /health/ready: the core
 * answers within READY_TIMEOUT_MS and reaches its database; otherwise 503
 * UNAVAILABLE (a core that does not answer in time is not ready, so the probe
 * never answers 504).
 */
export function registerHealth(app: FastifyInstance, core: CoreClients, version: string) {
  const ok = async () => ({ status: "ok", version });
  app.get("/health", ok);
  app.get("/health/live", ok);
  app.get("/health/ready", async (req, reply) => {
    try {
      await core.system.checkReady({}, callOptions(undefined, req.id, READY_TIMEOUT_MS));
    } catch (e) {
      // A core that is starting or down is what the 503 reports; probes poll, so that is not worth a
      // warning each time (debug). A failure of our own is still logged as an error.
      const mapped = mapAndLog(e, { error: (o, m) => req.log.error(o, m), warn: (o, m) => req.log.debug(o, m) });
      return sendEnvelope(
        reply,
        mapped.body.error.code === "UPSTREAM_TIMEOUT"
          ? envelope("UNAVAILABLE", `The Coffer core did not answer within ${READY_TIMEOUT_MS} ms`)
          : mapped,
      );
    }
    return ok();
  });
}
