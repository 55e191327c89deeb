import { randomUUID } from "node:crypto";
import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { fastify, type FastifyReply } from "fastify";
import { loggerOptions, requestLogController } from "../../common/logging.js";
import { callOptions, type CoreClients } from "../shared/core-client.js";
import { drainOnClose } from "../shared/drain.js";
import { envelope, mapError, type MappedError } from "../shared/error-map.js";
import { createMcpServer } from "./server.js";

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;

function send(reply: FastifyReply, m: MappedError) {
  return reply.status(m.status).type("application/json").send(m.body);
}

/**
 * MCP Streamable HTTP at /mcp, stateless: every POST gets a fresh server and
 * transport bound to the caller's key. A request without a valid key is refused
 * (401 + envelope) before any MCP handling; the core judges the key.
 */
export async function buildMcpApp(opts: { core: CoreClients; version: string; logger?: boolean; logLevel?: string }) {
  const app = fastify({
    logger: opts.logger === false ? false : (loggerOptions("mcp", opts.logLevel ?? "info") as object),
    logController: requestLogController(),
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers["x-request-id"];
      return typeof given === "string" && REQUEST_ID.test(given) ? given : randomUUID();
    },
    bodyLimit: 4 * 1024 * 1024,
    // Shutdown lets in-flight requests finish (see drainOnClose).
    forceCloseConnections: "idle",
    return503OnClosing: false,
    // Router-level refusals (bad percent-encoding, over-long path segments) get the envelope too.
    frameworkErrors: (_err, req, reply) => {
      void send(reply, envelope("NOT_FOUND", `No route for ${req.method} ${req.url.split("?")[0].slice(0, 200)}`));
    },
  });

  drainOnClose(app);
  app.setErrorHandler((err: { code?: string; statusCode?: number }, req, reply) => {
    if (err.code === "FST_ERR_CTP_BODY_TOO_LARGE")
      return send(reply, envelope("PAYLOAD_TOO_LARGE", "The request body is too large"));
    if (err.code?.startsWith("FST_ERR_CTP_"))
      return send(reply, envelope("INVALID_BODY", "The request body is not valid JSON"));
    req.log.error({ err }, "unexpected error in MCP gateway");
    return send(reply, envelope("INTERNAL_ERROR", "Internal error"));
  });
  app.setNotFoundHandler((req, reply) =>
    send(reply, envelope("NOT_FOUND", `No route for ${req.method} ${req.url.split("?")[0]}`)),
  );

  const health = async () => ({ status: "ok", version: opts.version });
  app.get("/health", health);
  app.get("/health/live", health);

  app.post("/mcp", async (req, reply) => {
    const key = req.headers["x-api-key"];
    const call = callOptions(typeof key === "string" ? key : undefined, req.id);
    try {
      await opts.core.apiKeys.getCurrentKey({}, call);
    } catch (e) {
      return send(reply, mapError(e));
    }
    const server = createMcpServer(opts.core, call);
    const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
    reply.hijack();
    reply.raw.on("close", () => {
      void transport.close();
      void server.close();
    });
    await server.connect(transport);
    await transport.handleRequest(req.raw, reply.raw, req.body);
  });
  // Stateless server: no SSE stream to resume and no session to end.
  for (const method of ["GET", "DELETE", "PUT", "PATCH"] as const) {
    app.route({
      method,
      url: "/mcp",
      handler: async (_req, reply) => {
        reply.header("allow", "POST");
        return send(reply, envelope("METHOD_NOT_ALLOWED", "Use POST for MCP requests on this stateless endpoint"));
      },
    });
  }
  return app;
}
