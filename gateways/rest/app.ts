import { ConnectError } from "@connectrpc/connect";
import type { FastifyError, FastifyInstance, RouteOptions } from "fastify";
import type { IncomingHttpHeaders } from "node:http";
import helmet from "helmet";
import { hasZodFastifySchemaValidationErrors, validatorCompiler } from "fastify-type-provider-zod";
import { readEnv, type TrustProxy } from "../../common/env.js";
import type { LogStream } from "../../common/logging.js";
import { callOptions, type CoreClients } from "../shared/core-client.js";
import { apiKeyOf, refuseWithoutCredential } from "../shared/credentials.js";
import { envelope, mapAndLog } from "../shared/error-map.js";
import { PROBE_URLS, registerHealth } from "../shared/health.js";
import type { HostGuardConfig } from "../shared/host-guard.js";
import { createHttpApp, JSON_BODY_LIMIT, requestErrorOf, sendEnvelope as send } from "../shared/http-app.js";
import { consoleConfigOf, registerConsole, wantsHtml, type ConsoleOptions } from "./console.js";
import { STRICT_DIRECTIVES } from "./csp.js";
import { registerOpenApi, type DocConfig } from "./openapi.js";
import { checkResponsesAgainstDocument } from "./response-check.js";
import { allRoutes } from "./routes/index.js";
import { NO_CONTENT, type HttpMethod, type RestRoute } from "./route.js";
import { readCookie } from "./session-cookie.js";
import { describeIssue } from "./validators.js";

export interface RestAppOptions {
  core: CoreClients;
  version: string;
  logger?: boolean;
  logLevel?: string;
  /** Log lines go here instead of stdout (tests read them). */
  logStream?: LogStream;
  bodyLimit?: number;
  routes?: RestRoute[];
  /** The DNS-rebinding guard's settings (from the environment when run as a process). */
  guard?: HostGuardConfig;
  /** Whose X-Forwarded-For names the client (COFFER_TRUST_PROXY): the address sign-in attempts are limited under. */
  trustProxy?: TrustProxy;
  /** The web console at `/` (web/dist); by default the built one, configured from the default settings. */
  console?: ConsoleOptions;
  /** Refuse (500) any JSON success answer the OpenAPI document does not describe (tests; response-check.ts). */
  checkResponses?: boolean;
  /** Sees every route as it is registered (the test that the OpenAPI document lists them all). */
  onRoute?: (route: RouteOptions) => void;
}

/** Methods a browser may send across sites without asking: they must not change anything. */
const SAFE_METHODS = new Set(["GET", "HEAD", "OPTIONS"]);
/** Sign-in and setup: they carry no cookie yet, but a browser's request to them must still come from the console. */
const SIGN_IN_URLS = new Set(["/api/v1/auth/login", "/api/v1/auth/setup"]);

const METHODS: HttpMethod[] = ["GET", "POST", "PUT", "PATCH", "DELETE"];

/** What a REST request presents to the core: its X-API-Key or, without that header, the console's session cookie. */
function credentialsOf(headers: IncomingHttpHeaders): { apiKey?: string; session?: string } {
  // A key wins: the cookie is not even passed on when a program sends one (an empty key included).
  if (headers["x-api-key"] !== undefined) return { apiKey: apiKeyOf(headers) };
  return { session: readCookie(headers.cookie) };
}

/** A write to a route that needs a credential, presenting none: refused before its body is read. */
const withoutCredential = refuseWithoutCredential((req) => {
  const { apiKey, session } = credentialsOf(req.headers);
  return apiKey !== undefined || session !== undefined;
});

/** The REST gateway: /api/v1 JSON over the core's Connect services. No database, no domain rules. */
export async function buildRestApp(opts: RestAppOptions) {
  const app = createHttpApp({
    service: "rest",
    logger: opts.logger,
    logLevel: opts.logLevel,
    logStream: opts.logStream,
    bodyLimit: opts.bodyLimit ?? JSON_BODY_LIMIT,
    // Origin is checked on MCP only; REST callers with a key are not browsers' ambient credentials.
    guard: opts.guard && { ...opts.guard, allowedOrigins: undefined },
    trustProxy: opts.trustProxy,
  });
  app.setValidatorCompiler(validatorCompiler);

  // The console's session is an ambient credential (a cookie), so a change made with it must come from
  // the console's own pages: Origin equal to COFFER_PUBLIC_URL's. SameSite=Strict already keeps other
  // sites' requests from carrying it; this holds even where that is not enough (an old browser, a sibling
  // site). A request with an API key is a program's, which no other site can make a browser send.
  const publicUrl = opts.guard?.publicUrl ?? readEnv({}).publicUrl;
  const publicOrigin = new URL(publicUrl).origin;
  app.addHook("onRequest", async (req, reply) => {
    if (SAFE_METHODS.has(req.method) || req.headers["x-api-key"] !== undefined) return;
    const withCookie = readCookie(req.headers.cookie) !== undefined;
    const signIn = SIGN_IN_URLS.has(req.url.split("?")[0]) && req.headers.origin !== undefined;
    if ((withCookie || signIn) && req.headers.origin !== publicOrigin) {
      const origin =
        req.headers.origin === undefined
          ? "no Origin"
          : `the origin ${JSON.stringify(req.headers.origin.slice(0, 100))}`;
      return send(
        reply,
        envelope("ORIGIN_MISMATCH", `A console request must come from ${publicOrigin}; this one has ${origin}`),
      );
    }
  });

  app.setErrorHandler((err: FastifyError, req, reply) => {
    if (err instanceof ConnectError) return send(reply, mapAndLog(err, req.log));
    if (hasZodFastifySchemaValidationErrors(err)) {
      const part = err.validationContext ?? "body";
      // The first issue, as the envelope carries one message.
      const { name, message } = describeIssue(err.validation[0], part);
      if (part === "body" && name === null)
        return send(reply, envelope("INVALID_BODY", "The request body must be a JSON object"));
      return send(reply, envelope("INVALID_PARAMETER", message));
    }
    const refused = requestErrorOf(err);
    if (refused) return send(reply, refused);
    req.log.error({ err }, "unexpected error in REST gateway");
    return send(reply, envelope("INTERNAL_ERROR", "Internal error"));
  });

  // Security headers on every answer; the strict CSP matters for the console's pages (console.ts sets
  // the link pages' own). Popups keep their opener (a bank's OAuth window opened by a widget). helmet's
  // middleware is made once: its fastify plugin made it anew for every request, parsing the policy each time.
  const securityHeaders = helmet({
    contentSecurityPolicy: { useDefaults: false, directives: STRICT_DIRECTIVES },
    crossOriginOpenerPolicy: { policy: "same-origin-allow-popups" },
  });
  app.addHook("onRequest", (req, reply, done) => securityHeaders(req.raw, reply.raw, () => done()));

  if (opts.onRoute) app.addHook("onRoute", opts.onRoute);
  // Before any route: the document is made from the routes as they are added.
  await registerOpenApi(app, opts.version);
  if (opts.checkResponses) checkResponsesAgainstDocument(app);

  const webConsole = await registerConsole(app, opts.console ?? { config: consoleConfigOf(readEnv({}), opts.version) });
  app.setNotFoundHandler((req, reply) => {
    // A browser opening a console page (a deep link, a reload) gets the console; anything else the envelope.
    if (webConsole.fallback(req, reply)) return reply;
    return send(reply, envelope("NOT_FOUND", `No route for ${req.method} ${req.url.split("?")[0]}`));
  });

  // Probes: no key, no /api/v1 prefix.
  registerHealth(app, opts.core, opts.version);
  app.get("/device", async (req, reply) => {
    // A browser gets the console's approval page; a terminal (curl) the instructions as text.
    if (wantsHtml(req) && webConsole.built()) return webConsole.serveIndex(req, reply);
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
      config: { doc: route.doc, status: route.status, rawBody: route.rawBody } satisfies DocConfig,
      // Only a body left out is {}: a JSON null is a body, and not an object (400 INVALID_BODY).
      preValidation: route.bodyOptional
        ? async (req) => {
            if (req.body === undefined) req.body = {};
          }
        : undefined,
      onRequest: route.doc?.public || SAFE_METHODS.has(route.method) ? undefined : withoutCredential,
      handler: async (req, reply) => {
        const { apiKey, session } = credentialsOf(req.headers);
        const result = await route.handler({
          req,
          reply,
          publicUrl,
          core: opts.core,
          opts: callOptions(apiKey, req.id, route.timeoutMs, { session, clientIp: req.ip }),
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
  for (const url of [...PROBE_URLS, "/device"]) byUrl.set(url, new Set(["GET"]));
  for (const r of routes) byUrl.set(r.url, (byUrl.get(r.url) ?? new Set()).add(r.method));
  for (const [url, methods] of byUrl) {
    const missing = METHODS.filter((m) => !methods.has(m));
    if (missing.length === 0) continue;
    app.route({
      method: missing,
      url,
      config: { methodFallback: true } satisfies DocConfig,
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
