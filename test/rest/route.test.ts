import { afterAll, beforeAll, describe, expect, expectTypeOf, it } from "vitest";
import { z } from "zod";
import { VERSION } from "../../common/version.js";
import { buildRestApp } from "../../gateways/rest/app.js";
import { defineRoute, type ParamsOf } from "../../gateways/rest/route.js";
import { allRoutes } from "../../gateways/rest/routes/index.js";
import type { CoreClients } from "../../gateways/shared/core-client.js";
import { expectEnvelope } from "../helpers/rest.js";

/** Routes that exist only here; they never reach a core. */
const routes = [
  defineRoute({
    method: "GET",
    url: "/api/v1/echo/:id/:part",
    query: { limit: z.number().int().min(1).max(500).default(50), pending: z.boolean().optional() },
    async handler({ params, query }) {
      expectTypeOf(query.limit).toEqualTypeOf<number>();
      expectTypeOf(query.pending).toEqualTypeOf<boolean | undefined>();
      return { id: params.id, part: params.part, query };
    },
  }),
  defineRoute({
    method: "POST",
    url: "/api/v1/echo",
    body: {
      name: z.string().min(1),
      note: z.string().max(5).nullable().optional(),
      kind: z.enum(["a", "b"]).nullable().optional(),
      count: z.number().optional(),
    },
    async handler({ body }) {
      expectTypeOf(body.note).toEqualTypeOf<string | null | undefined>();
      return { body };
    },
  }),
];

let app: Awaited<ReturnType<typeof buildRestApp>>;
beforeAll(async () => {
  app = await buildRestApp({ core: {} as CoreClients, version: VERSION, logger: false, routes });
});
afterAll(async () => {
  await app?.close();
});

// With a key: a write presenting no credential is refused before its body is read.
const post = (payload: object) =>
  app.inject({ method: "POST", url: "/api/v1/echo", payload, headers: { "x-api-key": "cf_x" } });

describe("defineRoute: zod shapes, validated by zod", () => {
  it("names path parameters from the URL", () => {
    expectTypeOf<ParamsOf<"/t/:id/comments/:cid">>().toEqualTypeOf<{ id: string } & { cid: string }>();
    expectTypeOf<ParamsOf<"/t">>().toEqualTypeOf<Record<never, never>>();
  });

  it("coerces query text to the shape's types and fills defaults", async () => {
    const res = await app.inject({ method: "GET", url: "/api/v1/echo/a1/b2?pending=true" });
    expect(res.json()).toEqual({ id: "a1", part: "b2", query: { limit: 50, pending: true } });
    expectEnvelope(await app.inject({ method: "GET", url: "/api/v1/echo/a/b?limit=0" }), "INVALID_PARAMETER", /^limit/);
    expectEnvelope(
      await app.inject({ method: "GET", url: "/api/v1/echo/a/b?colour=red" }),
      "INVALID_PARAMETER",
      "unknown query parameter colour",
    );
  });

  it("takes JSON bodies as they are: no coercion, null is a value", async () => {
    expect((await post({ name: "n", note: null, kind: null })).json()).toEqual({
      body: { name: "n", note: null, kind: null },
    });
    expectEnvelope(await post({ name: "n", count: "5" }), "INVALID_PARAMETER", "count must be a number");
    expectEnvelope(await post({ name: "n", note: 5 }), "INVALID_PARAMETER", "note must be a string");
    expectEnvelope(await post({ name: "n", note: "123456" }), "INVALID_PARAMETER", "note must be at most 5 characters");
    expectEnvelope(await post({ name: "n", kind: "c" }), "INVALID_PARAMETER", "kind must be one of a, b");
    expectEnvelope(await post({}), "INVALID_PARAMETER", "name is required");
    expectEnvelope(await post({ name: "n", admin: true }), "INVALID_PARAMETER", "unknown field admin");
  });

  it("documents a nullable field as type [T, null] only where null still passes", () => {
    const bodyDoc = (body: z.ZodRawShape) =>
      defineRoute({ method: "POST", url: "/x", body, handler: async () => ({}) }).doc!.body;
    expect(bodyDoc({ email: z.string().max(320).nullable().optional() })).toEqual({
      type: "object",
      properties: { email: { type: ["string", "null"], maxLength: 320 } },
      additionalProperties: false,
    });
    // An enum constrains null too, so it stays anyOf.
    expect(bodyDoc({ k: z.enum(["a"]).nullable() })).toEqual({
      type: "object",
      properties: { k: { anyOf: [{ type: "string", enum: ["a"] }, { type: "null" }] } },
      required: ["k"],
      additionalProperties: false,
    });
  });

  it("validates every route's query and body with zod, and documents them as plain JSON Schema", () => {
    for (const r of allRoutes) {
      for (const schema of Object.values(r.schema ?? {})) expect(schema).toBeInstanceOf(z.ZodType);
      for (const part of ["querystring", "body"] as const) {
        const schema = r.doc?.[part];
        if (!schema) continue;
        expect(JSON.parse(JSON.stringify(schema))).toEqual(schema);
        expect(schema).not.toHaveProperty("$schema");
        expect(schema.type).toBe("object");
      }
    }
    const users = allRoutes.find((r) => r.method === "POST" && r.url === "/api/v1/users")!;
    expect(Object.keys(users.schema!)).toEqual(["body"]);
    expect(users.doc!.body).toEqual({
      type: "object",
      properties: {
        name: { type: "string", minLength: 1, maxLength: 200 },
        email: { type: ["string", "null"], maxLength: 320 },
      },
      required: ["name"],
      additionalProperties: false,
    });
    expect(allRoutes.find((r) => r.method === "GET" && r.url === "/api/v1/users")!.schema).toBeUndefined();
  });
});
