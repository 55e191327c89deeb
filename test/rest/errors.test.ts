import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildRestApp } from "../../gateways/rest/app.js";
import { z } from "zod";
import { defineRoute, type RestRoute } from "../../gateways/rest/route.js";
import { VERSION } from "../../common/version.js";
import { expectEnvelope, key } from "../helpers/rest.js";
import { startStack, type Stack } from "../helpers/stack.js";

let s: Stack;
let custom: Awaited<ReturnType<typeof buildRestApp>>;

/** Routes that exist only here: one crashes, one takes typed query parameters. */
const testRoutes: RestRoute[] = [
  {
    method: "GET",
    url: "/api/v1/boom",
    async handler() {
      throw new Error("secret internals: select * from api_keys at /work/main/services/x.ts:12");
    },
  },
  defineRoute({
    method: "GET",
    url: "/api/v1/typed",
    query: {
      limit: z.number().int().min(1).max(500).optional(),
      pending: z.boolean().optional(),
      sort: z.enum(["date", "amount"]).optional(),
    },
    async handler({ query }) {
      return { query };
    },
  }),
];

beforeAll(async () => {
  s = await startStack();
  custom = await buildRestApp({ core: s.core, version: VERSION, logger: false, routes: testRoutes });
});
afterAll(async () => {
  await custom?.close();
  await s?.close();
});

describe("REST error envelope", () => {
  it.each([
    ["GET", "/nope"],
    ["GET", "/api/v1/nope"],
    ["POST", "/api/v1/users/abc/def"],
    ["GET", "/api/v2/users"],
  ] as const)("unknown route %s %s → 404 NOT_FOUND", async (method, url) => {
    const res = await s.rest.inject({ method, url, headers: key(s.adminKey) });
    expectEnvelope(res, "NOT_FOUND", `No route for ${method} ${url}`);
  });

  it.each([
    ["PUT", "/api/v1/users", "GET, POST"],
    ["DELETE", "/api/v1/users", "GET, POST"],
    ["POST", "/api/v1/users/abc", "GET, PATCH, DELETE"],
    ["POST", "/api/v1/keys/me", "GET"],
    ["GET", "/api/v1/auth/device-code/poll", "POST"],
    ["PATCH", "/api/v1/api-keys/abc", "DELETE"],
    ["POST", "/api/v1/version", "GET"],
    ["POST", "/health", "GET"],
    ["DELETE", "/health/ready", "GET"],
  ] as const)("wrong method %s %s → 405 METHOD_NOT_ALLOWED with Allow: %s", async (method, url, allow) => {
    const res = await s.rest.inject({ method, url, headers: key(s.adminKey) });
    expectEnvelope(res, "METHOD_NOT_ALLOWED");
    expect(String(res.headers.allow).split(/,\s*/).sort()).toEqual(allow.split(", ").sort());
  });

  it.each([
    ["truncated JSON", '{"name":'],
    ["not JSON at all", "name=Ann"],
    ["a trailing comma", '{"name":"Ann",}'],
    ["an empty body", ""],
  ])("malformed JSON (%s) → 400 INVALID_BODY", async (_what, payload) => {
    const res = await s.rest.inject({
      method: "POST",
      url: "/api/v1/users",
      headers: { ...key(s.adminKey), "content-type": "application/json" },
      payload,
    });
    expectEnvelope(res, "INVALID_BODY");
  });

  it.each([
    ["an array", "[]"],
    ["a string", '"Ann"'],
    ["a number", "42"],
    ["null", "null"],
  ])("a JSON body that is %s, not an object → 400 INVALID_BODY", async (_what, payload) => {
    const res = await s.rest.inject({
      method: "POST",
      url: "/api/v1/users",
      headers: { ...key(s.adminKey), "content-type": "application/json" },
      payload,
    });
    expectEnvelope(res, "INVALID_BODY");
  });

  it("a body over 1 MiB → 413 PAYLOAD_TOO_LARGE", async () => {
    const res = await s.rest.inject({
      method: "POST",
      url: "/api/v1/users",
      headers: key(s.adminKey),
      payload: { name: "x".repeat(1024 * 1024 + 10) },
    });
    expectEnvelope(res, "PAYLOAD_TOO_LARGE");
  });

  it("a body just under 1 MiB is read (and then judged on its content)", async () => {
    const res = await s.rest.inject({
      method: "POST",
      url: "/api/v1/users",
      headers: key(s.adminKey),
      payload: { name: "x".repeat(1000 * 1000) },
    });
    expectEnvelope(res, "INVALID_PARAMETER", /name/);
  });

  it.each([
    ["application/xml", "<name>Ann</name>", "UNSUPPORTED_MEDIA_TYPE"],
    ["application/x-www-form-urlencoded", "name=Ann", "UNSUPPORTED_MEDIA_TYPE"],
    // Bodies are read only as JSON: text/plain is refused for its type, like any other non-JSON body.
    ["text/plain", "Ann", "UNSUPPORTED_MEDIA_TYPE"],
  ] as const)("a %s body → %s", async (type, payload, code) => {
    const res = await s.rest.inject({
      method: "POST",
      url: "/api/v1/users",
      headers: { ...key(s.adminKey), "content-type": type },
      payload,
    });
    expectEnvelope(res, code);
    const list = await s.rest.inject({ method: "GET", url: "/api/v1/users", headers: key(s.adminKey) });
    expect(list.json().users.map((u: { name: string }) => u.name)).not.toContain("Ann");
  });

  it.each([
    ["name is a number", "name", { name: 123 }],
    ["name is missing", "name", { email: "a@b.co" }],
    ["name is empty", "name", { name: "" }],
    ["email is a number", "email", { name: "Ann", email: 5 }],
    ["email is an object", "email", { name: "Ann", email: { a: 1 } }],
    ["an unknown field", "admin", { name: "Ann", admin: true }],
  ])("wrong body types (%s) → 400 INVALID_PARAMETER naming %s", async (_what, param, payload) => {
    const res = await s.rest.inject({ method: "POST", url: "/api/v1/users", headers: key(s.adminKey), payload });
    const err = expectEnvelope(res, "INVALID_PARAMETER");
    expect(err.message).toContain(param);
  });

  it.each([
    ["limit=abc", "limit"],
    ["limit=0", "limit"],
    ["limit=501", "limit"],
    ["limit=1.5", "limit"],
    ["pending=maybe", "pending"],
    ["sort=name", "sort"],
    ["colour=red", "colour"],
  ])("wrong query types (?%s) → 400 INVALID_PARAMETER naming %s", async (qs, param) => {
    const res = await custom.inject({ method: "GET", url: `/api/v1/typed?${qs}` });
    const err = expectEnvelope(res, "INVALID_PARAMETER");
    expect(err.message).toContain(param);
  });

  it("well-typed query parameters are coerced and reach the handler", async () => {
    const res = await custom.inject({ method: "GET", url: "/api/v1/typed?limit=20&pending=true&sort=amount" });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ query: { limit: 20, pending: true, sort: "amount" } });
  });

  it("an unexpected exception → 500 INTERNAL_ERROR with no internals", async () => {
    const res = await custom.inject({ method: "GET", url: "/api/v1/boom" });
    expectEnvelope(res, "INTERNAL_ERROR", "Internal error");
    expect(res.body).not.toMatch(/secret|select|api_keys|stack/i);
  });

  it("echoes a well-formed X-Request-Id and replaces a malformed one", async () => {
    const given = await s.rest.inject({ method: "GET", url: "/health", headers: { "x-request-id": "abc123" } });
    expect(given.headers["x-request-id"]).toBe("abc123");
    const bad = await s.rest.inject({ method: "GET", url: "/health", headers: { "x-request-id": "a b\tc" } });
    expect(bad.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
    const none = await s.rest.inject({ method: "GET", url: "/api/v1/nope" });
    expect(none.headers["x-request-id"]).toMatch(/^[0-9a-f-]{36}$/);
  });
});
