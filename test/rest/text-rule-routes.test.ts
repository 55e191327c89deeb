import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { JsonSchema, RestRoute } from "../../gateways/rest/route.js";
import { allRoutes } from "../../gateways/rest/routes/index.js";
import { newAccount, newTransactions, newUser } from "../helpers/ledger.js";
import { query } from "../../services/db/sql.js";
import { key } from "../helpers/rest.js";
import { startStack, type Stack } from "../helpers/stack.js";
import { databaseChecksum } from "../helpers/state.js";
import { waitFor } from "../helpers/wait.js";

// Generated from the REST route table: every string a write route's body
// carries (and every text query parameter a list filters by) is sent with
// NUL, BEL, ESC and a lone surrogate in it, one leaf at a time in an otherwise
// valid request. A name or text answers 400 VALIDATION_ERROR naming the field
// (INVALID_PARAMETER for a query filter); an id, a secret or a code answers
// some 4xx in the envelope. Never a 5xx, and nothing is stored.

let s: Stack;
/** The records the examples name; before beforeAll has made them, a placeholder (the leaves are listed then). */
const made: Record<string, string> = {};
const ids: Record<string, string> = new Proxy(made, {
  get: (target, name: string) => target[name] ?? "not-made-yet",
});

type Method = RestRoute["method"];
const call = (method: Method, url: string, payload?: unknown) =>
  s.rest.inject({
    method,
    url,
    headers: key(s.adminKey),
    ...(payload === undefined ? {} : { payload: payload as object }),
  });

beforeAll(async () => {
  s = await startStack();
  const em = s.orm.em.fork();
  const ann = await newUser(em, "Ann");
  const bob = await newUser(em, "Bob");
  const account = await newAccount(em, ann.id, { name: "Joint" });
  const [tx] = await newTransactions(em, account.id, [{ providerName: "TEA BAR", date: "2026-01-10" }]);
  ids.user = ann.shortId;
  ids.bob = bob.shortId;
  ids.account = account.shortId;
  ids.tx = tx;
  const made = async (method: Method, url: string, body: unknown) => {
    const res = await call(method, url, body);
    expect(res.statusCode, `${method} ${url}: ${res.body}`).toBeLessThan(300);
    return res.json<Record<string, string>>();
  };
  ids.comment = (await made("POST", `/api/v1/transactions/${tx}/comments`, { body: "first" })).id;
  ids.tag = (await made("POST", "/api/v1/tags", { slug: "trip" })).id;
  ids.category = (await made("POST", "/api/v1/categories", { display_name: "Pets" })).id;
  ids.counterparty = (await made("POST", "/api/v1/counterparties", { name: "Tea Bar" })).id;
  ids.series = (
    await made("POST", "/api/v1/series", { name: "Tea", iso_currency_code: "USD", expected_amount: 4.5 })
  ).id;
  ids.rule = (await made("POST", "/api/v1/rules", { name: "Tea", conditions: {}, actions: [{ type: "flag" }] })).id;
  const login = await made("POST", `/api/v1/users/${ann.shortId}/login`, { email: "ann@example.com", role: "admin" });
  ids.setupToken = new URL(login.setup_url).searchParams.get("token")!;
  const device = await made("POST", "/api/v1/auth/device-code", { name: "cli" });
  ids.deviceCode = device.device_code;
  ids.userCode = device.user_code;
  ids.connection = (await made("POST", "/api/v1/connections", EXAMPLES["POST /api/v1/connections"]().body)).id;
  // The import runs in the background; the state compared below must not move under the tests.
  await waitFor(async () => {
    const rows = await query(s.orm.em.fork(), `select 1 from sync_logs where status <> 'running'`);
    return rows.length > 0 ? true : null;
  }, "the CSV import");
});

/**
 * Every table's checksum but the core's own periodic bookkeeping (series
 * detection runs, cursor signing keys), which may move while a test runs.
 */
const state = async () =>
  (await databaseChecksum(s.orm.em.fork()))
    .split("\n")
    .filter((line) => !/^(series_detection_runs|cursor_keys):/.test(line))
    .join("\n");
afterAll(async () => {
  await s?.close();
});

/** A valid request for each write route whose body holds text: the path with its ids, and the body. */
const EXAMPLES: Record<string, () => { url: string; body: Record<string, unknown> }> = {
  "POST /api/v1/auth/device-code": () => ({ url: "/api/v1/auth/device-code", body: { name: "cli" } }),
  "POST /api/v1/auth/device-code/poll": () => ({
    url: "/api/v1/auth/device-code/poll",
    body: { device_code: ids.deviceCode },
  }),
  "POST /api/v1/auth/device-code/approve": () => ({
    url: "/api/v1/auth/device-code/approve",
    body: { user_code: ids.userCode, scope: "read_only", name: "laptop" },
  }),
  "POST /api/v1/auth/device-code/deny": () => ({
    url: "/api/v1/auth/device-code/deny",
    body: { user_code: ids.userCode },
  }),
  "POST /api/v1/api-keys": () => ({ url: "/api/v1/api-keys", body: { name: "script", scope: "read_only" } }),
  "POST /api/v1/users": () => ({ url: "/api/v1/users", body: { name: "Cy", email: "cy@example.com" } }),
  "PATCH /api/v1/users/:id": () => ({
    url: `/api/v1/users/${ids.user}`,
    body: { name: "Ann", email: "ann@example.com" },
  }),
  "POST /api/v1/auth/setup": () => ({
    url: "/api/v1/auth/setup",
    body: { token: ids.setupToken, password: "a long enough password 123", email: "ann@example.com", name: "Ann" },
  }),
  "POST /api/v1/auth/login": () => ({
    url: "/api/v1/auth/login",
    body: { email: "ann@example.com", password: "not the password" },
  }),
  "POST /api/v1/users/:id/login": () => ({
    url: `/api/v1/users/${ids.bob}/login`,
    body: { email: "bob@example.com", role: "viewer" },
  }),
  "PATCH /api/v1/transactions/:id/category": () => ({
    url: `/api/v1/transactions/${ids.tx}/category`,
    body: { category_slug: "pets" },
  }),
  "POST /api/v1/transactions/batch-categorize": () => ({
    url: "/api/v1/transactions/batch-categorize",
    body: { transaction_ids: [ids.tx], category_slug: "pets" },
  }),
  "POST /api/v1/transactions/:id/tags": () => ({ url: `/api/v1/transactions/${ids.tx}/tags`, body: { slug: "trip" } }),
  "PUT /api/v1/transactions/:id/metadata": () => ({
    url: `/api/v1/transactions/${ids.tx}/metadata`,
    body: { note: "x", trip: { days: ["mon"] } },
  }),
  "PATCH /api/v1/transactions/:id/metadata": () => ({
    url: `/api/v1/transactions/${ids.tx}/metadata`,
    body: { note: "x", trip: { days: ["mon"] } },
  }),
  "POST /api/v1/transactions/:id/comments": () => ({
    url: `/api/v1/transactions/${ids.tx}/comments`,
    body: { body: "hello" },
  }),
  "PATCH /api/v1/transactions/:id/comments/:cid": () => ({
    url: `/api/v1/transactions/${ids.tx}/comments/${ids.comment}`,
    body: { body: "hello" },
  }),
  "POST /api/v1/accounts": () => ({
    url: "/api/v1/accounts",
    body: {
      user_id: ids.user,
      name: "Cash",
      type: "other",
      subtype: "wallet",
      iso_currency_code: "USD",
      mask: "1234",
      official_name: "Cash box",
    },
  }),
  "PATCH /api/v1/accounts/:id": () => ({
    url: `/api/v1/accounts/${ids.account}`,
    body: { name: "Joint", user_id: ids.user },
  }),
  "POST /api/v1/categories": () => ({
    url: "/api/v1/categories",
    body: { display_name: "Food", slug: "food", parent_slug: "pets" },
  }),
  "PUT /api/v1/categories/:id": () => ({
    url: `/api/v1/categories/${ids.category}`,
    body: { display_name: "Pets", slug: "pets", parent_slug: null },
  }),
  "POST /api/v1/categories/:id/merge": () => ({
    url: `/api/v1/categories/${ids.category}/merge`,
    body: { into: "pets" },
  }),
  "POST /api/v1/tags": () => ({ url: "/api/v1/tags", body: { slug: "work", display_name: "Work", color: "#ff0000" } }),
  "PATCH /api/v1/tags/:id": () => ({
    url: `/api/v1/tags/${ids.tag}`,
    body: { slug: "trip", display_name: "Trip", color: "#00ff00" },
  }),
  "POST /api/v1/counterparties": () => ({
    url: "/api/v1/counterparties",
    body: { name: "Bakery", type: "merchant", notes: "corner" },
  }),
  "PATCH /api/v1/counterparties/:id": () => ({
    url: `/api/v1/counterparties/${ids.counterparty}`,
    body: { name: "Tea Bar", notes: "corner" },
  }),
  "POST /api/v1/counterparties/:id/transactions": () => ({
    url: `/api/v1/counterparties/${ids.counterparty}/transactions`,
    body: { transaction_ids: [ids.tx] },
  }),
  "POST /api/v1/reports": () => ({
    url: "/api/v1/reports",
    body: { title: "Week", body: "All fine", priority: "info", tags: ["weekly"], author: "agent", transaction_ids: [] },
  }),
  "POST /api/v1/series": () => ({
    url: "/api/v1/series",
    body: { name: "Gym", iso_currency_code: "USD", expected_amount: 30, counterparty_id: ids.counterparty },
  }),
  "POST /api/v1/series/detect/reject": () => ({
    url: "/api/v1/series/detect/reject",
    body: { fingerprint: "v1:tea bar:monthly" },
  }),
  "PATCH /api/v1/series/:id": () => ({
    url: `/api/v1/series/${ids.series}`,
    body: { name: "Tea", iso_currency_code: "USD", counterparty_id: ids.counterparty },
  }),
  "POST /api/v1/series/:id/transactions": () => ({
    url: `/api/v1/series/${ids.series}/transactions`,
    body: { add: [ids.tx], remove: [] },
  }),
  "POST /api/v1/providers/:name/link-session": () => ({
    url: "/api/v1/providers/plaid/link-session",
    body: { user_id: ids.user },
  }),
  "POST /api/v1/connections": () => ({
    url: "/api/v1/connections",
    body: {
      provider: "csv",
      user_id: ids.user,
      credentials: csvCredentials("Sparkonto"),
    },
  }),
  "POST /api/v1/connections/:id/reauth": () => ({
    url: `/api/v1/connections/${ids.connection}/reauth`,
    body: { credentials: csvCredentials("Girokonto") },
  }),
  "POST /api/v1/connections/csv/preview": () => ({
    url: "/api/v1/connections/csv/preview",
    body: { csv: "Date,Amount,Description\n2026-01-05,-1.00,tea\n", date_format: "YYYY-MM-DD" },
  }),
  "POST /api/v1/rules": () => ({ url: "/api/v1/rules", body: ruleBody() }),
  "PATCH /api/v1/rules/:id": () => ({ url: `/api/v1/rules/${ids.rule}`, body: ruleBody() }),
  "POST /api/v1/rules/preview": () => ({
    url: "/api/v1/rules/preview",
    body: { conditions: { field: "provider_name", op: "in", value: ["tea bar", "cafe"] } },
  }),
};

const csvCredentials = (accountName: string) => ({
  csv: "Date,Amount,Description\n2026-01-05,-1.00,tea\n",
  column_mapping: { date: "Date", amount: "Amount", description: "Description" },
  account_name: accountName,
  iso_currency_code: "EUR",
});

const ruleBody = () => ({
  name: "Tea rule",
  trigger: "on_create",
  conditions: {
    and: [
      { field: "provider_name", op: "contains", value: "tea" },
      { field: "provider_name", op: "in", value: ["tea bar", "cafe"] },
    ],
  },
  actions: [
    { type: "set_metadata", key: "drink", value: "tea" },
    { type: "add_comment", content: "a drink" },
    { type: "assign_series", series_name: "Drinks", create_if_missing: true },
    { type: "flag", reason: "check" },
  ],
});

/**
 * Leaves whose name says they are not stored text: ids (an unknown one is
 * 404), secrets and codes (compared, never stored: 401/404), and the CSV file
 * itself (read by the CSV reader, which has its own rules), and the closed
 * sets (an enum: INVALID_PARAMETER; an unknown provider: 404). These must
 * still answer 4xx in the envelope, never 5xx.
 */
const NOT_TEXT =
  /(^|_)ids?(\[\d+\])?$|^(add|remove)(\[\d+\])?$|password|token|device_code|user_code|(^|\.)csv$|^(scope|role|type|provider)$/;

const HOSTILE = { NUL: "a\u0000b", BEL: "a\u0007b", ESC: "a\u001bb", "lone surrogate": "a\ud800b" };

type Path = (string | number)[];

/** Every string leaf of a value, with its path. */
function stringLeaves(value: unknown, at: Path = []): Path[] {
  if (typeof value === "string") return [at];
  if (value === null || typeof value !== "object") return [];
  return Object.entries(value).flatMap(([k, v]) => stringLeaves(v, [...at, Array.isArray(value) ? Number(k) : k]));
}

function withLeaf(body: Record<string, unknown>, path: Path, leaf: string): Record<string, unknown> {
  const copy = structuredClone(body);
  let cur = copy as Record<string | number, unknown>;
  for (const seg of path.slice(0, -1)) cur = cur[seg] as Record<string | number, unknown>;
  cur[path[path.length - 1]] = leaf;
  return copy;
}

const isStringSchema = (p: JsonSchema | boolean): boolean =>
  typeof p === "object" && ([p.type].flat().includes("string") || (p.anyOf ?? []).some((q) => isStringSchema(q)));

/** The body's top-level properties that may hold text (or anything), from the route's JSON Schema. */
function textProperties(route: RestRoute): string[] {
  const body = route.doc?.body;
  if (!body) return [];
  const props = Object.entries(body.properties ?? {}).filter(([, p]) => {
    if (typeof p !== "object") return true;
    if (p.enum || p.pattern || p.format) return false;
    return isStringSchema(p) || p.type === "object" || p.type === undefined || p.type === "array";
  });
  const open = body.additionalProperties !== false && body.additionalProperties !== undefined;
  return [...props.map(([k]) => k), ...(open ? ["*"] : [])];
}

const writeRoutes = allRoutes.filter((r) => r.method !== "GET" && r.method !== "DELETE" && !r.rawBody);
const routeName = (r: RestRoute) => `${r.method} ${r.url}`;

describe("the route table's write routes", () => {
  it("every write route whose body can hold text has an example here", () => {
    const missing = writeRoutes.filter((r) => textProperties(r).length > 0 && !EXAMPLES[routeName(r)]);
    expect(missing.map(routeName)).toEqual([]);
  });

  it("every example is valid as it stands (so a refusal below is about the one leaf)", async () => {
    // Only routes whose example would not change what the others need are sent as they are.
    for (const name of ["POST /api/v1/rules/preview", "POST /api/v1/connections/csv/preview", "POST /api/v1/users"]) {
      const { url, body } = EXAMPLES[name]();
      const res = await call(name.split(" ")[0] as Method, url, body);
      expect(res.statusCode, `${name}: ${res.body}`).toBeLessThan(300);
    }
  });
});

const cases = Object.keys(EXAMPLES).flatMap((name) => {
  const [method] = name.split(" ") as [Method];
  const { body } = EXAMPLES[name]();
  return stringLeaves(body).flatMap((path) =>
    Object.entries(HOSTILE).map(([what, value]) => ({ name, method, path, what, value })),
  );
});

describe("a hostile value in one leaf of a valid body", () => {
  it("covers every route with text and more than a hundred leaves", () => {
    expect(new Set(cases.map((c) => c.name)).size).toBe(Object.keys(EXAMPLES).length);
    expect(cases.length).toBeGreaterThan(100);
  });

  it.each(cases.map((c) => [c.name, c.path.join("."), c.what, c]))("%s %s ← %s", async (_n, _p, _w, c) => {
    const { url, body } = EXAMPLES[c.name]();
    const before = await state();
    const res = await call(c.method, url, withLeaf(body, c.path, c.value));
    const leafName = String(c.path.filter((seg) => typeof seg === "string").at(-1));
    const pathText = c.path.map((seg) => (typeof seg === "number" ? `[${seg}]` : seg)).join(".");
    expect(res.statusCode, res.body).toBeGreaterThanOrEqual(400);
    expect(res.statusCode, res.body).toBeLessThan(500);
    const error = res.json<{ error: { code: string; message: string } }>().error;
    expect(Object.keys(error).sort()).toEqual(["code", "message"]);
    if (!NOT_TEXT.test(pathText.replace(/\.\[/g, "["))) {
      expect(res.statusCode, res.body).toBe(400);
      expect(error.code, res.body).toBe("VALIDATION_ERROR");
      expect(error.message, res.body).toContain(leafName);
    }
    expect(await state()).toBe(before);
  });
});

describe("a hostile value in a text query parameter", () => {
  const filters = [
    ["/api/v1/webhook-events", "provider"],
    ["/api/v1/reports", "priority"],
    ["/api/v1/reports", "tag"],
    ["/api/v1/rules/find-matching", "merchant"],
  ] as const;
  const rows = filters.flatMap(([url, param]) =>
    ["%00", "%07", "%1B"].map((value) => [`${url}?${param}=a${value}b`, param] as const),
  );
  it.each(rows)("GET %s → 400 naming %s", async (url, param) => {
    const res = await call("GET", url);
    expect(res.statusCode, res.body).toBe(400);
    const error = res.json<{ error: { code: string; message: string } }>().error;
    expect(["INVALID_PARAMETER", "VALIDATION_ERROR"]).toContain(error.code);
    expect(error.message).toContain(param);
  });
});
