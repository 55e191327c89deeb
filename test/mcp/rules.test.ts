import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertApiKey } from "../../services/auth/api-keys.js";
import { query } from "../../services/db/sql.js";
import { newAccount, newTransactions, newUser } from "../helpers/ledger.js";
import { startStack, type Stack } from "../helpers/stack.js";

// The rule tools through a real MCP client over Streamable HTTP: each parameter of the four read
// tools as SPEC gives them (defaults, limits, outputs), and the write tools.

let s: Stack;
let admin: Client;
let agent: Client;
let reader: Client;
let txShortId: string;

async function connect(url: URL, key: string): Promise<Client> {
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { "X-API-Key": key } } }));
  return client;
}

type Result = { isError?: boolean; structuredContent?: Record<string, any>; content: { type: string; text: string }[] };
const call = async (client: Client, name: string, args: Record<string, unknown> = {}) =>
  (await client.callTool({ name, arguments: args })) as Result;
const ok = async (client: Client, name: string, args: Record<string, unknown> = {}) => {
  const r = await call(client, name, args);
  expect(r.isError, r.content[0]?.text).toBeFalsy();
  return r.structuredContent!;
};
function error(r: Result): { code: string; message: string } {
  expect(r.isError).toBe(true);
  return (JSON.parse(r.content[0].text) as { error: { code: string; message: string } }).error;
}

/** The SPEC's rule fields, and short_id after id: a rule is the REST rule on every surface. */
const SPEC_FIELDS = [
  "id",
  "short_id",
  "name",
  "conditions",
  "actions",
  "trigger",
  "category_slug",
  "category_display_name",
  "priority",
  "enabled",
  "hit_count",
  "last_hit_at",
  "created_by_type",
  "created_by_id",
  "created_by_name",
  "created_at",
  "updated_at",
];
const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;
const SUMMARY = ["name", "enabled", "priority", "trigger", "category", "hit_count", "last_hit_at"];

beforeAll(async () => {
  s = await startStack();
  await s.mcp.listen({ port: 0, host: "127.0.0.1" });
  const url = new URL(`http://127.0.0.1:${(s.mcp.server.address() as AddressInfo).port}/mcp`);
  const em = s.orm.em.fork();
  const agentKey = (await insertApiKey(em, { name: "claude", scope: "full_access", actorType: "agent" })).plaintext;
  [admin, agent, reader] = await Promise.all([
    connect(url, s.adminKey),
    connect(url, agentKey),
    connect(url, s.readKey),
  ]);
  await query(em, `delete from rules`);
  const account = await newAccount(em, (await newUser(em)).id);
  const [t] = await newTransactions(em, account.id, [
    {
      providerName: "BLUE BOTTLE COFFEE 9",
      providerMerchantName: "Blue Bottle Coffee",
      amount: "6.00",
      date: "2026-04-02",
    },
    { providerName: "SHELL OIL 123", amount: "50.00", date: "2026-04-01", providerCategoryPrimary: "TRANSPORTATION" },
  ]);
  [{ short_id: txShortId }] = await query<{ short_id: string }>(em, `select short_id from transactions where id = ?`, [
    t,
  ]);
  // 55 rules: more than the default page of 50.
  for (let i = 0; i < 55; i++) {
    await ok(i % 5 === 0 ? agent : admin, "create_transaction_rule", {
      name: i === 0 ? "Coffee shops" : i === 1 ? "Fuel" : `Filler ${String(i).padStart(2, "0")}`,
      conditions:
        i === 0
          ? { field: "provider_merchant_name", op: "contains", value: "coffee" }
          : i === 1
            ? { field: "provider_name", op: "matches", value: "^SHELL" }
            : { field: "provider_name", op: "eq", value: `filler ${i}` },
      actions:
        i === 0
          ? [{ type: "set_category", category_slug: "food_and_drink_coffee" }]
          : i === 1
            ? [{ type: "set_category", category_slug: "transportation_fuel" }]
            : [{ type: "flag" }],
      priority: i,
      trigger: i === 2 ? "on_create" : i === 3 ? "on_update" : undefined,
      enabled: i !== 4,
    });
  }
  await query(em, `update rules set hit_count = 9, last_hit_at = '2026-04-03Z' where name = 'Fuel'`);
});
afterAll(async () => {
  await Promise.all([admin, agent, reader].map((c) => c?.close()));
  await s?.close();
});

describe("rule tools: listing", () => {
  it("lists the eight rule tools; write tools point at list_transaction_rules and preview_rule first", async () => {
    const { tools } = await reader.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const name of ["list_transaction_rules", "query_transaction_rules", "preview_rule", "find_matching_rules"]) {
      expect(byName.get(name)?.annotations?.readOnlyHint, name).toBe(true);
    }
    for (const name of [
      "create_transaction_rule",
      "update_transaction_rule",
      "delete_transaction_rule",
      "apply_rule",
    ]) {
      expect(byName.get(name)?.annotations?.readOnlyHint, name).toBe(false);
    }
    expect(byName.get("create_transaction_rule")!.description).toMatch(/list_transaction_rules.*preview_rule/s);
    expect(byName.get("update_transaction_rule")!.description).toMatch(/preview_rule/);
    expect(byName.get("list_transaction_rules")!.description).toMatch(/before creating a rule/);
    expect(byName.get("preview_rule")!.inputSchema.required).toEqual(["conditions"]);
    expect(Object.keys(byName.get("list_transaction_rules")!.inputSchema.properties!)).toEqual([
      "category_slug",
      "enabled",
      "search",
      "search_mode",
      "limit",
      "cursor",
    ]);
    expect(Object.keys(byName.get("query_transaction_rules")!.inputSchema.properties!).sort()).toEqual(
      [
        "category_slug",
        "enabled",
        "trigger",
        "creator_type",
        "search",
        "search_mode",
        "min_hit_count",
        "only_unused",
        "sort_by",
        "sort_order",
        "limit",
        "cursor",
        "fields",
      ].sort(),
    );
  });
});

describe("list_transaction_rules", () => {
  it("returns {rules, next_cursor, has_more, total}: 50 by default, each the REST rule (UUID id)", async () => {
    const r = await ok(reader, "list_transaction_rules");
    expect(Object.keys(r)).toEqual(["rules", "next_cursor", "has_more", "total"]);
    expect(r.rules).toHaveLength(50);
    expect(r).toMatchObject({ has_more: true, total: 55, next_cursor: expect.any(String) });
    expect(Object.keys(r.rules[0])).toEqual(SPEC_FIELDS);
    expect(r.rules[0]).toMatchObject({
      id: expect.stringMatching(UUID),
      short_id: expect.stringMatching(/^[0-9A-Za-z]{8}$/),
      name: "Coffee shops",
      category_slug: "food_and_drink_coffee",
      category_display_name: "Coffee",
      trigger: "always",
      created_by_type: "agent",
      created_by_name: "claude",
    });
    // The same page as GET /api/v1/rules, rule for rule.
    const restPage = await s.rest.inject({ method: "GET", url: "/api/v1/rules", headers: { "x-api-key": s.readKey } });
    expect(r.rules).toEqual(restPage.json().rules);
    const rest = await ok(reader, "list_transaction_rules", { cursor: r.next_cursor });
    expect(rest).toMatchObject({ has_more: false, next_cursor: "", total: 55 });
    expect(rest.rules).toHaveLength(5);
  });

  it("filters by category_slug, enabled, search (comma-ORed) and search_mode; limit up to 500", async () => {
    const names = async (args: Record<string, unknown>) =>
      (await ok(reader, "list_transaction_rules", { limit: 500, ...args })).rules.map((x: { name: string }) => x.name);
    expect(await names({ category_slug: "transportation_fuel" })).toEqual(["Fuel"]);
    expect(await names({ enabled: false })).toEqual(["Filler 04"]);
    expect(await names({ enabled: true })).toHaveLength(54);
    expect(await names({ search: "coffee, FUEL" })).toEqual(["Coffee shops", "Fuel"]);
    expect(await names({ search: "shop", search_mode: "words" })).toEqual([]);
    expect(await names({ search: "shops", search_mode: "words" })).toEqual(["Coffee shops"]);
    expect(await names({ search: "cofee shop", search_mode: "fuzzy" })).toEqual(["Coffee shops"]);
    expect((await ok(reader, "list_transaction_rules", { limit: 2 })).rules).toHaveLength(2);
    for (const args of [{ limit: 501 }, { limit: 0 }, { search_mode: "regex" }, { category_slug: "Not A Slug" }]) {
      expect(error(await call(reader, "list_transaction_rules", args)).code).toBe("INVALID_PARAMETER");
    }
  });
});

describe("query_transaction_rules", () => {
  it("returns the summary projection by default, `all` or chosen fields on request", async () => {
    const r = await ok(reader, "query_transaction_rules", { limit: 1 });
    expect(Object.keys(r)).toEqual(["rules", "next_cursor", "has_more", "total"]);
    expect(r.rules).toEqual([
      {
        name: "Coffee shops",
        enabled: true,
        priority: 0,
        trigger: "always",
        category: "food_and_drink_coffee",
        hit_count: 0,
        last_hit_at: null,
      },
    ]);
    expect(Object.keys(r.rules[0])).toEqual(SUMMARY);
    const all = (await ok(reader, "query_transaction_rules", { limit: 1, fields: "all" })).rules[0];
    expect(Object.keys(all)).toEqual(SPEC_FIELDS);
    const restRule = await s.rest.inject({
      method: "GET",
      url: `/api/v1/rules/${all.short_id}`,
      headers: { "x-api-key": s.readKey },
    });
    expect(all).toEqual(restRule.json());
    expect(
      (await ok(reader, "query_transaction_rules", { limit: 1, fields: "short_id, conditions" })).rules[0],
    ).toEqual({
      short_id: expect.stringMatching(/^[0-9A-Za-z]{8}$/),
      conditions: { field: "provider_merchant_name", op: "contains", value: "coffee" },
    });
    expect(error(await call(reader, "query_transaction_rules", { fields: "id,colour" })).code).toBe(
      "INVALID_PARAMETER",
    );
  });

  it("filters by trigger (on_update = on_change), creator_type, min_hit_count and only_unused", async () => {
    const names = async (args: Record<string, unknown>) =>
      (await ok(reader, "query_transaction_rules", { limit: 500, ...args })).rules.map((x: { name: string }) => x.name);
    expect(await names({ trigger: "on_create" })).toEqual(["Filler 02"]);
    expect(await names({ trigger: "on_update" })).toEqual(["Filler 03"]);
    expect(await names({ trigger: "on_change" })).toEqual(["Filler 03"]);
    expect(await names({ trigger: "always" })).toHaveLength(53);
    expect(await names({ creator_type: "agent" })).toHaveLength(11);
    expect(await names({ creator_type: "system" })).toEqual([]);
    expect(await names({ min_hit_count: 1 })).toEqual(["Fuel"]);
    expect(await names({ only_unused: true })).toHaveLength(54);
    expect(await names({ only_unused: true, min_hit_count: 5 })).toHaveLength(54);
    expect(await names({ category_slug: "food_and_drink_coffee", enabled: true, search: "coffee" })).toEqual([
      "Coffee shops",
    ]);
    for (const args of [{ trigger: "hourly" }, { creator_type: "bot" }, { min_hit_count: -1 }, { sort_by: "size" }]) {
      expect(error(await call(reader, "query_transaction_rules", args)).code).toBe("INVALID_PARAMETER");
    }
  });

  it("priority paginates; an explicit sort_by is one top-N page with per-column default order", async () => {
    const byHits = await ok(reader, "query_transaction_rules", { sort_by: "hit_count", limit: 2 });
    expect(byHits.rules.map((x: { name: string }) => x.name)).toEqual(["Fuel", "Coffee shops"]);
    expect(byHits).toMatchObject({ next_cursor: "", has_more: true, total: 55 });
    const byName = await ok(reader, "query_transaction_rules", { sort_by: "name", limit: 1 });
    expect(byName.rules[0].name).toBe("Coffee shops");
    const byNameDesc = await ok(reader, "query_transaction_rules", { sort_by: "name", sort_order: "desc", limit: 1 });
    expect(byNameDesc.rules[0].name).toBe("Fuel");
    const newest = await ok(reader, "query_transaction_rules", { sort_by: "created_at", limit: 1 });
    expect(newest.rules[0].name).toBe("Filler 54");
    const lastHit = await ok(reader, "query_transaction_rules", { sort_by: "last_hit_at", limit: 1 });
    expect(lastHit.rules[0].name).toBe("Fuel");
    const byPriority = await ok(reader, "query_transaction_rules", {
      sort_by: "priority",
      sort_order: "desc",
      limit: 1,
    });
    expect(byPriority.rules[0].name).toBe("Filler 54");
    expect(byPriority.next_cursor).not.toBe("");
    const next = await ok(reader, "query_transaction_rules", {
      sort_by: "priority",
      sort_order: "desc",
      limit: 1,
      cursor: byPriority.next_cursor,
    });
    expect(next.rules[0].name).toBe("Filler 53");
    const cursor = (await ok(reader, "query_transaction_rules", { limit: 1 })).next_cursor;
    expect(error(await call(reader, "query_transaction_rules", { sort_by: "name", cursor })).code).toBe(
      "INVALID_CURSOR",
    );
  });
});

describe("preview_rule", () => {
  it("returns match_count, total_scanned and up to sample_size matches (default 10, max 50)", async () => {
    const r = await ok(reader, "preview_rule", { conditions: { field: "amount", op: "gt", value: 1 } });
    expect(r).toEqual({
      match_count: 2,
      total_scanned: 2,
      sample_matches: [
        {
          transaction_id: txShortId,
          date: "2026-04-02",
          amount: 6,
          name: "Blue Bottle Coffee",
          category_primary_raw: "",
          current_category_slug: "uncategorized",
        },
        expect.objectContaining({ date: "2026-04-01", amount: 50, category_primary_raw: "TRANSPORTATION" }),
      ],
    });
    // POST /api/v1/rules/preview's answer.
    const rest = await s.rest.inject({
      method: "POST",
      url: "/api/v1/rules/preview",
      headers: { "x-api-key": s.readKey },
      payload: { conditions: { field: "amount", op: "gt", value: 1 } },
    });
    expect(r).toEqual(rest.json());
    expect((await ok(reader, "preview_rule", { conditions: {}, sample_size: 1 })).sample_matches).toHaveLength(1);
    expect(error(await call(reader, "preview_rule", { conditions: {}, sample_size: 51 })).code).toBe(
      "INVALID_PARAMETER",
    );
    expect(error(await call(reader, "preview_rule", {})).message).toBe("conditions is required");
    expect(
      error(await call(reader, "preview_rule", { conditions: { field: "amount", op: "contains", value: "1" } })),
    ).toEqual({
      code: "VALIDATION_ERROR",
      message: 'conditions: operator "contains" is not valid for numeric field "amount"',
    });
  });
});

describe("find_matching_rules", () => {
  it("merchant or transaction id → {matched_count, rules} by priority; sets_category only when set", async () => {
    const m = await ok(reader, "find_matching_rules", { merchant: "Blue Bottle Coffee" });
    expect(m).toEqual({
      matched_count: 1,
      rules: [
        {
          short_id: expect.stringMatching(/^[0-9A-Za-z]{8}$/),
          name: "Coffee shops",
          sets_category: "food_and_drink_coffee",
          trigger: "always",
          priority: 0,
          enabled: true,
          hit_count: 0,
          match_all: false,
        },
      ],
    });
    expect(await ok(reader, "find_matching_rules", { transaction_id: txShortId })).toEqual(m);
    // GET /api/v1/rules/find-matching's answer.
    const rest = await s.rest.inject({
      method: "GET",
      url: "/api/v1/rules/find-matching?merchant=Blue%20Bottle%20Coffee",
      headers: { "x-api-key": s.readKey },
    });
    expect(m).toEqual(rest.json());
    expect(await ok(reader, "find_matching_rules", { merchant: "Nobody" })).toEqual({ matched_count: 0, rules: [] });
    const flagAll = await ok(admin, "create_transaction_rule", {
      name: "Flag all",
      conditions: {},
      actions: [{ type: "flag" }],
    });
    const withAll = await ok(reader, "find_matching_rules", { merchant: "Nobody" });
    expect(withAll).toEqual({
      matched_count: 0,
      rules: [expect.objectContaining({ name: "Flag all", match_all: true })],
    });
    expect(withAll.rules[0].sets_category).toBeUndefined();
    await ok(admin, "delete_transaction_rule", { id: flagAll.rule.id });
  });

  it("needs exactly one of transaction_id and merchant", async () => {
    expect(error(await call(reader, "find_matching_rules", {})).code).toBe("INVALID_PARAMETER");
    expect(error(await call(reader, "find_matching_rules", { merchant: "x", transaction_id: txShortId })).code).toBe(
      "INVALID_PARAMETER",
    );
    expect(error(await call(reader, "find_matching_rules", { transaction_id: "Nope1234" })).code).toBe("NOT_FOUND");
  });
});

describe("rule write tools", () => {
  it("create, update, apply and delete a rule; a read_only key may not", async () => {
    const created = await ok(agent, "create_transaction_rule", {
      name: "Coffee is business",
      conditions: { field: "category", op: "eq", value: "food_and_drink_coffee" },
      actions: [{ type: "set_metadata", key: "purpose", value: "business" }],
      trigger: "always",
      priority: 200,
    });
    expect(Object.keys(created.rule)).toEqual(SPEC_FIELDS);
    expect(created.rule).toMatchObject({ name: "Coffee is business", priority: 200, created_by_type: "agent" });
    const updated = await ok(agent, "update_transaction_rule", {
      id: created.rule.id,
      conditions: { field: "provider_merchant_name", op: "contains", value: "bottle" },
    });
    expect(updated.rule).toMatchObject({ id: created.rule.id, priority: 200, conditions: { value: "bottle" } });
    // The rule the write tools return is GET /api/v1/rules/{id}'s, and the short id names it too.
    expect(created.rule.id).toMatch(UUID);
    const restRule = await s.rest.inject({
      method: "GET",
      url: `/api/v1/rules/${created.rule.short_id}`,
      headers: { "x-api-key": s.readKey },
    });
    expect(updated.rule).toEqual(restRule.json());
    expect(
      (await ok(agent, "update_transaction_rule", { id: created.rule.short_id, name: "Coffee is business" })).rule,
    ).toEqual({ ...restRule.json(), updated_at: expect.any(String) });
    expect(
      await ok(agent, "apply_rule", { id: created.rule.id, start_date: "2026-04-01", end_date: "2026-05-01" }),
    ).toEqual({
      matched: 1,
      changed: 1,
    });
    expect(await ok(agent, "delete_transaction_rule", { id: created.rule.short_id })).toEqual({
      deleted: true,
      id: created.rule.id,
      short_id: created.rule.short_id,
    });
    expect(error(await call(agent, "delete_transaction_rule", { id: created.rule.id })).code).toBe("NOT_FOUND");
    expect(
      error(await call(reader, "create_transaction_rule", { name: "x", conditions: {}, actions: [{ type: "flag" }] }))
        .code,
    ).toBe("INSUFFICIENT_SCOPE");
    expect(error(await call(reader, "apply_rule", { id: "Nope1234" })).code).toBe("INSUFFICIENT_SCOPE");
    expect(
      error(
        await call(agent, "create_transaction_rule", {
          name: "x",
          conditions: { or: [] },
          actions: [{ type: "flag" }],
        }),
      ),
    ).toEqual({ code: "VALIDATION_ERROR", message: "conditions: or must list at least one condition" });
  });
});
