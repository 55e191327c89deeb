import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { query } from "../../../services/db/sql.js";
import { valueOf } from "../../../gateways/shared/rules.js";
import { expectCoreError, withKey } from "../../helpers/core-error.js";
import { categoryId, newAccount, newTransactions, newUser } from "../../helpers/ledger.js";
import { resetRules, txRow } from "../../helpers/rules.js";
import { startStack, type Stack } from "../../helpers/stack.js";

// find_matching_rules (both modes) and retroactive apply (one rule, all rules) through the core.

let s: Stack;
let admin: ReturnType<typeof withKey>;
let accountId: string;

beforeAll(async () => {
  s = await startStack();
  admin = withKey(s.adminKey);
  const em = s.orm.em.fork();
  accountId = (await newAccount(em, (await newUser(em)).id)).id;
  for (const slug of ["business", "coffee_run"]) await s.core.tags.createTag({ slug }, admin);
});
afterAll(async () => {
  await s?.close();
});
beforeEach(async () => {
  await resetRules(s.orm.em.fork());
});

const rule = async (body: {
  name: string;
  conditions: unknown;
  actions?: unknown;
  priority?: number;
  trigger?: string;
  enabled?: boolean;
}) =>
  (
    await s.core.rules.createRule(
      {
        name: body.name,
        conditions: valueOf(body.conditions),
        actions: valueOf(body.actions ?? [{ type: "add_tag", tag_slug: "business" }]),
        priority: body.priority,
        trigger: body.trigger,
        enabled: body.enabled,
      },
      admin,
    )
  ).rule!;

const shortIdOf = async (id: string) =>
  (await query<{ short_id: string }>(s.orm.em.fork(), `select short_id from transactions where id = ?`, [id]))[0]
    .short_id;

describe("find_matching_rules", () => {
  it("merchant: only name fields are known; conditionless rules are listed (match_all), not counted", async () => {
    await query(s.orm.em.fork(), `update rules set enabled = true where created_by_type = 'system'`);
    await rule({
      name: "Coffee",
      priority: 20,
      conditions: { field: "provider_merchant_name", op: "contains", value: "coffee" },
      actions: [{ type: "set_category", category_slug: "food_and_drink_coffee" }],
    });
    await rule({
      name: "Coffee by name",
      priority: 10,
      trigger: "on_create",
      conditions: { field: "provider_name", op: "matches", value: "(?i)bottle" },
    });
    await rule({
      name: "Big coffee",
      conditions: {
        and: [
          { field: "provider_name", op: "contains", value: "coffee" },
          { field: "amount", op: "gt", value: 20 },
        ],
      },
    });
    await rule({
      name: "Coffee or big",
      conditions: {
        or: [
          { field: "provider_name", op: "contains", value: "coffee" },
          { field: "amount", op: "gt", value: 20 },
        ],
      },
    });
    await rule({ name: "Not tagged", conditions: { not: { field: "tags", op: "contains", value: "business" } } });
    await rule({
      name: "Disabled coffee",
      enabled: false,
      conditions: { field: "provider_name", op: "contains", value: "coffee" },
    });
    await rule({ name: "Tea", conditions: { field: "provider_name", op: "contains", value: "tea" } });
    const r = await s.core.rules.findMatchingRules({ merchant: "Blue Bottle Coffee" }, withKey(s.readKey));
    expect(r.rules.map((x) => [x.name, x.matchAll])).toEqual([
      ["Mark new transactions for review", true],
      ["Coffee by name", false],
      ["Coffee", false],
      ["Coffee or big", false],
    ]);
    expect(r.matchedCount).toBe(3);
    expect(r.rules[2]).toMatchObject({
      setsCategory: "food_and_drink_coffee",
      trigger: "always",
      priority: 20,
      enabled: true,
      hitCount: 0n,
    });
    expect(r.rules[1].setsCategory).toBeUndefined();
    expect(r.rules[1].trigger).toBe("on_create");
    expect((await s.core.rules.findMatchingRules({ merchant: "Corner Tea House" }, admin)).matchedCount).toBe(1);
    expect((await s.core.rules.findMatchingRules({ merchant: "Hardware" }, admin)).matchedCount).toBe(0);
  });

  it("with a transaction (UUID or short id): every active rule judged on the row's real values", async () => {
    await rule({
      name: "Coffee",
      priority: 5,
      conditions: { field: "provider_name", op: "contains", value: "coffee" },
    });
    await rule({
      name: "Big coffee",
      priority: 6,
      conditions: {
        and: [
          { field: "provider_name", op: "contains", value: "coffee" },
          { field: "amount", op: "gt", value: 20 },
        ],
      },
    });
    await rule({ name: "Small", priority: 7, conditions: { field: "amount", op: "lt", value: 5 } });
    await rule({
      name: "Tagged",
      priority: 8,
      trigger: "on_change",
      conditions: { field: "tags", op: "contains", value: "coffee_run" },
    });
    const tagId = (await query<{ id: string }>(s.orm.em.fork(), `select id from tags where slug = 'coffee_run'`))[0].id;
    const [t] = await newTransactions(s.orm.em.fork(), accountId, [
      { providerName: "BLUE BOTTLE COFFEE", amount: "25.00", tagIds: [tagId] },
    ]);
    for (const id of [t, await shortIdOf(t)]) {
      const r = await s.core.rules.findMatchingRules({ transactionId: id }, admin);
      expect(r.rules.map((x) => x.name)).toEqual(["Coffee", "Big coffee", "Tagged"]);
      expect(r.matchedCount).toBe(3);
    }
    await query(s.orm.em.fork(), `update transactions set deleted_at = now() where id = ?`, [t]);
    await expectCoreError(s.core.rules.findMatchingRules({ transactionId: t }, admin), "NOT_FOUND");
    await expectCoreError(s.core.rules.findMatchingRules({ transactionId: "Nope1234" }, admin), "NOT_FOUND");
  });

  it("needs exactly one of transaction_id and merchant", async () => {
    const both = await expectCoreError(
      s.core.rules.findMatchingRules({ transactionId: "Abcd1234", merchant: "x" }, admin),
      "INVALID_PARAMETER",
    );
    expect(both.message).toBe("give exactly one of transaction_id and merchant, not both");
    const neither = await expectCoreError(s.core.rules.findMatchingRules({}, admin), "INVALID_PARAMETER");
    expect(neither.message).toMatch(/^give exactly one of transaction_id/);
    await expectCoreError(s.core.rules.findMatchingRules({ merchant: "   " }, admin), "INVALID_PARAMETER");
  });
});

describe("retroactive apply", () => {
  it("applies one rule to stored transactions in a date range; counts hits, keeps the category lock", async () => {
    const groceries = await categoryId(s.orm.em.fork(), "food_and_drink_groceries");
    const ids = await newTransactions(s.orm.em.fork(), accountId, [
      { providerName: "APPLYTEST MARKET", date: "2026-02-01" },
      { providerName: "APPLYTEST MARKET", date: "2026-02-10" },
      { providerName: "APPLYTEST MARKET", date: "2026-03-01" },
      { providerName: "APPLYTEST MARKET", date: "2026-02-05", categoryId: groceries, categorySource: "user" },
      { providerName: "OTHER", date: "2026-02-05" },
    ]);
    const r = await rule({
      name: "Market",
      enabled: false,
      trigger: "on_create",
      conditions: { field: "provider_name", op: "contains", value: "applytest" },
      actions: [{ type: "set_category", category_slug: "food_and_drink_coffee" }],
    });
    const res = await s.core.rules.applyRule({ id: r.shortId, startDate: "2026-02-01", endDate: "2026-03-01" }, admin);
    expect({ matched: res.matched, changed: res.changed }).toEqual({ matched: 3n, changed: 2n });
    const rows = await Promise.all(ids.map((id) => txRow(s.orm.em.fork(), id)));
    expect(rows.map((x) => [x.category, x.category_source])).toEqual([
      ["food_and_drink_coffee", "rule"],
      ["food_and_drink_coffee", "rule"],
      ["uncategorized", null],
      ["food_and_drink_groceries", "user"],
      ["uncategorized", null],
    ]);
    const after = (await s.core.rules.getRule({ id: r.id }, admin)).rule!;
    expect(after.hitCount).toBe(3n);
    expect(after.lastHitAt).toBeDefined();
    const notes = await query<{ action: string; details: Record<string, unknown> }>(
      s.orm.em.fork(),
      `select action, details from annotations where entity_id = ? order by created_at`,
      [r.id],
    );
    expect(notes.at(-1)).toEqual({
      action: "applied",
      details: { name: "Market", start_date: "2026-02-01", end_date: "2026-03-01", matched: 3, changed: 2 },
    });
    // Again: the same matches, nothing left to change.
    const again = await s.core.rules.applyRule({ id: r.id, startDate: "2026-02-01", endDate: "2026-03-01" }, admin);
    expect({ matched: again.matched, changed: again.changed }).toEqual({ matched: 3n, changed: 0n });
  });

  it("refuses a bad range and an unknown rule", async () => {
    const r = await rule({ name: "x", conditions: {} });
    for (const range of [
      { startDate: "2026-02-30" },
      { startDate: "2026-03-01", endDate: "2026-03-01" },
      { endDate: "yesterday" },
    ]) {
      await expectCoreError(s.core.rules.applyRule({ id: r.id, ...range }, admin), "VALIDATION_ERROR");
    }
    await expectCoreError(s.core.rules.applyRule({ id: "Nope1234" }, admin), "NOT_FOUND");
  });

  it("apply-all runs the enabled on_change and always rules in pipeline order, not on_create ones", async () => {
    const [t] = await newTransactions(s.orm.em.fork(), accountId, [
      { providerName: "ALLTEST SHOP", date: "2025-06-01" },
    ]);
    await rule({
      name: "create only",
      trigger: "on_create",
      conditions: { field: "provider_name", op: "contains", value: "alltest" },
      actions: [{ type: "add_tag", tag_slug: "coffee_run" }],
    });
    await rule({
      name: "first",
      priority: 1,
      trigger: "on_change",
      conditions: { field: "provider_name", op: "contains", value: "alltest" },
      actions: [{ type: "set_category", category_slug: "travel_flights" }],
    });
    await rule({ name: "second", priority: 2, conditions: { field: "category", op: "eq", value: "travel_flights" } });
    await rule({
      name: "off",
      enabled: false,
      conditions: { field: "provider_name", op: "contains", value: "alltest" },
      actions: [{ type: "flag" }],
    });
    const res = await s.core.rules.applyAllRules({ startDate: "2025-06-01", endDate: "2025-06-02" }, admin);
    expect({ matched: res.matched, changed: res.changed }).toEqual({ matched: 1n, changed: 1n });
    expect(await txRow(s.orm.em.fork(), t)).toMatchObject({ category: "travel_flights", tags: ["business"] });
    const again = await s.core.rules.applyAllRules({ startDate: "2025-06-01", endDate: "2025-06-02" }, admin);
    expect(again.changed).toBe(0n);
  });
});
