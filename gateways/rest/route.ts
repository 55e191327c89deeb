import type { FastifyRequest } from "fastify";
import { z } from "zod";
import type { CallOptions, CoreClients } from "../shared/core-client.js";

export type HttpMethod = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";

export interface RouteContext {
  req: FastifyRequest;
  core: CoreClients;
  /** Call options carrying the caller's X-API-Key and the request id to the core. */
  opts: CallOptions;
  params: Record<string, string>;
  query: Record<string, any>;
  body: Record<string, any>;
}

/** One row of the REST table: path → core RPC → presented JSON. */
export interface RestRoute {
  method: HttpMethod;
  url: string;
  schema?: { querystring?: object; body?: object };
  /** The body may be left out entirely (then it is treated as {}). */
  bodyOptional?: boolean;
  /** Success status; 204 sends no body. */
  status?: number;
  handler: (ctx: RouteContext) => Promise<unknown>;
}

/** JSON Schema for a body object; unknown properties are rejected by name. */
export const body = (properties: Record<string, object>, required: string[] = []) => ({
  type: "object",
  properties,
  required,
  additionalProperties: false,
});

export const str = (extra: object = {}) => ({ type: "string", ...extra });
export const nullableStr = (extra: object = {}) => ({ type: ["string", "null"], ...extra });

/**
 * JSON Schema for a query string from a zod shape (the same shapes MCP tools
 * take as arguments): draft-7 for ajv, without $schema, unknown parameters
 * rejected by name. The query ajv coerces text to the listed types ("true" →
 * true, "20" → 20), so the shape describes values, not text; a repeated
 * parameter arrives as an array.
 */
export function querystringOf(shape: z.ZodRawShape): object {
  const { $schema: _, ...schema } = z.toJSONSchema(z.strictObject(shape), { target: "draft-7", io: "input" });
  return schema;
}
