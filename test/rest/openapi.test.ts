import { Validator } from "@seriousme/openapi-schema-validator";
import { Ajv2020 } from "ajv/dist/2020.js";
import type { RouteOptions } from "fastify";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VERSION } from "../../common/version.js";
import { buildRestApp } from "../../gateways/rest/app.js";
import { openApiDocument } from "../../gateways/rest/openapi-document.js";
import { newAccount, newTransactions, newUser } from "../helpers/ledger.js";
import { key } from "../helpers/rest.js";
import { startStack, type Stack } from "../helpers/stack.js";

type Operation = {
  operationId: string;
  security?: Record<string, string[]>[];
  parameters?: { in: string; name: string }[];
  responses: Record<string, { content?: Record<string, { schema: object }> }>;
};
type Doc = { openapi: string; paths: Record<string, Record<string, Operation>>; components: { schemas: object } };

let s: Stack;
let app: Awaited<ReturnType<typeof buildRestApp>>;
let doc: Doc;
const registered: RouteOptions[] = [];

/** ":id" → "{id}", as OpenAPI writes path parameters. */
const openapiPath = (url: string) => url.replace(/:(\w+)/g, "{$1}");

/**
 * The operations the document must hold: every route but HEAD twins, the 405
 * answers for other methods, and the console's files (the one static route).
 */
function apiRoutes(): { method: string; url: string }[] {
  const out: { method: string; url: string }[] = [];
  for (const r of registered) {
    if (r.config?.methodFallback) continue;
    if (r.config?.notApi || r.schema?.hide) {
      // The console's page and files, nothing else.
      expect(["/", "/*"]).toContain(r.url);
      continue;
    }
    for (const method of [r.method].flat()) if (method !== "HEAD") out.push({ method, url: r.url });
  }
  return out;
}

beforeAll(async () => {
  s = await startStack();
  app = await buildRestApp({ core: s.core, version: VERSION, logger: false, onRoute: (r) => registered.push(r) });
  const res = await app.inject({ method: "GET", url: "/api/v1/openapi.json" });
  expect(res.statusCode).toBe(200);
  expect(res.headers["content-type"]).toMatch(/^application\/json/);
  doc = res.json<Doc>();
});

afterAll(async () => {
  await app?.close();
  await s?.close();
});

describe("GET /api/v1/openapi.json", () => {
  it("is an OpenAPI 3.1 document that validates against the 3.1 schema", async () => {
    expect(doc.openapi).toBe("3.1.0");
    const validator = new Validator();
    const result = await validator.validate(doc);
    expect(result.errors).toBeUndefined();
    expect(result.valid).toBe(true);
    expect(validator.version).toBe("3.1");
  });

  it("lists every registered route, and nothing else", () => {
    const routes = apiRoutes();
    expect(routes.length).toBeGreaterThan(90);
    const missing = routes.filter((r) => !doc.paths[openapiPath(r.url)]?.[r.method.toLowerCase()]);
    expect(missing).toEqual([]);
    const documented = Object.values(doc.paths).reduce((n, ops) => n + Object.keys(ops).length, 0);
    expect(documented).toBe(routes.length);
  });

  it("is the document `npm run openapi` generates the console's types from", async () => {
    expect(await openApiDocument()).toEqual(doc);
  });

  it("gives each operation a unique id, its path parameters, a success body and the error envelope", () => {
    const ids = new Set<string>();
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const where = `${method} ${path}`;
        expect(ids.has(op.operationId), where).toBe(false);
        ids.add(op.operationId);
        const params = [...path.matchAll(/\{(\w+)\}/g)].map((m) => m[1]);
        const declared = (op.parameters ?? []).filter((p) => p.in === "path").map((p) => p.name);
        expect(declared.sort(), where).toEqual(params.sort());
        // One success body (JSON, or text for the device page); a route may also answer 204 without one.
        const success = Object.keys(op.responses).filter((c) => /^2\d\d$/.test(c) && op.responses[c].content);
        expect(success.length + (op.responses["204"] ? 1 : 0), where).toBeGreaterThanOrEqual(1);
        expect(success.length, where).toBeLessThanOrEqual(1);
        for (const range of ["4XX", "5XX"])
          expect(op.responses[range]?.content?.["application/json"]?.schema, where).toEqual({
            $ref: "#/components/schemas/ErrorEnvelope",
          });
      }
    }
  });

  it("names X-API-Key and the session cookie as the security schemes", () => {
    expect(doc.components).toMatchObject({
      securitySchemes: {
        apiKey: { type: "apiKey", in: "header", name: "X-API-Key" },
        session: { type: "apiKey", in: "cookie", name: "coffer_session" },
      },
    });
  });

  it("marks as public exactly the routes that answer without credentials", async () => {
    for (const [path, ops] of Object.entries(doc.paths)) {
      for (const [method, op] of Object.entries(ops)) {
        const url = path.replace(/\{(\w+)\}/g, "nope").replace(/^\/webhooks\/nope$/, "/webhooks/plaid");
        const res = await app.inject({ method: method.toUpperCase() as "GET", url });
        const code = String(res.headers["content-type"]).startsWith("application/json")
          ? res.json<{ error?: { code: string } }>().error?.code
          : undefined;
        const where = `${method} ${path} → ${res.statusCode} ${code}`;
        if (op.security?.length === 0) {
          expect(code, where).not.toBe("MISSING_CREDENTIALS");
        } else {
          expect(op.security, where).toEqual([{ apiKey: [] }, { session: [] }]);
          // Request validation answers before the core sees the call; otherwise the core asks for a key.
          expect(["MISSING_CREDENTIALS", "INVALID_PARAMETER", "INVALID_BODY"], where).toContain(code);
        }
      }
    }
  });
});

describe("the documented success bodies", () => {
  const ajv = new Ajv2020({ strict: false, allErrors: true, validateFormats: false });
  let checked = 0;

  /** Fetches with the admin key and checks the body against the document's schema for that operation. */
  async function conforms(method: "GET" | "POST" | "PATCH" | "DELETE", url: string, path: string, body?: object) {
    const res = await app.inject({ method, url, headers: key(s.adminKey), ...(body ? { payload: body } : {}) });
    const op = doc.paths[path][method.toLowerCase()];
    const status = Object.keys(op.responses).find((c) => /^2\d\d$/.test(c))!;
    expect(`${res.statusCode}`, `${method} ${url}: ${res.body}`).toBe(status);
    const schema = op.responses[status].content!["application/json"].schema;
    const validate = ajv.compile({ ...schema, components: doc.components });
    const ok = validate(res.json());
    expect(validate.errors ?? [], `${method} ${url}`).toEqual([]);
    expect(ok).toBe(true);
    checked++;
    return res.json<Record<string, unknown>>();
  }

  it("match what the routes answer", async () => {
    const em = s.orm.em.fork();
    const user = await newUser(em, "Openapi");
    const account = await newAccount(em, user.id);
    const [tx] = await newTransactions(em, account.id, [{ amount: "12.34" }, { amount: "-5.00" }]);
    await conforms("GET", "/api/v1/version", "/api/v1/version");
    await conforms("GET", "/api/v1/keys/me", "/api/v1/keys/me");
    await conforms("GET", "/api/v1/api-keys", "/api/v1/api-keys");
    const created = await conforms("POST", "/api/v1/api-keys", "/api/v1/api-keys", {
      name: "docs",
      scope: "read_only",
    });
    await conforms("DELETE", `/api/v1/api-keys/${created.id as string}`, "/api/v1/api-keys/{id}");
    await conforms("GET", "/api/v1/users", "/api/v1/users");
    await conforms("GET", `/api/v1/users/${user.id}`, "/api/v1/users/{id}");
    await conforms("GET", "/api/v1/accounts", "/api/v1/accounts");
    await conforms("GET", `/api/v1/accounts/${account.id}`, "/api/v1/accounts/{id}");
    await conforms("GET", "/api/v1/transactions?limit=1", "/api/v1/transactions");
    await conforms("GET", "/api/v1/transactions/count", "/api/v1/transactions/count");
    await conforms("GET", "/api/v1/transactions/summary", "/api/v1/transactions/summary");
    await conforms("GET", `/api/v1/transactions/${tx}`, "/api/v1/transactions/{id}");
    const { categories } = await conforms("GET", "/api/v1/categories", "/api/v1/categories");
    const slug = (categories as { slug: string; is_system: boolean }[]).find((c) => !c.is_system)!.slug;
    await conforms("PATCH", `/api/v1/transactions/${tx}/category`, "/api/v1/transactions/{id}/category", {
      category_slug: slug,
    });
    await conforms("POST", `/api/v1/transactions/${tx}/comments`, "/api/v1/transactions/{id}/comments", {
      body: "checked",
    });
    await conforms("GET", `/api/v1/transactions/${tx}/annotations`, "/api/v1/transactions/{id}/annotations");
    await conforms("GET", "/api/v1/tags", "/api/v1/tags");
    await conforms("GET", "/api/v1/counterparties", "/api/v1/counterparties");
    await conforms("GET", "/api/v1/reports", "/api/v1/reports");
    await conforms("GET", "/api/v1/reports/unread-count", "/api/v1/reports/unread-count");
    await conforms("GET", "/api/v1/series", "/api/v1/series");
    await conforms("GET", "/api/v1/series/upcoming", "/api/v1/series/upcoming");
    await conforms("GET", "/api/v1/providers", "/api/v1/providers");
    await conforms("GET", "/api/v1/providers/csv", "/api/v1/providers/{name}");
    await conforms("GET", "/api/v1/connections", "/api/v1/connections");
    await conforms("GET", "/api/v1/sync/logs", "/api/v1/sync/logs");
    await conforms("GET", "/api/v1/webhook-events", "/api/v1/webhook-events");
    await conforms("GET", "/api/v1/rules", "/api/v1/rules");
    await conforms("GET", "/api/v1/rules/find-matching?transaction_id=" + tx, "/api/v1/rules/find-matching");
    const rule = await conforms("POST", "/api/v1/rules", "/api/v1/rules", {
      name: "shops",
      conditions: { field: "amount", op: "gt", value: 1 },
      actions: [{ type: "add_tag", tag_slug: "needs_review" }],
      trigger: "on_create",
      priority: 10,
      enabled: true,
    });
    await conforms("POST", `/api/v1/rules/${rule.id as string}/apply`, "/api/v1/rules/{id}/apply", {});
    await conforms("POST", "/api/v1/connections/csv/preview", "/api/v1/connections/csv/preview", {
      csv: "Date,Description,Amount\n2026-01-02,Coffee,-3.50\n",
    });
    await conforms("POST", "/api/v1/auth/device-code", "/api/v1/auth/device-code", {});
    expect(checked).toBeGreaterThan(30);
  });
});
