import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertApiKey } from "../../services/auth/api-keys.js";
import { query } from "../../services/db/sql.js";
import { newAccount, newTransactions, newUser } from "../helpers/ledger.js";
import { expectEnvelope, key } from "../helpers/rest.js";
import { startStack, type Stack } from "../helpers/stack.js";

// The rules over REST: every route, the query parameters of GET /api/v1/rules (the same names as
// query_transaction_rules), and errors in the envelope.

let s: Stack;
let agentKey: string;
let txShortId: string;

beforeAll(async () => {
  s = await startStack();
  agentKey = (await insertApiKey(s.orm.em.fork(), { name: "bot", scope: "full_access", actorType: "agent" })).plaintext;
  const em = s.orm.em.fork();
  const account = await newAccount(em, (await newUser(em)).id);
  const [t] = await newTransactions(em, account.id, [
    {
      providerName: "BLUE BOTTLE COFFEE 1",
      providerMerchantName: "Blue Bottle Coffee",
      amount: "4.50",
      date: "2026-02-01",
    },
    { providerName: "SAFEWAY 22", amount: "80.00", date: "2026-02-02", providerCategoryPrimary: "FOOD" },
  ]);
  [{ short_id: txShortId }] = await query<{ short_id: string }>(em, `select short_id from transactions where id = ?`, [
    t,
  ]);
  await s.rest.inject({ method: "POST", url: "/api/v1/tags", headers: key(s.adminKey), payload: { slug: "business" } });
});
afterAll(async () => {
  await s?.close();
});

type Method = "GET" | "POST" | "PATCH" | "DELETE";
const req = (method: Method, url: string, payload?: unknown, apiKey = s.adminKey) =>
  s.rest.inject({ method, url, headers: key(apiKey), payload: payload as object });

const coffee = { field: "provider_merchant_name", op: "contains", value: "coffee" };
const newRule = async (body: Record<string, unknown>, apiKey = s.adminKey) => {
  const r = await req("POST", "/api/v1/rules", { conditions: coffee, actions: [{ type: "flag" }], ...body }, apiKey);
  expect(r.statusCode, r.body).toBe(201);
  return r.json();
};

describe("rules over REST", () => {
  it("POST (201) → the rule with id (UUID), short_id and SPEC's fields; GET by either id", async () => {
    const r = await newRule({
      name: "Coffee shops",
      actions: [{ type: "set_category", category_slug: "food_and_drink_coffee" }],
      priority: 10,
    });
    expect(r).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      short_id: expect.stringMatching(/^[0-9A-Za-z]{8}$/),
      name: "Coffee shops",
      conditions: coffee,
      actions: [{ type: "set_category", category_slug: "food_and_drink_coffee" }],
      trigger: "always",
      category_slug: "food_and_drink_coffee",
      category_display_name: "Coffee",
      priority: 10,
      enabled: true,
      hit_count: 0,
      last_hit_at: null,
      created_by_type: "user",
      created_by_id: expect.stringMatching(/^[0-9A-Za-z]{8}$/),
      created_by_name: "test admin",
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
    });
    for (const id of [r.id, r.short_id])
      expect((await req("GET", `/api/v1/rules/${id}`, undefined, s.readKey)).json()).toEqual(r);
    expectEnvelope(await req("GET", "/api/v1/rules/Nope1234"), "NOT_FOUND");
    expectEnvelope(await req("GET", "/api/v1/rules/not-an-id"), "NOT_FOUND");
  });

  it("a bad tree is 400 VALIDATION_ERROR naming the node; a bad body field is INVALID_PARAMETER", async () => {
    expectEnvelope(
      await req("POST", "/api/v1/rules", { name: "x", conditions: "coffee", actions: [{ type: "flag" }] }),
      "VALIDATION_ERROR",
      "conditions: a condition must be an object, got a string",
    );
    expectEnvelope(
      await req("POST", "/api/v1/rules", {
        name: "x",
        conditions: { and: [coffee, { or: [{ field: "provider_name", op: "gt", value: 3 }] }] },
        actions: [{ type: "flag" }],
      }),
      "VALIDATION_ERROR",
      'and[1].or[0]: operator "gt" is not valid for string field "provider_name"',
    );
    expectEnvelope(
      await req("POST", "/api/v1/rules", {
        name: "x",
        conditions: {},
        actions: [{ type: "add_tag", tag_slug: "zzz" }],
      }),
      "VALIDATION_ERROR",
      /^actions\[0\]: unknown tag_slug "zzz"/,
    );
    expectEnvelope(await req("POST", "/api/v1/rules", { name: 5, conditions: {}, actions: [] }), "INVALID_PARAMETER");
    expectEnvelope(
      await req("POST", "/api/v1/rules", { name: "x", conditions: {}, actions: [], extra: 1 }),
      "INVALID_PARAMETER",
    );
    expectEnvelope(
      await req("POST", "/api/v1/rules", { name: "x", conditions: {}, actions: [{ type: "flag" }] }, s.readKey),
      "INSUFFICIENT_SCOPE",
    );
  });

  it("PATCH changes the fields given; enable, disable; DELETE answers 204", async () => {
    const r = await newRule({ name: "To change" });
    const patched = await req("PATCH", `/api/v1/rules/${r.short_id}`, {
      name: "Changed",
      trigger: "on_update",
      priority: 3,
    });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toMatchObject({ name: "Changed", trigger: "on_change", priority: 3, conditions: coffee });
    expect((await req("POST", `/api/v1/rules/${r.id}/disable`)).json().enabled).toBe(false);
    expect((await req("POST", `/api/v1/rules/${r.id}/enable`)).json().enabled).toBe(true);
    expectEnvelope(
      await req("PATCH", `/api/v1/rules/${r.id}`, { conditions: { not: [] } }),
      "VALIDATION_ERROR",
      "not: a condition must be an object, got an array",
    );
    const del = await req("DELETE", `/api/v1/rules/${r.id}`);
    expect(del.statusCode).toBe(204);
    expect(del.body).toBe("");
    expectEnvelope(await req("DELETE", `/api/v1/rules/${r.id}`), "NOT_FOUND");
  });

  it("GET /api/v1/rules: {rules, next_cursor, has_more, total} with query_transaction_rules's parameters", async () => {
    await newRule({ name: "Agent rule", trigger: "on_create", enabled: false }, agentKey);
    const all = await req("GET", "/api/v1/rules", undefined, s.readKey);
    expect(all.statusCode).toBe(200);
    expect(Object.keys(all.json())).toEqual(["rules", "next_cursor", "has_more", "total"]);
    const body = all.json();
    expect(body.total).toBe(body.rules.length);
    const q = async (qs: string) => {
      const r = await req("GET", `/api/v1/rules?${qs}`);
      expect(r.statusCode, r.body).toBe(200);
      return r.json();
    };
    const names = async (qs: string) => (await q(qs)).rules.map((r: { name: string }) => r.name);
    expect(await names("category_slug=food_and_drink_coffee")).toEqual(["Coffee shops"]);
    expect(await names("enabled=false")).toEqual(["Agent rule"]);
    expect(await names("trigger=on_create&creator_type=agent")).toEqual(["Agent rule"]);
    expect(await names("trigger=on_update")).toEqual([]);
    expect(await names("creator_type=system")).toEqual(["Mark new transactions for review"]);
    expect(await names("search=coffee,agent&search_mode=contains")).toEqual(["Coffee shops", "Agent rule"]);
    expect(await names("search=shops&search_mode=words")).toEqual(["Coffee shops"]);
    expect(await names("search=cofee&search_mode=fuzzy")).toEqual(["Coffee shops"]);
    expect(await names("min_hit_count=1")).toEqual([]);
    expect((await names("only_unused=true&min_hit_count=1")).length).toBe(body.total);
    expect(await names("sort_by=name&sort_order=asc&limit=2")).toEqual(["Agent rule", "Coffee shops"]);
    const top = await q("sort_by=created_at&limit=1");
    expect(top).toMatchObject({ next_cursor: "", has_more: true, total: body.total });
    expect(top.rules[0].name).toBe("Agent rule");
    const page1 = await q("limit=1");
    expect(page1.has_more).toBe(true);
    const page2 = await q(`limit=1&cursor=${page1.next_cursor}`);
    expect(page2.rules[0].id).not.toBe(page1.rules[0].id);
    expectEnvelope(
      await req("GET", `/api/v1/rules?limit=1&enabled=true&cursor=${page1.next_cursor}`),
      "INVALID_CURSOR",
    );
    const projected = await q("fields=short_id,name,category&sort_by=name&limit=1");
    expect(projected.rules).toEqual([{ short_id: expect.any(String), name: "Agent rule", category: "" }]);
    for (const bad of [
      "limit=0",
      "limit=501",
      "trigger=hourly",
      "creator_type=robot",
      "sort_by=x",
      "sort_order=up",
      "min_hit_count=-1",
      "search_mode=regex",
      "fields=nope",
      "what=1",
    ]) {
      expectEnvelope(await req("GET", `/api/v1/rules?${bad}`), "INVALID_PARAMETER");
    }
  });

  it("POST /api/v1/rules/preview → {match_count, total_scanned, sample_matches}", async () => {
    const r = await req("POST", "/api/v1/rules/preview", { conditions: coffee }, s.readKey);
    expect(r.statusCode).toBe(200);
    expect(r.json()).toEqual({
      match_count: 1,
      total_scanned: 2,
      sample_matches: [
        {
          transaction_id: txShortId,
          date: "2026-02-01",
          amount: 4.5,
          name: "Blue Bottle Coffee",
          category_primary_raw: "",
          current_category_slug: "uncategorized",
        },
      ],
    });
    expect(
      (await req("POST", "/api/v1/rules/preview", { conditions: {}, sample_size: 1 })).json().sample_matches,
    ).toHaveLength(1);
    expectEnvelope(
      await req("POST", "/api/v1/rules/preview", { conditions: {}, sample_size: 51 }),
      "INVALID_PARAMETER",
    );
    expectEnvelope(
      await req("POST", "/api/v1/rules/preview", { conditions: [] }),
      "VALIDATION_ERROR",
      "conditions: a condition must be an object, got an array",
    );
  });

  it("GET /api/v1/rules/find-matching with transaction_id or merchant, never both", async () => {
    const byMerchant = await req(
      "GET",
      "/api/v1/rules/find-matching?merchant=Blue%20Bottle%20Coffee",
      undefined,
      s.readKey,
    );
    expect(byMerchant.statusCode).toBe(200);
    expect(byMerchant.json()).toEqual({
      matched_count: 1,
      rules: [
        {
          short_id: expect.any(String),
          name: "Mark new transactions for review",
          trigger: "on_create",
          priority: 0,
          enabled: true,
          hit_count: 0,
          match_all: true,
        },
        {
          short_id: expect.any(String),
          name: "Coffee shops",
          sets_category: "food_and_drink_coffee",
          trigger: "always",
          priority: 10,
          enabled: true,
          hit_count: 0,
          match_all: false,
        },
      ],
    });
    const byTx = (await req("GET", `/api/v1/rules/find-matching?transaction_id=${txShortId}`)).json();
    expect(byTx.matched_count).toBe(1);
    expectEnvelope(
      await req("GET", `/api/v1/rules/find-matching?transaction_id=${txShortId}&merchant=x`),
      "INVALID_PARAMETER",
    );
    expectEnvelope(await req("GET", "/api/v1/rules/find-matching"), "INVALID_PARAMETER");
  });

  it("POST /api/v1/rules/{id}/apply and /apply-all → {matched, changed}; the body is optional", async () => {
    const r = await newRule({ name: "Apply me", actions: [{ type: "add_tag", tag_slug: "business" }] });
    const applied = await req("POST", `/api/v1/rules/${r.short_id}/apply`);
    expect({ status: applied.statusCode, body: applied.json() }).toEqual({
      status: 200,
      body: { matched: 1, changed: 1 },
    });
    const ranged = await req("POST", `/api/v1/rules/${r.id}/apply`, { start_date: "2026-03-01" });
    expect(ranged.json()).toEqual({ matched: 0, changed: 0 });
    expect((await req("GET", `/api/v1/rules/${r.id}`)).json()).toMatchObject({
      hit_count: 1,
      last_hit_at: expect.stringMatching(/Z$/),
    });
    const all = await req("POST", "/api/v1/rules/apply-all", { end_date: "2026-12-31" });
    expect(all.statusCode).toBe(200);
    // "Coffee shops" (always) now categorizes the coffee; "Apply me" already tagged it.
    expect(all.json()).toEqual({ matched: 1, changed: 1 });
    expect((await req("POST", "/api/v1/rules/apply-all")).json()).toEqual({ matched: 1, changed: 0 });
    expectEnvelope(await req("POST", `/api/v1/rules/${r.id}/apply`, { start_date: "01/02/2026" }), "INVALID_PARAMETER");
    expectEnvelope(await req("POST", "/api/v1/rules/apply-all", {}, s.readKey), "INSUFFICIENT_SCOPE");
  });
});
