import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { closeOrm, openOrm, type Orm } from "../../../services/db/orm.js";
import { query } from "../../../services/db/sql.js";
import { applyRulesOnSync } from "../../../services/rules/runner.js";
import { createTestDatabase } from "../../helpers/db.js";
import { categoryId, newAccount, newTransactions, newUser } from "../../helpers/ledger.js";
import { annotationsOf, newRule, resetRules, ruleRow, syncActor, txRow } from "../../helpers/rules.js";

// The sync-time pipeline, called as the sync engine calls it: transactions
// inserted through the importer path, then applyRulesOnSync in a transaction.

let orm: Orm;
let accountId: string;
const em = () => orm.em.fork();

beforeAll(async () => {
  orm = await openOrm(await createTestDatabase(), 3);
  accountId = (await newAccount(em(), (await newUser(em(), "Ann")).id, { name: "Everyday" })).id;
  await query(
    em(),
    `insert into tags (id, short_id, slug, display_name) values
       (gen_random_uuid(), 'tagCof01', 'coffee_run', 'Coffee run'),
       (gen_random_uuid(), 'tagBiz01', 'business', 'Business')`,
  );
});
afterAll(async () => {
  await closeOrm(orm);
});
beforeEach(async () => {
  await resetRules(em());
});

const insert = (items: Parameters<typeof newTransactions>[2]) => newTransactions(em(), accountId, items);
const sync = (created: string[], changed: string[] = []) =>
  em().transactional((tx) => applyRulesOnSync(tx, { created, changed }, syncActor));

describe("applyRulesOnSync", () => {
  it("the built-in rule tags each new transaction needs_review, and not a changed one", async () => {
    await query(em(), `update rules set enabled = true where created_by_type = 'system'`);
    const [a, b] = await insert([{ providerName: "SHOP A" }, { providerName: "SHOP B" }]);
    expect(await sync([a], [b])).toEqual({ matched: 1, changed: 1 });
    expect((await txRow(em(), a)).tags).toEqual(["needs_review"]);
    expect((await txRow(em(), b)).tags).toEqual([]);
    const [note] = await annotationsOf(em(), a);
    expect(note).toMatchObject({
      action: "tag_added",
      actor_name: "sync",
      details: { tag: "needs_review", rule_name: "Mark new transactions for review", rule_id: expect.any(String) },
    });
  });

  it.each([
    ["on_create", [true, false]],
    ["on_change", [false, true]],
    ["on_update", [false, true]],
    ["always", [true, true]],
  ] as const)("trigger %s fires for [created, changed] = %j", async (trigger, fires) => {
    await newRule(em(), { trigger, conditions: {}, actions: [{ type: "add_tag", tag_slug: "business" }] });
    const [created, changed] = await insert([{}, {}]);
    await sync([created], [changed]);
    expect([(await txRow(em(), created)).tags, (await txRow(em(), changed)).tags]).toEqual(
      fires.map((f) => (f ? ["business"] : [])),
    );
  });

  it("a transaction listed as created and changed counts as created", async () => {
    await newRule(em(), { trigger: "on_change", actions: [{ type: "add_tag", tag_slug: "business" }] });
    const [t] = await insert([{}]);
    expect(await sync([t], [t])).toEqual({ matched: 0, changed: 0 });
  });

  it("later rules see the category, tags, metadata and counterparty earlier rules set", async () => {
    const cp = await query<{ id: string; short_id: string }>(
      em(),
      `insert into counterparties (id, short_id, name) values (gen_random_uuid(), 'cpBlue01', 'Blue Bottle')
       returning id, short_id`,
    );
    await newRule(em(), {
      priority: 1,
      conditions: { field: "provider_merchant_name", op: "contains", value: "blue bottle" },
      actions: [{ type: "set_category", category_slug: "food_and_drink_coffee" }],
    });
    await newRule(em(), {
      priority: 2,
      conditions: { field: "category", op: "eq", value: "food_and_drink_coffee" },
      actions: [{ type: "add_tag", tag_slug: "coffee_run" }],
    });
    await newRule(em(), {
      priority: 3,
      conditions: { field: "tags", op: "contains", value: "coffee_run" },
      actions: [
        { type: "set_metadata", key: "habit", value: "caffeine" },
        { type: "assign_counterparty", counterparty_id: "cpBlue01" },
      ],
    });
    await newRule(em(), {
      name: "chained",
      priority: 4,
      conditions: {
        and: [
          { field: "metadata.habit", op: "eq", value: "CAFFEINE" },
          { field: "counterparty", op: "eq", value: "blue bottle" },
          { field: "has_counterparty", op: "eq", value: true },
        ],
      },
      actions: [{ type: "add_comment", content: "Chained all the way" }],
    });
    const [t, other] = await insert([
      { providerName: "BLUE BOTTLE COFFEE 123", providerMerchantName: "Blue Bottle Coffee" },
      { providerName: "HARDWARE STORE" },
    ]);
    expect(await sync([t, other])).toEqual({ matched: 1, changed: 1 });
    expect(await txRow(em(), t)).toEqual({
      category: "food_and_drink_coffee",
      category_source: "rule",
      tags: ["coffee_run"],
      metadata: { habit: "caffeine" },
      counterparty_id: cp[0].id,
    });
    const comments = await query<{ body: string; author_type: string; author_name: string }>(
      em(),
      `select body, author_type, author_name from comments where transaction_id = ?`,
      [t],
    );
    expect(comments).toEqual([{ body: "Chained all the way", author_type: "system", author_name: "rule: chained" }]);
    const notes = await annotationsOf(em(), t);
    expect(notes.map((n) => [n.action, n.details.rule_name])).toEqual([
      ["category_set", expect.any(String)],
      ["tag_added", expect.any(String)],
      ["metadata_set", expect.any(String)],
      ["counterparty_assigned", expect.any(String)],
      ["comment_added", expect.any(String)],
    ]);
    expect(notes[0].details).toMatchObject({ from: "uncategorized", to: "food_and_drink_coffee", source: "rule" });
    expect(notes[3].details).toMatchObject({ counterparty_id: "cpBlue01", counterparty_name: "Blue Bottle" });
    expect(await txRow(em(), other)).toMatchObject({ category: "uncategorized", tags: [] });
  });

  it("runs by priority ascending, a later set_category wins, and equal priorities run older first", async () => {
    const when = { field: "provider_name", op: "contains", value: "market" };
    const set = (slug: string) => [{ type: "set_category", category_slug: slug }];
    await newRule(em(), { priority: 50, conditions: when, actions: set("food_and_drink_restaurants") });
    const last = await newRule(em(), { priority: 200, conditions: when, actions: set("food_and_drink_groceries") });
    await newRule(em(), { priority: 100, conditions: when, actions: set("food_and_drink_coffee") });
    const [t] = await insert([{ providerName: "FARMERS MARKET" }]);
    await sync([t]);
    expect((await txRow(em(), t)).category).toBe("food_and_drink_groceries");
    const [note] = (await annotationsOf(em(), t)).filter((n) => n.action === "category_set");
    expect(note.details).toMatchObject({ from: "uncategorized", to: "food_and_drink_groceries" });
    expect((await ruleRow(em(), last)).hit_count).toBe(1);

    await resetRules(em());
    await newRule(em(), { name: "older", priority: 7, conditions: when, actions: set("travel_flights") });
    await newRule(em(), { name: "newer", priority: 7, conditions: when, actions: set("travel_lodging") });
    const [u] = await insert([{ providerName: "NIGHT MARKET" }]);
    await sync([u]);
    expect((await txRow(em(), u)).category).toBe("travel_lodging");
  });

  it("never overwrites a category a person or an agent chose; refines system and rule categories", async () => {
    await newRule(em(), {
      conditions: { field: "provider_name", op: "contains", value: "locktest" },
      actions: [
        { type: "set_category", category_slug: "food_and_drink_coffee" },
        { type: "add_tag", tag_slug: "business" },
      ],
    });
    const groceries = await categoryId(em(), "food_and_drink_groceries");
    const ids = await insert(
      (["user", "agent", "system", "rule"] as const).map((source) => ({
        providerName: `LOCKTEST ${source}`,
        categoryId: groceries,
        categorySource: source,
      })),
    );
    await sync([], ids);
    const rows = await Promise.all(ids.map((id) => txRow(em(), id)));
    expect(rows.map((r) => [r.category, r.category_source, r.tags])).toEqual([
      ["food_and_drink_groceries", "user", ["business"]],
      ["food_and_drink_groceries", "agent", ["business"]],
      ["food_and_drink_coffee", "rule", ["business"]],
      ["food_and_drink_coffee", "rule", ["business"]],
    ]);
  });

  it("counts one hit per matched transaction, in the caller's transaction; none for a rule that missed", async () => {
    const hit = await newRule(em(), {
      conditions: { field: "amount", op: "gt", value: 100 },
      actions: [{ type: "add_tag", tag_slug: "business" }],
    });
    const miss = await newRule(em(), {
      conditions: { field: "amount", op: "lt", value: -1000 },
      actions: [{ type: "add_tag", tag_slug: "business" }],
    });
    const matchOnly = await newRule(em(), {
      conditions: { field: "amount", op: "gt", value: 100 },
      actions: [{ type: "add_tag", tag_slug: "business" }],
    });
    const ids = await insert([{ amount: "150.00" }, { amount: "250.00" }, { amount: "5.00" }]);
    expect(await sync(ids)).toEqual({ matched: 2, changed: 2 });
    expect(await ruleRow(em(), hit)).toMatchObject({ hit_count: 2, last_hit_at: expect.any(String) });
    expect(await ruleRow(em(), miss)).toEqual({ hit_count: 0, last_hit_at: null });
    // It matched (a hit) even though the tag was already there (no change).
    expect((await ruleRow(em(), matchOnly)).hit_count).toBe(2);

    // A failing sync page rolls back the changes and the hit counts with it.
    const [t] = await insert([{ amount: "300.00" }]);
    await expect(
      em().transactional(async (tx) => {
        await applyRulesOnSync(tx, { created: [t], changed: [] }, syncActor);
        throw new Error("page failed");
      }),
    ).rejects.toThrow("page failed");
    expect((await ruleRow(em(), hit)).hit_count).toBe(2);
    expect((await txRow(em(), t)).tags).toEqual([]);
    expect(await annotationsOf(em(), t)).toEqual([]);
  });

  it("skips disabled rules, deleted transactions and unknown ids", async () => {
    await newRule(em(), { enabled: false, actions: [{ type: "add_tag", tag_slug: "business" }] });
    const [t, gone] = await insert([{}, {}]);
    await query(em(), `update transactions set deleted_at = now() where id = ?`, [gone]);
    expect(await sync([t, gone, crypto.randomUUID()])).toEqual({ matched: 0, changed: 0 });
    await newRule(em(), { actions: [{ type: "add_tag", tag_slug: "business" }] });
    expect(await sync([t, gone])).toEqual({ matched: 1, changed: 1 });
    expect((await txRow(em(), gone)).tags).toEqual([]);
  });

  it("removes tags and metadata, flags with a reason, and annotates each change with the rule", async () => {
    const biz = await query<{ id: string }>(em(), `select id from tags where slug = 'business'`);
    await newRule(em(), {
      name: "tidy",
      conditions: { field: "metadata.temp", op: "exists" },
      actions: [
        { type: "remove_tag", tag_slug: "business" },
        { type: "remove_metadata", key: "temp" },
        { type: "flag", reason: "check the receipt" },
      ],
    });
    const [t] = await insert([{ tagIds: [biz[0].id], metadata: { temp: 1, keep: "yes" } }]);
    await sync([t]);
    expect(await txRow(em(), t)).toMatchObject({ tags: ["flagged"], metadata: { keep: "yes" } });
    const notes = await annotationsOf(em(), t);
    expect(notes.map((n) => [n.action, n.details])).toEqual([
      ["tag_added", expect.objectContaining({ tag: "flagged", reason: "check the receipt", rule_name: "tidy" })],
      ["tag_removed", expect.objectContaining({ tag: "business", rule_name: "tidy" })],
      ["metadata_set", expect.objectContaining({ keys_set: [], keys_removed: ["temp"], rule_name: "tidy" })],
    ]);
    const [flagged] = await query<{ display_name: string }>(
      em(),
      `select display_name from tags where slug = 'flagged'`,
    );
    expect(flagged.display_name).toBe("Flagged");
  });

  it("skips a set_metadata that would break the metadata limits", async () => {
    await newRule(em(), { actions: [{ type: "set_metadata", key: "one_more", value: "x" }] });
    const full = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i]));
    const [t, roomy] = await insert([{ metadata: full }, { metadata: {} }]);
    expect(await sync([t, roomy])).toEqual({ matched: 2, changed: 1 });
    expect(Object.keys((await txRow(em(), t)).metadata)).toHaveLength(50);
    expect((await txRow(em(), roomy)).metadata).toEqual({ one_more: "x" });
  });

  it("never writes over a change made while it ran: such rows are read again, locked, and judged again", async () => {
    await newRule(em(), {
      conditions: { field: "provider_name", op: "contains", value: "racetest" },
      actions: [
        { type: "set_category", category_slug: "food_and_drink_coffee" },
        { type: "add_tag", tag_slug: "business" },
      ],
    });
    const [t] = await insert([{ providerName: "RACETEST SHOP" }]);
    const groceries = await categoryId(em(), "food_and_drink_groceries");
    // A person's edit holds the row while the sync reads it, then commits a category of their own.
    const person = orm.em.fork();
    let release!: () => void;
    const held = new Promise<void>((r) => (release = r));
    const edit = person.transactional(async (tx) => {
      await query(tx, `select id from transactions where id = ? for update`, [t]);
      await held;
      await query(tx, `update transactions set category_id = ?, category_source = 'user' where id = ?`, [groceries, t]);
    });
    const run = sync([], [t]);
    // Wait until the sync's write waits for the person's lock (under load this can take seconds; releasing
    // earlier would test no race at all, so not seeing the wait fails the test).
    let seen = false;
    for (let i = 0; i < 1500 && !seen; i++) {
      const waiting = await query(
        em(),
        `select 1 from pg_stat_activity where wait_event_type = 'Lock' and query like 'update transactions t set%'`,
      );
      seen = waiting.length > 0;
      if (!seen) await new Promise((r) => setTimeout(r, 10));
    }
    release();
    expect(seen).toBe(true);
    await edit;
    expect(await run).toEqual({ matched: 1, changed: 1 });
    expect(await txRow(em(), t)).toMatchObject({
      category: "food_and_drink_groceries",
      category_source: "user",
      tags: ["business"],
    });
    expect((await annotationsOf(em(), t)).map((n) => n.action)).toEqual(["tag_added"]);
  });

  it("refuses ids that are not UUIDs (a bug in the caller, not data)", async () => {
    await expect(sync(["not-a-uuid"])).rejects.toThrow(/not a transaction id/);
  });
});
