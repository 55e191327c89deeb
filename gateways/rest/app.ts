import { randomUUID } from "node:crypto";
import { ConnectError } from "@connectrpc/connect";
import { Ajv, type ErrorObject } from "ajv";
import { fastify, type FastifyError, type FastifyInstance, type FastifyReply } from "fastify";
import { loggerOptions, requestLogController } from "../../common/logging.js";
import { callOptions, type CoreClients } from "../shared/core-client.js";
import { drainOnClose } from "../shared/drain.js";
import { envelope, mapError, type MappedError } from "../shared/error-map.js";
import { allRoutes } from "./routes/index.js";
import { NO_CONTENT, type HttpMethod, type RestRoute } from "./route.js";

export interface RestAppOptions {
  core: CoreClients;
  version: string;
  logger?: boolean;
  logLevel?: string;
  bodyLimit?: number;
  routes?: RestRoute[];
}

const REQUEST_ID = /^[A-Za-z0-9._:-]{1,128}$/;
const METHODS: HttpMethod[] = ["GET", "POST", "PUT", "PATCH", "DELETE"];

// Query strings and path params arrive as text and are coerced; JSON bodies are typed, so never coerced.
const queryAjv = new Ajv({ coerceTypes: "array", useDefaults: true, removeAdditional: false, allErrors: false });
const bodyAjv = new Ajv({ coerceTypes: false, useDefaults: true, removeAdditional: false, allErrors: false });

function send(reply: FastifyReply, mapped: MappedError) {
  return reply.status(mapped.status).type("application/json").send(mapped.body);
}

/** Names the offending parameter from an ajv error ("limit must be <= 500"). */
function describeValidation(errors: ErrorObject[], part: string): { name: string | null; message: string } {
  const e = errors[0];
  const params = e.params as Record<string, unknown>;
  const path = e.instancePath.replace(/^\//, "").replace(/\//g, ".");
  // ajv names properties with strings; anything else would be an ajv bug, described without the name.
  const missing = typeof params.missingProperty === "string" ? params.missingProperty : undefined;
  if (missing) return { name: missing, message: `${missing} is required` };
  const unknown = typeof params.additionalProperty === "string" ? params.additionalProperty : undefined;
  if (unknown) {
    const what = part === "querystring" ? "query parameter" : "field";
    return { name: unknown, message: `unknown ${what} ${unknown}` };
  }
  if (!path) return { name: null, message: `${part === "body" ? "body" : part} ${e.message}` };
  const allowed = Array.isArray(params.allowedValues) ? ` (${(params.allowedValues as unknown[]).join(", ")})` : "";
  return { name: path, message: `${path} ${e.message}${allowed}` };
}

/** The REST gateway: /api/v1 JSON over the core's Connect services. No database, no domain rules. */
export async function buildRestApp(opts: RestAppOptions) {
  const app = fastify({
    logger: opts.logger === false ? false : (loggerOptions("rest", opts.logLevel ?? "info") as object),
    logController: requestLogController(),
    bodyLimit: opts.bodyLimit ?? 1024 * 1024,
    requestIdHeader: false,
    genReqId: (req) => {
      const given = req.headers["x-request-id"];
      return typeof given === "string" && REQUEST_ID.test(given) ? given : randomUUID();
    },
    // Shutdown lets in-flight requests finish (see drainOnClose).
    forceCloseConnections: "idle",
    return503OnClosing: false,
    // The router refuses some URLs before any route runs (bad percent-encoding, a path
    // parameter over maxParamLength). No resource can have such an id, so: 404, in the envelope.
    frameworkErrors: (err, req, reply) => {
      reply.header("x-request-id", req.id);
      const badUrl = err.code === "FST_ERR_BAD_URL" || err.code === "FST_ERR_MAX_PARAM_LENGTH";
      if (!badUrl) req.log.error({ err }, "router error in REST gateway");
      void send(
        reply,
        badUrl
          ? envelope("NOT_FOUND", `No resource at ${req.method} ${req.url.split("?")[0].slice(0, 200)}`)
          : envelope("INTERNAL_ERROR", "Internal error"),
      );
    },
  });

  drainOnClose(app);
  app.setValidatorCompiler(({ schema, httpPart }) => (httpPart === "body" ? bodyAjv : queryAjv).compile(schema));

  app.addHook("onRequest", async (req, reply) => {
    reply.header("x-request-id", req.id);
  });

  app.setErrorHandler((err: FastifyError, req, reply) => {
    if (err instanceof ConnectError) return send(reply, mapError(err));
    if (err.validation) {
      const part = err.validationContext ?? "body";
      const { name, message } = describeValidation(err.validation as ErrorObject[], part);
      if (part === "body" && name === null)
        return send(reply, envelope("INVALID_BODY", "The request body must be a JSON object"));
      return send(reply, envelope("INVALID_PARAMETER", message));
    }
    switch (err.code) {
      case "FST_ERR_CTP_BODY_TOO_LARGE":
        return send(reply, envelope("PAYLOAD_TOO_LARGE", "The request body is too large"));
      case "FST_ERR_CTP_INVALID_MEDIA_TYPE":
        return send(reply, envelope("UNSUPPORTED_MEDIA_TYPE", "Send the request body as application/json"));
      case "FST_ERR_CTP_INVALID_JSON_BODY":
      case "FST_ERR_CTP_EMPTY_JSON_BODY":
        return send(reply, envelope("INVALID_BODY", "The request body is not valid JSON"));
    }
    if (err.code?.startsWith("FST_ERR_CTP_") && (err.statusCode ?? 500) < 500) {
      return send(reply, envelope("INVALID_BODY", "The request body could not be read"));
    }
    req.log.error({ err }, "unexpected error in REST gateway");
    return send(reply, envelope("INTERNAL_ERROR", "Internal error"));
  });

  app.setNotFoundHandler((req, reply) =>
    send(reply, envelope("NOT_FOUND", `No route for ${req.method} ${req.url.split("?")[0]}`)),
  );

  // Probes: no key, no /api/v1 prefix.
  const health = async () => ({ status: "ok", version: opts.version });
  app.get("/health", health);
  app.get("/health/live", health);
  app.get("/health/ready", async (req) => {
    await opts.core.system.checkReady({}, callOptions(undefined, req.id));
    return { status: "ok", version: opts.version };
  });
  app.get("/device", async (req, reply) => {
    const code =
      typeof (req.query as Record<string, unknown>).user_code === "string"
        ? (req.query as Record<string, string>).user_code
        : "<user_code>";
    const safe = code.replace(/[^A-Za-z0-9-]/g, "");
    return reply
      .type("text/plain; charset=utf-8")
      .send(
        `A device asks to connect to this Coffer with the code ${safe}.\n\n` +
          `To allow it, run on the server:   coffer device approve ${safe} [--scope read_only|full_access]\n` +
          `or call POST /api/v1/auth/device-code/approve with {"user_code":"${safe}"} and a full_access key.\n` +
          `To refuse it: coffer device deny ${safe}\n`,
      );
  });

  const routes = opts.routes ?? allRoutes;
  const register = (instance: FastifyInstance, route: RestRoute) =>
    // Path parameters are always text (fastify's router fills them from the URL).
    instance.route<{ Params: Record<string, string> }>({
      method: route.method,
      url: route.url,
      schema: route.schema,
      bodyLimit: route.bodyLimit,
      preValidation: route.bodyOptional
        ? async (req) => {
            if (req.body === undefined || req.body === null) req.body = {};
          }
        : undefined,
      handler: async (req, reply) => {
        const apiKey = req.headers["x-api-key"];
        const result = await route.handler({
          req,
          core: opts.core,
          opts: callOptions(typeof apiKey === "string" ? apiKey : undefined, req.id),
          params: req.params,
          query: req.query ?? {},
          body: req.body ?? (route.rawBody ? Buffer.alloc(0) : {}),
        });
        const status = route.status ?? 200;
        if (status === 204 || result === NO_CONTENT) return reply.status(204).send();
        return reply.status(status).send(result);
      },
    });
  for (const route of routes) if (!route.rawBody) register(app, route);
  // Raw-body routes live in a scope of their own whose only parser hands over the bytes, for any content type.
  await app.register(async (scope) => {
    scope.removeAllContentTypeParsers();
    scope.addContentTypeParser("*", { parseAs: "buffer" }, (_req, body, done) => done(null, body));
    for (const route of routes) if (route.rawBody) register(scope, route);
  });

  // Known paths with an unsupported method answer 405, not 404 (the probes and /device included).
  const byUrl = new Map<string, Set<HttpMethod>>();
  for (const url of ["/health", "/health/live", "/health/ready", "/device"]) byUrl.set(url, new Set(["GET"]));
  for (const r of routes) byUrl.set(r.url, (byUrl.get(r.url) ?? new Set()).add(r.method));
  for (const [url, methods] of byUrl) {
    const missing = METHODS.filter((m) => !methods.has(m));
    if (missing.length === 0) continue;
    app.route({
      method: missing,
      url,
      handler: async (req, reply) => {
        reply.header("allow", [...methods].join(", "));
        return send(
          reply,
          envelope("METHOD_NOT_ALLOWED", `${req.method} is not allowed on ${url}; use ${[...methods].join(", ")}`),
        );
      },
    });
  }
  return app;
}
