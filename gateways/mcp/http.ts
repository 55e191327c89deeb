import { StreamableHTTPServerTransport } from "@modelcontextprotocol/sdk/server/streamableHttp.js";
import { JSONRPCMessageSchema, SUPPORTED_PROTOCOL_VERSIONS } from "@modelcontextprotocol/sdk/types.js";
import type { IncomingHttpHeaders } from "node:http";
import type { TrustProxy } from "../../common/env.js";
import type { LogStream } from "../../common/logging.js";
import { callOptions, type CoreClients } from "../shared/core-client.js";
import { envelope, mapAndLog, type MappedError } from "../shared/error-map.js";
import { apiKeyOf, refuseWithoutCredential } from "../shared/credentials.js";
import { registerHealth } from "../shared/health.js";
import type { HostGuardConfig } from "../shared/host-guard.js";
import { createHttpApp, requestErrorOf, sendEnvelope as send } from "../shared/http-app.js";
import { createMcpServer } from "./server.js";

export interface McpAppOptions {
  core: CoreClients;
  version: string;
  logger?: boolean;
  logLevel?: string;
  /** Log lines go here instead of stdout (tests read them). */
  logStream?: LogStream;
  /** The DNS-rebinding guard's settings, with the allowed browser origins (from the environment as a process). */
  guard?: HostGuardConfig;
  /** Whose X-Forwarded-For names the client (COFFER_TRUST_PROXY). */
  trustProxy?: TrustProxy;
}

/** The SDK transport's own limit on a batch, refused here with the envelope. */
const MAX_BATCH = 100;

/**
 * What the SDK's transport would refuse with a JSON-RPC error outside the
 * envelope (its status, but a body no other Coffer error has), refused here
 * the same way with the envelope: an Accept without both media types the
 * protocol names, an MCP-Protocol-Version it does not speak, and a body that
 * is no JSON-RPC 2.0 message or batch.
 */
function refusedByTransport(headers: IncomingHttpHeaders, body: object): MappedError | null {
  const accept = headers.accept ?? "";
  if (!accept.includes("application/json") || !accept.includes("text/event-stream"))
    return envelope("NOT_ACCEPTABLE", "Accept must list both application/json and text/event-stream");
  const version = headers["mcp-protocol-version"];
  if (version !== undefined && !SUPPORTED_PROTOCOL_VERSIONS.includes(String(version)))
    return envelope(
      "INVALID_REQUEST",
      `Unsupported MCP-Protocol-Version; supported: ${SUPPORTED_PROTOCOL_VERSIONS.join(", ")}`,
    );
  const messages: unknown[] = Array.isArray(body) ? body : [body];
  if (
    messages.length === 0 ||
    messages.length > MAX_BATCH ||
    !messages.every((m) => JSONRPCMessageSchema.safeParse(m).success)
  )
    return envelope("INVALID_BODY", `The request body must be a JSON-RPC 2.0 message or a batch of 1 to ${MAX_BATCH}`);
  return null;
}

/**
 * MCP Streamable HTTP at /mcp, stateless: every POST gets a fresh server and
 * transport bound to the caller's key. A request without a valid key is refused
 * (401 + envelope) before any MCP handling; the core judges the key.
 */
export async function buildMcpApp(opts: McpAppOptions) {
  const app = createHttpApp({
    service: "mcp",
    logger: opts.logger,
    logLevel: opts.logLevel,
    logStream: opts.logStream,
    trustProxy: opts.trustProxy,
    // Browsers always send Origin on a POST; without an explicit guard, loopback origins are the allowed ones.
    guard: opts.guard ?? {
      listenHost: "127.0.0.1",
      publicUrl: "http://localhost:8080",
      allowedHosts: [],
      allowedOrigins: [],
    },
  });

  app.setErrorHandler((err: { code?: string; statusCode?: number }, req, reply) => {
    const refused = requestErrorOf(err);
    if (refused) return send(reply, refused);
    req.log.error({ err }, "unexpected error in MCP gateway");
    return send(reply, envelope("INTERNAL_ERROR", "Internal error"));
  });
  app.setNotFoundHandler((req, reply) =>
    send(reply, envelope("NOT_FOUND", `No route for ${req.method} ${req.url.split("?")[0]}`)),
  );

  registerHealth(app, opts.core, opts.version);

  // No key, no MCP: refused before the body is read (the core would refuse the key check below anyway).
  app.post(
    "/mcp",
    { onRequest: refuseWithoutCredential((req) => apiKeyOf(req.headers) !== undefined) },
    async (req, reply) => {
      // HTTP/1.0 may leave Host out, but the SDK's transport builds the request URL from it and would
      // answer a bare 400 without it (HTTP/1.1 without Host is refused earlier, in http-app.ts).
      if (req.headers.host === undefined)
        return send(reply, envelope("INVALID_REQUEST", "A request to /mcp needs a Host header"));
      // A JSON-RPC message is an object (a batch, an array of them); anything else is no MCP request.
      if (req.body === null || typeof req.body !== "object")
        return send(reply, envelope("INVALID_BODY", "The request body must be a JSON-RPC message (a JSON object)"));
      const call = callOptions(apiKeyOf(req.headers), req.id);
      try {
        await opts.core.apiKeys.getCurrentKey({}, call);
      } catch (e) {
        return send(reply, mapAndLog(e, req.log));
      }
      const refused = refusedByTransport(req.headers, req.body);
      if (refused) return send(reply, refused);
      const server = createMcpServer(opts.core, call, req.log);
      const transport = new StreamableHTTPServerTransport({ sessionIdGenerator: undefined, enableJsonResponse: true });
      reply.hijack();
      reply.raw.on("close", () => {
        void transport.close();
        void server.close();
      });
      await server.connect(transport);
      await transport.handleRequest(req.raw, reply.raw, req.body);
    },
  );
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
