import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ListRulesRequest } from "../../../gen/coffer/v1/rules_pb.js";
import { insertApiKey } from "../../../services/auth/api-keys.js";
import { query } from "../../../services/db/sql.js";
import { valueOf } from "../../../gateways/shared/rules.js";
import { expectCoreError, withKey } from "../../helpers/core-error.js";
import { startStack, type Stack } from "../../helpers/stack.js";

// ListRules: every parameter of query_transaction_rules, the priority keyset pages, top-N sorts.

let s: Stack;
let admin: ReturnType<typeof withKey>;
let agent: ReturnType<typeof withKey>;

interface Spec {
  name: string;
  priority?: number;
  trigger?: string;
  enabled?: boolean;
  category?: string;
  hits?: number;
  lastHit?: string;
  byAgent?: boolean;
}

/** The rule set every test reads (the built-in rule is removed first). */
const SPECS: Spec[] = [
  { name: "Coffee shops", priority: 10, category: "food_and_drink_coffee", hits: 40, lastHit: "2026-03-01" },
  { name: "Coffee beans online", priority: 10, category: "food_and_drink_coffee", hits: 2, lastHit: "2026-01-01" },
  { name: "Groceries", priority: 20, category: "food_and_drink_groceries", hits: 100, lastHit: "2026-02-01" },
  { name: "Tag big purchases", priority: 30, trigger: "on_create", hits: 0 },
  { name: "Flag refunds", priority: 30, trigger: "on_change", enabled: false, hits: 5, lastHit: "2025-12-24" },
  { name: "Taxi rides", priority: 40, category: "transportation_taxi_and_rideshare", byAgent: true, hits: 0 },
  { name: "Rent", priority: 5, category: "rent_and_utilities_rent", hits: 12, lastHit: "2026-03-02" },
  { name: "Streaming subscriptions", priority: 50, enabled: false, hits: 0, byAgent: true },
];
const ids = new Map<string, string>();

beforeAll(async () => {
  s = await startStack();
  admin = withKey(s.adminKey);
  agent = withKey(
    (await insertApiKey(s.orm.em.fork(), { name: "bot", scope: "full_access", actorType: "agent" })).plaintext,
  );
  await query(s.orm.em.fork(), `delete from rules`);
  for (const spec of SPECS) {
    const r = await s.core.rules.createRule(
      {
        name: spec.name,
        conditions: valueOf({ field: "provider_name", op: "contains", value: spec.name.split(" ")[0] }),
        actions: valueOf(spec.category ? [{ type: "set_category", category_slug: spec.category }] : [{ type: "flag" }]),
        trigger: spec.trigger,
        priority: spec.priority,
        enabled: spec.enabled,
      },
      spec.byAgent ? agent : admin,
    );
    ids.set(spec.name, r.rule!.id);
    await query(s.orm.em.fork(), `update rules set hit_count = ?, last_hit_at = ?::timestamptz where id = ?`, [
      spec.hits ?? 0,
      spec.lastHit ?? null,
      r.rule!.id,
    ]);
  }
});
afterAll(async () => {
  await s?.close();
});

const list = (req: Omit<Partial<ListRulesRequest>, "$typeName"> = {}) => s.core.rules.listRules(req, admin);
const names = async (req: Omit<Partial<ListRulesRequest>, "$typeName"> = {}) =>
  (await list(req)).rules.map((r) => r.name);

const PRIORITY_ORDER = [
  "Rent",
  "Coffee shops",
  "Coffee beans online",
  "Groceries",
  "Tag big purchases",
  "Flag refunds",
  "Taxi rides",
  "Streaming subscriptions",
];

describe("ListRules filters", () => {
  it("lists every rule in pipeline order (priority, then older first) with the total", async () => {
    const r = await list();
    expect(r.rules.map((x) => x.name)).toEqual(PRIORITY_ORDER);
    expect({ next: r.nextCursor, more: r.hasMore, total: r.total }).toEqual({ next: "", more: false, total: 8n });
  });

  it("category_slug: rules whose set_category sets it; an unknown slug is INVALID_PARAMETER", async () => {
    expect(await names({ categorySlug: "food_and_drink_coffee" })).toEqual(["Coffee shops", "Coffee beans online"]);
    expect(await names({ categorySlug: "travel" })).toEqual([]);
    const f = await expectCoreError(list({ categorySlug: "no_such" }), "INVALID_PARAMETER");
    expect(f.message).toBe('category_slug: no category "no_such"');
  });

  it("enabled: true, false, or both when left out", async () => {
    expect(await names({ enabled: false })).toEqual(["Flag refunds", "Streaming subscriptions"]);
    expect((await names({ enabled: true })).length).toBe(6);
  });

  it("trigger, with on_update meaning on_change", async () => {
    expect(await names({ trigger: "on_create" })).toEqual(["Tag big purchases"]);
    expect(await names({ trigger: "on_change" })).toEqual(["Flag refunds"]);
    expect(await names({ trigger: "on_update" })).toEqual(["Flag refunds"]);
    expect((await names({ trigger: "always" })).length).toBe(6);
    await expectCoreError(list({ trigger: "hourly" }), "INVALID_PARAMETER");
  });

  it("creator_type", async () => {
    expect(await names({ creatorType: "agent" })).toEqual(["Taxi rides", "Streaming subscriptions"]);
    expect((await names({ creatorType: "user" })).length).toBe(6);
    expect(await names({ creatorType: "system" })).toEqual([]);
    await expectCoreError(list({ creatorType: "robot" }), "INVALID_PARAMETER");
  });

  it("search: contains (default), comma-separated terms ORed, words, fuzzy", async () => {
    expect(await names({ search: "coffee" })).toEqual(["Coffee shops", "Coffee beans online"]);
    expect(await names({ search: "rent, TAXI" })).toEqual(["Rent", "Taxi rides"]);
    expect(await names({ search: "bean" })).toEqual(["Coffee beans online"]);
    expect(await names({ search: "bean", searchMode: "words" })).toEqual([]);
    expect(await names({ search: "beans coffee", searchMode: "words" })).toEqual(["Coffee beans online"]);
    expect(await names({ search: "grocerys", searchMode: "fuzzy" })).toEqual(["Groceries"]);
    await expectCoreError(list({ search: "x", searchMode: "regex" }), "INVALID_PARAMETER");
  });

  it("min_hit_count, and only_unused (which ignores min_hit_count)", async () => {
    expect(await names({ minHitCount: 12n })).toEqual(["Rent", "Coffee shops", "Groceries"]);
    expect(await names({ minHitCount: 0n })).toHaveLength(8);
    expect(await names({ onlyUnused: true })).toEqual(["Tag big purchases", "Taxi rides", "Streaming subscriptions"]);
    expect(await names({ onlyUnused: true, minHitCount: 50n })).toEqual(await names({ onlyUnused: true }));
    expect(await names({ onlyUnused: false, minHitCount: 50n })).toEqual(["Groceries"]);
    await expectCoreError(list({ minHitCount: -1n }), "INVALID_PARAMETER");
  });

  it("combines filters", async () => {
    expect(await names({ enabled: true, creatorType: "user", minHitCount: 1n, search: "coffee,rent" })).toEqual([
      "Rent",
      "Coffee shops",
      "Coffee beans online",
    ]);
  });

  it("limit: default 50, 1 to 500, 0 means the default", async () => {
    expect(await names({ limit: 0 })).toHaveLength(8);
    expect(await names({ limit: 500 })).toHaveLength(8);
    for (const limit of [-1, 501]) await expectCoreError(list({ limit }), "INVALID_PARAMETER");
  });
});

describe("ListRules sorting", () => {
  it.each([
    ["hit_count", "", ["Groceries", "Coffee shops", "Rent", "Flag refunds", "Coffee beans online"]],
    ["hit_count", "asc", ["Tag big purchases", "Taxi rides", "Streaming subscriptions", "Coffee beans online"]],
    ["last_hit_at", "", ["Rent", "Coffee shops", "Groceries", "Coffee beans online", "Flag refunds"]],
    ["last_hit_at", "asc", ["Tag big purchases", "Taxi rides", "Streaming subscriptions", "Flag refunds"]],
    ["name", "", ["Coffee beans online", "Coffee shops", "Flag refunds", "Groceries"]],
    ["name", "desc", ["Taxi rides", "Tag big purchases", "Streaming subscriptions", "Rent"]],
    ["created_at", "", ["Streaming subscriptions", "Rent", "Taxi rides", "Flag refunds"]],
    ["created_at", "asc", ["Coffee shops", "Coffee beans online", "Groceries", "Tag big purchases"]],
    ["priority", "desc", ["Streaming subscriptions", "Taxi rides", "Flag refunds", "Tag big purchases"]],
  ])("sort_by %s %s", async (sortBy, sortOrder, first) => {
    const r = await list({ sortBy, sortOrder, limit: first.length });
    expect(r.rules.map((x) => x.name).slice(0, first.length)).toEqual(first);
  });

  it("sort_by other than priority: one top-N page, no cursor; has_more says rules were left out", async () => {
    const r = await list({ sortBy: "hit_count", limit: 3 });
    expect(r.rules.map((x) => x.name)).toEqual(["Groceries", "Coffee shops", "Rent"]);
    expect({ next: r.nextCursor, more: r.hasMore, total: r.total }).toEqual({ next: "", more: true, total: 8n });
    const all = await list({ sortBy: "name", limit: 8 });
    expect({ next: all.nextCursor, more: all.hasMore }).toEqual({ next: "", more: false });
    const page1 = await list({ limit: 3 });
    const f = await expectCoreError(list({ sortBy: "name", cursor: page1.nextCursor }), "INVALID_CURSOR");
    expect(f.message).toMatch(/^sort_by=name returns a single page and takes no cursor/);
    await expectCoreError(list({ sortBy: "importance" }), "INVALID_PARAMETER");
    await expectCoreError(list({ sortOrder: "up" }), "INVALID_PARAMETER");
  });
});

async function pageAll(req: Omit<Partial<ListRulesRequest>, "$typeName">): Promise<string[]> {
  const seen: string[] = [];
  let cursor = "";
  for (let i = 0; i < 50; i++) {
    const r = await list({ ...req, cursor });
    seen.push(...r.rules.map((x) => x.name));
    expect(r.total).toBe(BigInt((await list({ ...req, limit: 500, cursor: "" })).rules.length));
    if (!r.hasMore) {
      expect(r.nextCursor).toBe("");
      return seen;
    }
    expect(r.nextCursor).toMatch(/^[A-Za-z0-9_-]+$/);
    cursor = r.nextCursor;
  }
  throw new Error("pagination did not end");
}

describe("ListRules pagination (priority keyset)", () => {
  it("pages through every rule once, in order, with any page size and in both directions", async () => {
    for (const limit of [1, 2, 3, 7]) expect(await pageAll({ limit })).toEqual(PRIORITY_ORDER);
    expect(await pageAll({ limit: 3, sortOrder: "desc" })).toEqual([...PRIORITY_ORDER].reverse());
    expect(await pageAll({ limit: 1, enabled: true, sortBy: "priority" })).toEqual(
      PRIORITY_ORDER.filter((n) => n !== "Flag refunds" && n !== "Streaming subscriptions"),
    );
  });

  it("breaks ties of priority and creation time by id, so equal rules are neither skipped nor repeated", async () => {
    const em = s.orm.em.fork();
    const saved = await query<{ id: string; created_at: string }>(
      em,
      `select id, created_at::text from rules where priority = 30`,
    );
    await query(em, `update rules set created_at = '2026-01-01T00:00:00Z' where priority = 30`);
    try {
      const ties = await pageAll({ limit: 1 });
      expect(new Set(ties).size).toBe(8);
      const byId = [ids.get("Tag big purchases")!, ids.get("Flag refunds")!].sort();
      const expected = byId.map((id) => [...ids].find(([, v]) => v === id)![0]);
      expect(ties.slice(4, 6)).toEqual(expected);
      expect(await pageAll({ limit: 1, sortOrder: "desc" })).toEqual([...ties].reverse());
    } finally {
      for (const r of saved)
        await query(em, `update rules set created_at = ?::timestamptz where id = ?`, [r.created_at, r.id]);
    }
  });

  it("does not repeat or skip rules when rules are added before the cursor meanwhile", async () => {
    const page1 = await list({ limit: 4 });
    const early = await s.core.rules.createRule(
      { name: "Added early", conditions: valueOf({}), actions: valueOf([{ type: "flag" }]), priority: 1 },
      admin,
    );
    try {
      const page2 = await list({ limit: 10, cursor: page1.nextCursor });
      expect([...page1.rules, ...page2.rules].map((r) => r.name)).toEqual(PRIORITY_ORDER);
    } finally {
      await s.core.rules.deleteRule({ id: early.rule!.id }, admin);
    }
  });

  it("refuses a cursor used with other filters, altered, malformed, or whose rule was deleted", async () => {
    const page1 = await list({ limit: 2, enabled: true });
    const other = await expectCoreError(list({ limit: 2, enabled: false, cursor: page1.nextCursor }), "INVALID_CURSOR");
    expect(other.message).toMatch(/different filters or sort/);
    await expectCoreError(
      list({ limit: 2, enabled: true, sortOrder: "desc", cursor: page1.nextCursor }),
      "INVALID_CURSOR",
    );
    await expectCoreError(list({ cursor: "not a cursor" }), "INVALID_CURSOR");
    const decoded = JSON.parse(Buffer.from(page1.nextCursor, "base64url").toString()) as Record<string, unknown>;
    const altered = Buffer.from(JSON.stringify({ ...decoded, d: "1|2026-01-01T00:00:00.000000" })).toString(
      "base64url",
    );
    expect(
      (await expectCoreError(list({ limit: 2, enabled: true, cursor: altered }), "INVALID_CURSOR")).message,
    ).toMatch(/altered/);
    const last = page1.rules[1];
    const temp = await s.core.rules.createRule(
      { name: "Temporary", conditions: valueOf({}), actions: valueOf([{ type: "flag" }]), priority: 8 },
      admin,
    );
    const page = await list({ limit: 2, cursor: "" });
    expect(page.rules.map((r) => r.name)).toEqual(["Rent", "Temporary"]);
    await s.core.rules.deleteRule({ id: temp.rule!.id }, admin);
    const gone = await expectCoreError(list({ limit: 2, cursor: page.nextCursor }), "INVALID_CURSOR");
    expect(gone.message).toMatch(/no longer exists/);
    expect(last.name).toBe("Coffee shops");
  });
});
