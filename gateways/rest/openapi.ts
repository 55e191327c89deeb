import swagger from "@fastify/swagger";
import type { FastifyInstance, RouteOptions } from "fastify";
import { ERROR_CODES } from "../../common/errors.js";
import type { JsonSchema, RouteDoc } from "./route.js";

/** Where the document is served; public, like /api/v1/version: it describes the API, not the household. */
export const OPENAPI_URL = "/api/v1/openapi.json";

/** The session cookie the console signs in with (set by POST /api/v1/auth/login and /auth/setup). */
export const SESSION_COOKIE = "coffer_session";

/** What route.config carries for the document (fastify keeps config as given, and swagger hands it back). */
export interface DocConfig {
  doc?: RouteDoc;
  /** The table row's success status (200 unless it says otherwise). */
  status?: number;
  /** The body is the raw bytes received (webhooks). */
  rawBody?: boolean;
  /** The 405 answer registered for a known path's other methods: not an operation of its own. */
  methodFallback?: boolean;
  /** Not part of the API: left out of the document. */
  notApi?: boolean;
}

const ERROR_ENVELOPE = {
  $id: "ErrorEnvelope",
  type: "object",
  description: "Every error: a stable code (docs/errors.md) and a readable message",
  properties: {
    error: {
      type: "object",
      properties: {
        code: { type: "string", enum: Object.keys(ERROR_CODES) },
        message: { type: "string" },
      },
      required: ["code", "message"],
      additionalProperties: false,
    },
  },
  required: ["error"],
  additionalProperties: false,
} as const;

/** Errors are JSON whatever the route's success body is. */
const ERROR_RESPONSE = {
  description: "An error: {error:{code,message}}",
  content: { "application/json": { schema: { $ref: "ErrorEnvelope#" } } },
} as const;

const probe: JsonSchema = {
  type: "object",
  properties: { status: { type: "string", const: "ok" }, version: { type: "string" } },
  required: ["status", "version"],
  additionalProperties: false,
};

/** The routes outside the REST table (probes, the device page, this document): their docs by URL. */
const OTHER_ROUTES: Record<string, RouteDoc & { produces?: string[] }> = {
  "/health": { public: true, summary: "The gateway answers", response: probe },
  "/health/live": { public: true, summary: "The gateway answers", response: probe },
  "/health/ready": { public: true, summary: "The core and its database answer within 1 s", response: probe },
  "/device": {
    public: true,
    summary: "Where a device code's verification_url points: the console's approval page",
    querystring: {
      type: "object",
      properties: { user_code: { type: "string" } },
      additionalProperties: true,
    },
    response: { type: "string" },
    produces: ["text/html", "text/plain"],
  },
  [OPENAPI_URL]: { public: true, summary: "This document (OpenAPI 3.1)", response: { type: "object" } },
};

/** "/api/v1/transactions/:id/tags" → "transactions" (the document groups operations by it). */
function tagOf(url: string): string {
  const parts = url.split("/").filter(Boolean);
  if (parts[0] === "api" && parts[1] === "v1") return parts[2] ?? "api";
  return parts[0] ?? "root";
}

/** "GET /api/v1/transactions/:id/tags" → "getTransactionsIdTags": stable, unique per method and path. */
function operationIdOf(method: string, url: string): string {
  const words = url
    .replace(/^\/api\/v1\//, "/")
    .split(/[/_\-.]/)
    .filter(Boolean)
    .map((w) => w.replace(/^:/, ""));
  return method.toLowerCase() + words.map((w) => w[0].toUpperCase() + w.slice(1)).join("");
}

type Schemas = Record<string, unknown>;

/**
 * Moves the named schemas zod put under a schema's $defs (proto messages, see
 * restShapeOf) to the document's components, and points the references there:
 * "#/$defs/X" would otherwise be read against the document's root.
 */
function hoistDefs<T>(schema: T, components: Schemas): T {
  if (Array.isArray(schema)) return schema.map((s: unknown) => hoistDefs(s, components)) as T;
  if (typeof schema !== "object" || schema === null) return schema;
  const out: Record<string, unknown> = {};
  for (const [k, v] of Object.entries(schema)) {
    if (k === "$defs") {
      for (const [name, def] of Object.entries(v as Schemas)) components[name] ??= hoistDefs(def, components);
    } else if (k === "$ref" && typeof v === "string" && v.startsWith("#/$defs/")) {
      out[k] = `#/components/schemas/${v.slice("#/$defs/".length)}`;
    } else out[k] = hoistDefs(v, components);
  }
  return out as T;
}

/** One route's operation: its request parts, success body, the error envelope for 4XX/5XX, and security. */
function operationOf(route: RouteOptions, url: string, components: Schemas): Record<string, unknown> {
  const config = (route.config ?? {}) as DocConfig;
  const method = [route.method].flat()[0];
  const other = OTHER_ROUTES[url];
  const doc: RouteDoc & { produces?: string[] } = config.doc ?? other ?? { response: { type: "object" } };
  const status = String(config.status ?? 200);
  const success =
    doc.response === undefined
      ? { 204: { type: "null", description: "No content" } }
      : {
          [status]: { "x-response-description": "Success", ...doc.response },
          ...(doc.orNoContent ? { 204: { type: "null", description: "No content" } } : {}),
        };
  const schema: Record<string, unknown> = {
    operationId: operationIdOf(method, url),
    tags: [tagOf(url)],
    security: doc.public ? [] : [{ apiKey: [] }, { session: [] }],
    response: { ...success, "4XX": ERROR_RESPONSE, "5XX": ERROR_RESPONSE },
  };
  if (doc.summary) schema.summary = doc.summary;
  if (doc.produces) schema.produces = doc.produces;
  if (doc.querystring) schema.querystring = doc.querystring;
  if (doc.body) schema.body = doc.body;
  else if (config.rawBody) {
    // Webhooks: the provider's own bytes, whatever their type; the signature is checked over them.
    schema.body = { description: "The provider's payload, exactly as it sent it" };
    schema.consumes = ["application/json", "application/x-www-form-urlencoded", "text/plain"];
  }
  return hoistDefs(schema, components);
}

/**
 * Registers @fastify/swagger, which collects every route as it is added (so
 * call this before adding any), and GET /api/v1/openapi.json. The document is
 * generated from the route table: request schemas and success bodies come from
 * each row's zod shapes (route.ts), errors are the shared envelope.
 */
export async function registerOpenApi(app: FastifyInstance, version: string) {
  app.addSchema(ERROR_ENVELOPE);
  await app.register(swagger, {
    openapi: {
      openapi: "3.1.0",
      info: {
        title: "Coffer REST API",
        version,
        description:
          "A household's financial data. Every /api/v1 call takes an API key (X-API-Key) or the console's " +
          "session cookie, except those listed without security. Errors are {error:{code,message}}.",
      },
      components: {
        securitySchemes: {
          apiKey: { type: "apiKey", in: "header", name: "X-API-Key" },
          session: { type: "apiKey", in: "cookie", name: SESSION_COOKIE },
        },
      },
    },
    refResolver: {
      // Shared schemas keep their $id as their name under components.schemas.
      buildLocalReference: (json, _baseUri, _fragment, i) => (typeof json.$id === "string" ? json.$id : `def-${i}`),
    },
    transform: (args) => {
      const { route, url } = args;
      const config = (route.config ?? {}) as DocConfig;
      // The console's files (@fastify/static hides its route) are not part of the API.
      const hidden = route.schema?.hide === true;
      if (config.methodFallback || config.notApi || hidden) return { schema: { hide: true }, url };
      if (!("openapiObject" in args)) throw new Error("the document is OpenAPI, not Swagger 2");
      const components = ((args.openapiObject.components ??= {}).schemas ??= {}) as Schemas;
      return { schema: operationOf(route, url, components), url };
    },
  });
  app.get(OPENAPI_URL, async () => app.swagger());
}

declare module "fastify" {
  // eslint-disable-next-line @typescript-eslint/no-empty-object-type
  interface FastifyContextConfig extends DocConfig {}
}
