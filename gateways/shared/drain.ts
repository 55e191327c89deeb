import type { FastifyInstance } from "fastify";

/**
 * Graceful shutdown for an HTTP/1.1 gateway. Build the app with
 * `forceCloseConnections: "idle"` (`true` resets connections with a request
 * still in flight, so callers would see ECONNRESET instead of their answer)
 * and `return503OnClosing: false` (fastify's own 503 has no error envelope).
 * While draining, responses carry `Connection: close`, and connections that
 * turn idle are closed (also those of hijacked replies, such as MCP's), so
 * close() does not wait out the keep-alive timeout. A request pipelined behind
 * a busy one is left unanswered, which HTTP/1.1 clients retry.
 */
export function drainOnClose(app: FastifyInstance) {
  let draining = false;
  app.addHook("preClose", async () => {
    draining = true;
    const server = app.server as { closeIdleConnections?: () => void; once: (e: string, f: () => void) => void };
    if (!server.closeIdleConnections) return;
    const timer = setInterval(() => server.closeIdleConnections!(), 50);
    timer.unref();
    server.once("close", () => clearInterval(timer));
  });
  app.addHook("onSend", async (_req, reply, payload) => {
    if (draining) reply.header("connection", "close");
    return payload;
  });
}
