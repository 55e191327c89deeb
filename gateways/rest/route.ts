import type { FastifyReply, FastifyRequest } from "fastify";
import { z } from "zod";
import { bodyErrorMap, bodyOf, queryErrorMap, queryOf, worded } from "./validators.js";
import type { CallOptions, CoreClients } from "../shared/core-client.js";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

/** What a handler returns to answer 204 No Content where its route otherwise answers with a body. */
export const NO_CONTENT: unique symbol = Symbol("no content");

/** A plain JSON Schema object: what an OpenAPI document quotes. */
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
  /** What fastify validates the query and body with (zod, through fastify-type-provider-zod; validators.ts). */
  schema?: { querystring?: z.ZodType; body?: z.ZodType };
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
 * The OpenAPI side of a route: its request parts as JSON Schema 2020-12 (the
 * dialect of OpenAPI 3.1), its success body, and whether it takes no
 * credentials.
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

/** The values of a query or body that passed its shape. */
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
 * those shapes (validators.ts: a query's text is first coerced to the shape's
 * types), and the handler gets the parsed values typed, defaults filled in.
 * The OpenAPI document quotes the same shapes as JSON Schema.
 */
export function defineRoute<U extends string, Q extends z.ZodRawShape = NoShape, B extends BodySpec = NoShape>(
  def: RouteDef<U, Q, B>,
): RestRoute {
  const { query, body, handler, response, public: isPublic, orNoContent, summary, ...row } = def;
  const schema: RestRoute["schema"] = {};
  if (query) schema.querystring = worded(queryOf(query), queryErrorMap);
  if (body) schema.body = worded(bodyOf(body), bodyErrorMap);
  const doc: RouteDoc = { public: isPublic, orNoContent, summary };
  if (query) doc.querystring = querystringDocOf(query);
  if (body) doc.body = docSchemaOf(bodyOf(body), "input");
  if (def.status !== 204) doc.response = responseDocOf(response);
  return {
    ...row,
    ...(query || body ? { schema } : {}),
    doc,
    // fastify has parsed req.query and req.body with the schemas above, whose outputs these types are.
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
 * zod writes `.nullable()` as `anyOf: [T, {type: "null"}]`. The document says
 * it as `type: [T, "null"]` (the same schema), which reads as a nullable T and
 * which generated clients type as `T | null`. Rewrites in place.
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

/** zod's JSON Schema 2020-12 of a request part (input) or a response (output), for the OpenAPI document. */
function docSchemaOf(schema: z.ZodType, io: "input" | "output"): JsonSchema {
  const { $schema: _, ...json } = z.toJSONSchema(schema, { target: "draft-2020-12", io });
  return nullableAsTypeList(json);
}

/** The documented success body: the route's zod schema, or any JSON object where it declares none. */
function responseDocOf(response: z.ZodType | undefined): JsonSchema {
  return response ? docSchemaOf(response, "output") : { type: "object" };
}

/** The documented query string of a shape: its strict object (unknown parameters are refused). */
export function querystringDocOf(shape: z.ZodRawShape): JsonSchema {
  return docSchemaOf(z.strictObject(shape), "input");
}
