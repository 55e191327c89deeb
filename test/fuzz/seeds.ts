import { z } from "zod";
import { toJson, type DescMethod, type JsonValue } from "@bufbuild/protobuf";
import type { JsonSchema, RestRoute } from "../../gateways/rest/route.js";
import type { ToolDef } from "../../gateways/mcp/tool.js";
import { allTools } from "../../gateways/mcp/tools/index.js";
import { query } from "../../services/db/sql.js";
import type { FuzzTarget } from "./harness.js";
import { sendHttp1 } from "./http1.js";

/**
 * Valid requests, one per REST route, MCP tool and core method, found by
 * sending them: the starting points of the one-leaf mode (one-leaf.ts).
 *
 * A request is built from the route's JSON Schema (or the tool's zod input),
 * with values that satisfy it: real ids and slugs from the database for the
 * fields that name one, fresh names for the fields that must be unique, and
 * values an earlier answer handed out (a device code, a setup token, a
 * detection fingerprint). Every optional field is filled in first; if that is
 * refused, only the required ones. The first request answered 2xx (with the
 * full_access key) is the seed. Core seeds are the messages the gateways sent
 * to the core while the REST and MCP seeds succeeded.
 */

/** A REST request that was answered 2xx. */
export interface RestSeed {
  route: RestRoute;
  params: Record<string, string>;
  query: [string, string][];
  /** The JSON body; undefined when the route takes none. */
  body: unknown;
  /** Query parameters the route declares: a one-leaf case may add one with a hostile value. */
  queryNames: string[];
}

export interface McpSeed {
  tool: ToolDef;
  args: Record<string, unknown>;
}

export interface CoreSeed {
  method: DescMethod;
  json: JsonValue;
}

export interface Seeds {
  rest: RestSeed[];
  mcp: McpSeed[];
  core: CoreSeed[];
  /** Routes and tools no candidate got a 2xx for, with the last answer's status or error code. */
  missing: string[];
}

type Schema = JsonSchema & Record<string, unknown>;

/** Leave the field out. */
const SKIP = Symbol("skip");

/** Ids and slugs of the database's rows, in a fixed order (by id), read once. */
interface Refs {
  [table: string]: string[];
}

interface Ctx {
  refs: Refs;
  /** Values earlier answers carried, by field name (device_code, user_code, token, fingerprint). */
  found: Map<string, string>;
  /** The route ("POST /api/v1/tags") or tool the value is for. */
  where: string;
  /** A number never used before in this run: unique names, slugs and emails. */
  fresh: () => number;
}

const ISO_DAY = 86_400_000;
const day = (offset: number) => new Date(Date.now() + offset * ISO_DAY).toISOString().slice(0, 10);

const ref = (ctx: Ctx, table: string, i = 0) => ctx.refs[table]?.[i] ?? SKIP;

const CSV = (n: number) =>
  `Date,Amount,Description\n${day(-3)},-12.30,fuzz seed ${n}\n${day(-2)},4.00,fuzz seed ${n}\n`;
const CSV_MAPPING = { date: "Date", amount: "Amount", description: "Description" };

/** The table an MCP tool's `id` argument names, from the tool's name. */
function toolIdTable(tool: string): string | undefined {
  if (/rule/.test(tool)) return "rules";
  if (/report/.test(tool)) return "reports";
  if (/series/.test(tool)) return "series";
  if (/sync/.test(tool)) return "connections";
  if (/transaction|comment/.test(tool)) return "transactions";
  return undefined;
}

/** Values by field name: what a schema alone cannot say (which ids exist, what must be unique). */
const HINTS: Record<string, (ctx: Ctx) => unknown> = {
  user_id: (c) => ref(c, "users"),
  account_id: (c) => ref(c, "accounts"),
  series_id: (c) => ref(c, "series"),
  transaction_id: (c) => ref(c, "transactions"),
  counterparty_id: (c) => ref(c, "counterparties"),
  connection_id: (c) => ref(c, "connections"),
  id: (c) => {
    const table = toolIdTable(c.where);
    return table ? ref(c, table) : SKIP;
  },
  transaction_ids: (c) => [ref(c, "transactions")],
  add: (c) => (/tag/.test(c.where) ? [ref(c, "tags.slug")] : [ref(c, "transactions", 1)]),
  remove: () => [],
  category_slug: (c) => ref(c, "categories.slug"),
  parent_slug: (c) => ref(c, "categories.slug"),
  into: (c) => ref(c, "categories.slug", 1),
  slug: (c) => (/transactions/.test(c.where) ? ref(c, "tags.slug") : `fuzz_seed_${c.fresh()}`),
  tags: (c) => [ref(c, "tags.slug")],
  tag: (c) => ref(c, "tags.slug"),
  any_tag: (c) => ref(c, "tags.slug"),
  email: (c) =>
    /auth\/(login|setup)/.test(c.where) ? (c.found.get("login_email") ?? SKIP) : `seed${c.fresh()}@example.com`,
  role: () => "editor",
  name: (c) => `Fuzz seed ${c.fresh()}`,
  display_name: (c) => `Fuzz seed ${c.fresh()}`,
  // assign_series takes series_id or series_name, not both.
  series_name: () => SKIP,
  create_if_missing: () => SKIP,
  iso_currency_code: () => "USD",
  start_date: () => day(-400),
  end_date: () => day(1),
  since: () => new Date(Date.now() - 400 * ISO_DAY).toISOString(),
  next_expected_date: () => day(30),
  expected_amount: () => "12.30",
  amount_tolerance: () => "1.00",
  balance_current: () => "100.00",
  min_amount: () => "1",
  max_amount: () => "1000",
  color: () => "#336699",
  priority: (c) => (/rule/.test(c.where) ? 10 : "info"),
  conditions: () => ({
    and: [
      { field: "provider_name", op: "contains", value: "fuzz" },
      { field: "amount", op: "gt", value: "1.00" },
    ],
  }),
  actions: (c) => [
    { type: "add_tag", tag_slug: ref(c, "tags.slug") },
    { type: "set_metadata", key: "fuzz", value: "seed" },
  ],
  trigger: () => "always",
  provider: (c) => (/^GET /.test(c.where) ? "plaid" : "csv"),
  credentials: (c) => ({
    csv: CSV(c.fresh()),
    column_mapping: CSV_MAPPING,
    account_name: `Fuzz seed ${c.fresh()}`,
    iso_currency_code: "USD",
  }),
  csv: (c) => CSV(c.fresh()),
  column_mapping: () => CSV_MAPPING,
  date_format: () => SKIP,
  min_confidence: () => 0.5,
  password: () => "correct horse battery staple",
  device_code: (c) => c.found.get("device_code") ?? SKIP,
  user_code: (c) => c.found.get("user_code") ?? SKIP,
  token: (c) => c.found.get("token") ?? SKIP,
  fingerprint: (c) => c.found.get("fingerprint") ?? SKIP,
  sample_size: () => 5,
  days: () => 30,
  limit: () => 5,
  recent: () => 3,
  cursor: () => SKIP,
  fields: () => SKIP,
  search: () => "a",
  // find-matching takes exactly one of transaction_id and merchant.
  merchant: () => SKIP,
  mask: () => "1234",
  subtype: () => "checking",
  min_hit_count: () => 0,
  hidden: () => false,
  paused: () => false,
};

/** A value the schema accepts, for the field `name`; SKIP when there is none to give. */
function valid(name: string, schema: JsonSchema | boolean | undefined, ctx: Ctx, depth = 0): unknown {
  const hint = HINTS[name];
  if (hint) return hint(ctx);
  if (!schema || schema === true) return SKIP;
  const s = schema as Schema;
  if (Array.isArray(s.enum)) return s.enum[0];
  if (s.const !== undefined) return s.const;
  const alts = s.anyOf ?? s.oneOf;
  if (alts?.length) {
    for (const a of alts.filter((x) => x.type !== "null")) {
      const v = valid(name, a, ctx, depth);
      if (v !== SKIP) return v;
    }
    return SKIP;
  }
  const types = (Array.isArray(s.type) ? s.type : s.type ? [s.type] : []).filter((t) => t !== "null");
  const type = types[0] ?? (s.properties ? "object" : undefined);
  switch (type) {
    case "string": {
      if (typeof s.pattern === "string" && s.pattern.includes("\\d{4}-")) return day(-30);
      const text = `fuzz ${ctx.fresh()}`;
      const max = typeof s.maxLength === "number" ? s.maxLength : 100;
      return text.slice(0, max).padEnd(typeof s.minLength === "number" ? s.minLength : 0, "x");
    }
    case "integer":
    case "number": {
      const min = typeof s.minimum === "number" ? s.minimum : -Infinity;
      const max = typeof s.maximum === "number" ? s.maximum : Infinity;
      return 1 >= min && 1 <= max ? 1 : min;
    }
    case "boolean":
      return true;
    case "array": {
      const item = valid(`${name}[]`, s.items as JsonSchema | undefined, ctx, depth + 1);
      return item === SKIP ? [] : [item];
    }
    case "object":
      return objectOf(s, ctx, "all", depth + 1) ?? SKIP;
    default:
      return SKIP;
  }
}

/**
 * Which fields a candidate fills in: all it can, all but the lists of ids
 * (which may already belong elsewhere), or only the required ones.
 */
type Fill = "all" | "no-id-lists" | "required";
const FILLS: Fill[] = ["all", "no-id-lists", "required"];

/** An object of valid fields, as `fill` says; undefined if a required one has no value. */
function objectOf(s: Schema, ctx: Ctx, fill: Fill, depth = 0): Record<string, unknown> | undefined {
  const requiredOnly = fill === "required";
  const props = (s.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set(s.required ?? []);
  if (Object.keys(props).length === 0 && s.additionalProperties !== false && depth <= 1)
    // A free object (metadata): one key of each kind of value.
    return { fuzz_text: "seed", fuzz_number: 12, fuzz_flag: true };
  const out: Record<string, unknown> = {};
  for (const [name, p] of Object.entries(props)) {
    if (requiredOnly && !required.has(name)) continue;
    if (fill === "no-id-lists" && !required.has(name) && /_ids$|^add$/.test(name)) continue;
    const v = valid(name, p, ctx, depth);
    if (v === SKIP) {
      if (required.has(name)) return undefined;
      continue;
    }
    out[name] = v;
  }
  return out;
}

const pathOf = (url: string, params: Record<string, string>) =>
  url.replace(/:(\w+)/g, (_, p: string) => encodeURIComponent(params[p] ?? ""));

function queryString(pairs: [string, string][]) {
  return pairs.map(([k, v]) => `${encodeURIComponent(k)}=${encodeURIComponent(v)}`).join("&");
}

/** The bytes of a well-formed REST request with the full_access key. */
export function restSeedBytes(seed: Omit<RestSeed, "queryNames">, port: number, key: string): Buffer {
  const q = queryString(seed.query);
  const target = pathOf(seed.route.url, seed.params) + (q ? `?${q}` : "");
  const body = seed.body === undefined ? null : Buffer.from(JSON.stringify(seed.body), "utf8");
  const head = [
    `${seed.route.method} ${target} HTTP/1.1`,
    `host: 127.0.0.1:${port}`,
    "connection: close",
    `x-api-key: ${key}`,
    ...(body ? ["content-type: application/json", `content-length: ${body.length}`] : []),
  ];
  const h = Buffer.from(`${head.join("\r\n")}\r\n\r\n`, "latin1");
  return body ? Buffer.concat([h, body]) : h;
}

/** Strings an answer hands out that a later request needs, by field name. */
function collectFound(v: unknown, found: Map<string, string>) {
  if (Array.isArray(v)) v.forEach((x) => collectFound(x, found));
  else if (v && typeof v === "object")
    for (const [k, x] of Object.entries(v)) {
      if (typeof x === "string" && ["device_code", "user_code", "fingerprint"].includes(k)) found.set(k, x);
      if (typeof x === "string" && k === "setup_url") {
        const token = new URL(x, "http://x").searchParams.get("token");
        if (token) found.set("token", token);
      }
      collectFound(x, found);
    }
}

async function readRefs(target: FuzzTarget): Promise<Refs> {
  const em = () => target.stack.orm.em.fork();
  const col = async (sql: string) => (await query<{ v: string }>(em(), sql)).map((r) => r.v);
  return {
    users: await col(`select id::text as v from users order by id limit 4`),
    accounts: await col(`select id::text as v from accounts order by id limit 4`),
    transactions: await col(`select id::text as v from transactions where deleted_at is null order by id limit 6`),
    "categories.slug": await col(`select slug as v from categories order by id limit 4`),
    categories: await col(`select id::text as v from categories order by id limit 4`),
    "tags.slug": await col(`select slug as v from tags order by id limit 4`),
    tags: await col(`select id::text as v from tags order by id limit 4`),
    counterparties: await col(`select id::text as v from counterparties order by id limit 4`),
    series: await col(`select id::text as v from series order by id limit 4`),
    reports: await col(`select id::text as v from reports order by id limit 4`),
    rules: await col(`select id::text as v from rules order by id limit 4`),
    connections: await col(`select id::text as v from connections order by id limit 4`),
    "webhook-events": await col(`select id::text as v from webhook_events order by id limit 4`),
    "api-keys": await col(
      `select id::text as v from api_keys where name not in ('test admin', 'test reader') order by id limit 4`,
    ),
    providers: ["csv"],
  };
}

/**
 * The order seeds are looked for in: routes without path parameters first
 * (the ones that create what others name), writes before reads, and the
 * sign-in routes after the routes that make a login and its setup token.
 */
function stage(r: RestRoute): number {
  // After the login routes make a login (and before one is deleted).
  if (/\/auth\/(setup|login|session|logout)$/.test(r.url)) return 1.7;
  const params = r.url.includes(":") ? 1 : 0;
  return params + (r.method === "GET" ? 0.5 : r.method === "DELETE" ? 0.8 : 0);
}

/** A route whose seed needs another route's answer just before (a fresh device code, a fresh setup token). */
const PREPARE: Record<string, string> = {
  "POST /api/v1/auth/device-code/approve": "POST /api/v1/auth/device-code",
  "POST /api/v1/auth/device-code/deny": "POST /api/v1/auth/device-code",
  "POST /api/v1/auth/device-code/poll": "POST /api/v1/auth/device-code",
  "GET /api/v1/auth/setup": "POST /api/v1/users/:id/login/reset-password",
  "POST /api/v1/auth/setup": "POST /api/v1/users/:id/login/reset-password",
};

/** A route that removes or merges away the resource its last path parameter names. */
const destroys = (r: RestRoute) => (r.method === "DELETE" || /\/merge$/.test(r.url)) && /:\w+(\/merge)?$/.test(r.url);

/** The collection URL a destructive route's resource was created on: "/x/:id" → "/x"; "/x/:id/merge" → "/x". */
const collectionOf = (url: string) => url.replace(/\/merge$/, "").replace(/\/:\w+$/, "");

/**
 * Finds a seed for every REST route and MCP tool. Routes that destroy what
 * they name run last, each on a resource made for it just before by the
 * route that creates such resources (so no other seed loses its ids).
 */
export async function findSeeds(target: FuzzTarget): Promise<Seeds> {
  const refs = await readRefs(target);
  const found = new Map<string, string>();
  let counter = 0;
  const fresh = () => ++counter;
  const ctx = (where: string): Ctx => ({ refs, found, where, fresh });
  const rest: RestSeed[] = [];
  const missing: string[] = [];
  const byRoute = new Map<string, RestSeed>();
  target.recordMessages(true);

  const send = async (seed: Omit<RestSeed, "queryNames">) => {
    const res = await sendHttp1(target.restPort, restSeedBytes(seed, target.restPort, target.keys.full));
    let json: unknown;
    try {
      json = res.body.length ? JSON.parse(res.body.toString("utf8")) : undefined;
    } catch {
      json = undefined;
    }
    return { status: res.status, json };
  };

  /** Tries the route's candidates; the first 2xx is its seed (and its answer). */
  const attempt = async (route: RestRoute, params: Record<string, string>) => {
    const where = `${route.method} ${route.url}`;
    const qs = route.doc?.querystring;
    const bs = route.doc?.body;
    let last = "no candidate";
    for (const fill of FILLS) {
      const c = ctx(where);
      const q = qs ? objectOf(qs, c, fill) : {};
      const body = route.rawBody || !bs ? undefined : objectOf(bs, c, fill);
      if (q === undefined || (bs && !route.rawBody && body === undefined)) continue;
      const query = Object.entries(q).flatMap(([k, v]) =>
        (Array.isArray(v) ? v : [v]).map((x) => [k, typeof x === "string" ? x : JSON.stringify(x)] as [string, string]),
      );
      const seed = { route, params, query, body };
      const res = await send(seed);
      if (res.status >= 200 && res.status < 300) {
        collectFound(res.json, found);
        learn(route, seed, res.json);
        return { seed, json: res.json };
      }
      const e = (res.json as { error?: { code?: string; message?: string } } | undefined)?.error;
      last = `${res.status} ${e?.code ?? ""} ${e?.message?.slice(0, 100) ?? ""}`.trim();
    }
    return { seed: undefined, last };
  };

  /**
   * What a 2xx taught: a resource created on a collection ("POST /x", "POST
   * /transactions/:id/comments") joins the ids of its kind, after the ones
   * already there (so the demo's rows stay first), and a login's email is kept.
   */
  const learn = (route: RestRoute, seed: Omit<RestSeed, "queryNames">, json: unknown) => {
    const id = (json as { id?: unknown } | undefined)?.id;
    const segment = route.url.split("/").at(-1)!;
    if (route.method === "POST" && !segment.startsWith(":") && typeof id === "string") (refs[segment] ??= []).push(id);
    const email = (seed.body as { email?: unknown } | undefined)?.email;
    if (/\/login$/.test(route.url) && typeof email === "string") found.set("login_email", email);
  };

  /** Real values for the route's path parameters (but the last, when `butLast`: a destructive route's own). */
  const paramsFor = (route: RestRoute, butLast = false): Record<string, string> | undefined => {
    const out: Record<string, string> = {};
    const parts = route.url.split("/");
    const lastAt = parts.map((p) => p.startsWith(":")).lastIndexOf(true);
    for (let i = 0; i < parts.length; i++) {
      if (!parts[i].startsWith(":") || (butLast && i === lastAt)) continue;
      const v = refs[parts[i - 1]]?.[0];
      if (v === undefined) return undefined;
      out[parts[i].slice(1)] = v;
    }
    return out;
  };

  const keep = (route: RestRoute, seed: Omit<RestSeed, "queryNames">) => {
    const names = Object.keys(route.doc?.querystring?.properties ?? {});
    const s = { ...seed, queryNames: names.filter((n) => n !== "cursor") };
    rest.push(s);
    byRoute.set(`${route.method} ${route.url}`, s);
  };

  const ordinary = target.routes
    .filter((r) => !destroys(r) && !/\/restore$/.test(r.url))
    .sort((a, b) => stage(a) - stage(b));
  const last = target.routes.filter((r) => destroys(r) || /\/restore$/.test(r.url));
  for (const route of ordinary) {
    const params = paramsFor(route);
    const before = PREPARE[`${route.method} ${route.url}`];
    if (before) {
      const prep = target.routes.find((r) => `${r.method} ${r.url}` === before)!;
      await attempt(prep, paramsFor(prep) ?? {});
    }
    const r = params ? await attempt(route, params) : { seed: undefined, last: "no ids for its path" };
    if (r.seed) keep(route, r.seed);
    else missing.push(`rest ${route.method} ${route.url}: ${r.last}`);
  }
  for (const route of last) {
    const params = paramsFor(route, destroys(route));
    if (!params) {
      missing.push(`rest ${route.method} ${route.url}: no ids for its path`);
      continue;
    }
    const lastParam = /:(\w+)(?:\/merge)?$/.exec(route.url)?.[1];
    if (/\/restore$/.test(route.url)) {
      // Restores what the seed of DELETE /x/:id deleted.
      const del = byRoute.get(`DELETE ${route.url.replace(/\/restore$/, "")}`);
      if (del) Object.assign(params, del.params);
    } else if (lastParam) {
      const collection = collectionOf(route.url);
      const creator =
        target.routes.find((r) => r.method === "POST" && r.url === collection) ??
        target.routes.find((r) => r.method === "PUT" && r.url === collection);
      if (creator) {
        const made = await attempt(creator, paramsFor(creator) ?? {});
        const json = made.json as Record<string, unknown> | undefined;
        const body = made.seed?.body;
        // An id comes from the answer; a slug or a key from what was sent.
        const v = /id$/.test(lastParam) ? json?.id : (body?.[lastParam] ?? (body ? Object.keys(body)[0] : undefined));
        if (typeof v === "string") params[lastParam] = v;
      } else if (refs[route.url.split("/").at(-2) ?? ""]?.length) {
        // Nothing creates these (transactions): the last of the pool, which no other seed names.
        params[lastParam] = refs[route.url.split("/").at(-2)!].at(-1)!;
      }
    }
    const r = await attempt(route, params);
    if (r.seed) keep(route, r.seed);
    else missing.push(`rest ${route.method} ${route.url}: ${r.last} (${JSON.stringify(params)})`);
  }

  const mcp = await findMcpSeeds(target, ctx, missing);
  await target.settle();
  target.recordMessages(false);
  const core = dedupeCore(target.takeMessages());
  return { rest, mcp, core, missing };
}

function inputSchemaOf(tool: ToolDef): Schema | undefined {
  try {
    return z.toJSONSchema(tool.input, { target: "draft-7", io: "input" });
  } catch {
    return undefined;
  }
}

/** A tools/call of one tool with the full_access key: its status, and its result when the tool succeeded. */
export async function callTool(target: FuzzTarget, name: string, args: unknown, key = target.keys.full) {
  const body = Buffer.from(
    JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/call", params: { name, arguments: args } }),
    "utf8",
  );
  const head = [
    "POST /mcp HTTP/1.1",
    `host: 127.0.0.1:${target.mcpPort}`,
    "connection: close",
    "content-type: application/json",
    "accept: application/json, text/event-stream",
    `x-api-key: ${key}`,
    `content-length: ${body.length}`,
  ];
  const res = await sendHttp1(target.mcpPort, Buffer.concat([Buffer.from(`${head.join("\r\n")}\r\n\r\n`), body]));
  let result: { isError?: boolean; structuredContent?: unknown; content?: { text?: string }[] } | undefined;
  try {
    result = (JSON.parse(res.body.toString("utf8")) as { result?: typeof result }).result;
  } catch {
    result = undefined;
  }
  return { status: res.status, ok: res.status === 200 && !!result && !result.isError, result };
}

async function findMcpSeeds(target: FuzzTarget, ctx: (where: string) => Ctx, missing: string[]): Promise<McpSeed[]> {
  const out: McpSeed[] = [];
  // Deleting tools run last, on a resource their creating tool makes just before.
  const tools = [...allTools].sort((a, b) => Number(/^delete_/.test(a.name)) - Number(/^delete_/.test(b.name)));
  for (const tool of tools) {
    const schema = inputSchemaOf(tool);
    let seeded = false;
    let last = "no candidate";
    for (const fill of FILLS) {
      const c = ctx(tool.name);
      const args = schema ? objectOf(schema, c, fill) : {};
      if (!args) continue;
      if (/^delete_/.test(tool.name)) {
        const creator = allTools.find((t) => t.name === tool.name.replace(/^delete_/, "create_"));
        const made = creator ? await callTool(target, creator.name, objectOf(inputSchemaOf(creator)!, c, "all")) : null;
        const id = (made?.result?.structuredContent as { id?: unknown } | undefined)?.id;
        if (typeof id === "string") args.id = id;
      }
      const res = await callTool(target, tool.name, args);
      if (res.ok) {
        out.push({ tool, args });
        seeded = true;
        break;
      }
      last = `${res.status}${res.result?.isError ? ` ${res.result.content?.[0]?.text?.slice(0, 80) ?? ""}` : ""}`;
    }
    if (!seeded) missing.push(`mcp ${tool.name}: ${last}`);
  }
  return out;
}

/** One recorded message per core method (the first), as Connect JSON. */
function dedupeCore(messages: { method: DescMethod; json: JsonValue }[]): CoreSeed[] {
  const seen = new Map<string, CoreSeed>();
  for (const m of messages) {
    const key = `${m.method.parent.typeName}/${m.method.name}`;
    if (!seen.has(key)) seen.set(key, m);
  }
  return [...seen.values()];
}

/** Connect JSON of a message the gateways sent (for the recording transport). */
export const messageJson = (method: DescMethod, message: Parameters<typeof toJson>[1]): JsonValue =>
  toJson(method.input, message);
