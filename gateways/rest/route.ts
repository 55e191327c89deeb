import type { FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import type { CallOptions, CoreClients } from "../shared/core-client.js";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** What a handler returns to answer 204 No Content where its route otherwise answers with a body. */
export const NO_CONTENT: unique symbol = Symbol("no content");

/** A plain JSON Schema object: what fastify hands ajv, and what an OpenAPI document can quote. */
export type JsonSchema = z.core.JSONSchema.JSONSchema;

/** What a handler gets: the request, the core, and the path parameters, query and body. */
export interface RouteContext<P = Record<string, string>, Q = unknown, B = unknown> {
  req: FastifyRequest;
  /** For the few routes that set a header (the session cookie); the status and body come from the return value. */
  reply: FastifyReply;
  /** COFFER_PUBLIC_URL: where people reach this gateway (the cookie is Secure when it is https). */
  publicUrl: string;
  core: CoreClients;
  /** Call options carrying the caller's X-API-Key (or console session) and the request id to the core. */
  opts: CallOptions;
  params: P;
  query: Q;
  body: B;
}

/** One row of the REST table as app.ts registers it: path → core RPC → presented JSON. Write rows with defineRoute. */
export interface RestRoute {
  method: HttpMethod;
  url: string;
  schema?: { querystring?: JsonSchema; body?: JsonSchema };
  /** The body may be left out entirely (then it is treated as {}). */
  bodyOptional?: boolean;
  /** Success status; 204 sends no body. */
  status?: number;
  /** The deadline of this route's core calls, when COFFER_CORE_TIMEOUT_MS is not right for it (an import). */
  timeoutMs?: number;
  /** The largest body this route takes, in bytes, when it is not the gateway's default (1 MiB). */
  bodyLimit?: number;
  /** The body is handed over as the exact bytes received (a Buffer), whatever its content type. */
  rawBody?: boolean;
  /** What the OpenAPI document says of this route (openapi.ts); nothing here changes how it answers. */
  doc?: RouteDoc;
  handler: (ctx: RouteContext) => Promise<unknown>;
}

/**
 * The OpenAPI side of a route: its request parts again as JSON Schema 2020-12
 * (the dialect of OpenAPI 3.1; ajv gets draft-7), its success body, and
 * whether it takes no credentials.
 */
export interface RouteDoc {
  querystring?: JsonSchema;
  body?: JsonSchema;
  /** The success body's schema; undefined for a route that answers 204. */
  response?: JsonSchema;
  /** Answered without X-API-Key or a session (the core's method is public). */
  public?: boolean;
  /** The handler may also answer 204 (NO_CONTENT) instead of its body. */
  orNoContent?: boolean;
  /** One line for the document. */
  summary?: string;
}

/** The path parameters a URL names: "/t/:id/comments/:cid" → { id: string; cid: string }. */
export type ParamsOf<U extends string> = U extends `${string}:${infer P}/${infer Rest}`
  ? { [K in P]: string } & ParamsOf<Rest>
  : U extends `${string}:${infer P}`
    ? { [K in P]: string }
    : Record<never, never>;

type NoShape = Record<never, never>;

/** A body is an object of named fields (a zod shape, unknown fields refused) or, rarely, a zod schema of its own. */
type BodySpec = z.ZodRawShape | z.ZodType<object>;

/** The values of a query or body that passed the JSON Schema generated from its shape. */
export type ValuesOf<S extends z.ZodRawShape> = z.output<z.ZodObject<S, z.core.$strict>>;
type BodyOf<B extends BodySpec> = B extends z.ZodType ? z.output<B> : B extends z.ZodRawShape ? ValuesOf<B> : never;

/** One REST route, its query and body declared as zod shapes. */
export interface RouteDef<U extends string, Q extends z.ZodRawShape, B extends BodySpec> {
  method: HttpMethod;
  url: U;
  /** Query parameters; unknown ones are refused. Without it, the query string is not looked at. */
  query?: Q;
  /** The JSON body; without it, the body is not looked at. */
  body?: B;
  /** The body may be left out entirely (then it is treated as {}). */
  bodyOptional?: boolean;
  /** Success status; 204 sends no body. */
  status?: number;
  /** The deadline of this route's core calls, when COFFER_CORE_TIMEOUT_MS is not right for it (an import). */
  timeoutMs?: number;
  /** The largest body this route takes, in bytes, when it is not the gateway's default (1 MiB). */
  bodyLimit?: number;
  /** The success body (the JSON the handler returns), for the OpenAPI document. Without it: any object. */
  response?: z.ZodType;
  /** The route needs no credentials (the core's method is public): the document lists no security for it. */
  public?: boolean;
  /** The handler may return NO_CONTENT (204) instead of its body: the document lists both. */
  orNoContent?: boolean;
  summary?: string;
  handler: (ctx: RouteContext<ParamsOf<U>, ValuesOf<Q>, BodyOf<B>>) => Promise<unknown>;
}

/**
 * A route whose body is the raw bytes received (provider webhooks: their
 * signatures are over the exact bytes, which parsing and re-serialising JSON
 * would change). The handler gets the body as a Buffer.
 */
export function defineRawRoute<U extends string>(def: {
  method: HttpMethod;
  url: U;
  bodyLimit?: number;
  response?: z.ZodType;
  public?: boolean;
  summary?: string;
  handler: (ctx: RouteContext<ParamsOf<U>, unknown, Buffer>) => Promise<unknown>;
}): RestRoute {
  const { handler, response, public: isPublic, summary, ...row } = def;
  return {
    ...row,
    rawBody: true,
    doc: { response: responseDocOf(response), public: isPublic, summary },
    handler: (ctx) => handler(ctx as RouteContext<ParamsOf<U>, unknown, Buffer>),
  };
}

/**
 * A REST route whose query and body are zod shapes: fastify validates them with
 * the JSON Schema generated from those shapes (querystringOf, bodySchemaOf), and
 * the handler gets them typed. ajv, not zod, does the validating, so a shape
 * says only what JSON Schema can say: no transforms, no refinements; defaults
 * are applied (useDefaults), so a `.default()` field is there in the handler.
 */
export function defineRoute<U extends string, Q extends z.ZodRawShape = NoShape, B extends BodySpec = NoShape>(
  def: RouteDef<U, Q, B>,
): RestRoute {
  const { query, body, handler, response, public: isPublic, orNoContent, summary, ...row } = def;
  const schema: RestRoute["schema"] = {};
  if (query) schema.querystring = querystringOf(query);
  if (body) schema.body = bodySchemaOf(body);
  const doc: RouteDoc = { public: isPublic, orNoContent, summary };
  if (query) doc.querystring = docSchemaOf(z.strictObject(query), "input");
  if (body) doc.body = docSchemaOf(body instanceof z.ZodType ? body : z.strictObject(body), "input");
  if (def.status !== 204) doc.response = responseDocOf(response);
  return {
    ...row,
    ...(query || body ? { schema } : {}),
    doc,
    // fastify has checked req.query and req.body against the schemas above, which these types describe.
    handler: (ctx) => handler(ctx as RouteContext<ParamsOf<U>, ValuesOf<Q>, BodyOf<B>>),
  };
}

/**
 * Keywords that constrain only a value of their own type (or only annotate), so a
 * schema made of them still admits null once "null" is added to its `type`.
 */
const TYPE_BOUND = new Set([
  "type",
  "description",
  "title",
  "minLength",
  "maxLength",
  "pattern",
  "format",
  "minimum",
  "maximum",
  "exclusiveMinimum",
  "exclusiveMaximum",
  "multipleOf",
  "items",
  "minItems",
  "maxItems",
  "properties",
  "required",
  "additionalProperties",
]);

const isSchema = (v: unknown): v is JsonSchema => typeof v === "object" && v !== null && !Array.isArray(v);

/**
 * zod writes `.nullable()` as `anyOf: [T, {type: "null"}]`, for which ajv names
 * only T when a value fails ("email must be string"). Written as
 * `type: [T, "null"]` (the same schema) ajv names both ("email must be
 * string,null"), and the schema reads as a nullable T. Rewrites in place.
 */
function nullableAsTypeList(s: JsonSchema): JsonSchema {
  for (const key of ["properties", "patternProperties", "definitions", "$defs"] as const) {
    const map = s[key];
    if (isSchema(map)) for (const v of Object.values(map)) if (isSchema(v)) nullableAsTypeList(v);
  }
  for (const key of ["items", "additionalProperties", "not"] as const) {
    const v = s[key];
    if (isSchema(v)) nullableAsTypeList(v);
  }
  for (const key of ["anyOf", "oneOf", "allOf"] as const) s[key]?.forEach(nullableAsTypeList);
  const [inner, other, ...more] = s.anyOf ?? [];
  if (
    s.type === undefined &&
    more.length === 0 &&
    other?.type === "null" &&
    Object.keys(other).length === 1 &&
    typeof inner?.type === "string" &&
    Object.keys(inner).every((k) => TYPE_BOUND.has(k))
  ) {
    delete s.anyOf;
    Object.assign(s, { ...inner, ...s, type: [inner.type, "null"] });
  }
  return s;
}

/** zod's JSON Schema of one request part: draft-7 for ajv, as the caller writes it (io: input), without $schema. */
function jsonSchemaOf(schema: z.ZodType): JsonSchema {
  const { $schema: _, ...json } = z.toJSONSchema(schema, { target: "draft-7", io: "input" });
  return nullableAsTypeList(json);
}

/** zod's JSON Schema 2020-12 of a request part (input) or a response (output), for the OpenAPI document. */
function docSchemaOf(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const { $schema: _, ...json } = z.toJSONSchema(schema, { target: "draft-2020-12", io });
  return nullableAsTypeList(json);
}

/** The documented success body: the route's zod schema, or any JSON object where it declares none. */
function responseDocOf(response: z.ZodType | undefined): JsonSchema {
  return response ? docSchemaOf(response, "output") : { type: "object" };
}

/**
 * JSON Schema for a query string from a zod shape (the same shapes MCP tools
 * take as arguments): unknown parameters rejected by name. The query ajv
 * coerces text to the listed types ("true" → true, "20" → 20), so the shape
 * describes values, not text; a repeated parameter arrives as an array.
 */
export function querystringOf(shape: z.ZodRawShape): JsonSchema {
  return jsonSchemaOf(z.strictObject(shape));
}

/**
 * JSON Schema for a JSON body: a shape is an object whose unknown fields are
 * rejected by name (additionalProperties: false). The body ajv does not
 * coerce: "5" is not a number, and JSON null is a value (a field that may be
 * null says `.nullable()`), not the same as leaving the field out.
 */
export function bodySchemaOf(body: BodySpec): JsonSchema {
  return jsonSchemaOf(body instanceof z.ZodType ? body : z.strictObject(body));
}
