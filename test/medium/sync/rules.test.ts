import { afterEach, describe, expect, it } from "vitest";
import { query } from "../../../services/db/sql.js";
import { setTransactionCategory } from "../../../services/ledger/transactions/categorize.js";
import { insertTransactions } from "../../../services/ledger/transactions/insert.js";
import { previewRule } from "../../../services/rules/preview.js";
import { applyRulesOnSync } from "../../../services/rules/runner.js";
import { annotationsOf, newRule, ruleRow, syncActor, txRow } from "../../helpers/rules.js";
import { tx } from "../../helpers/scripted-provider.js";
import { OPERATOR, storedTransactions, syncWorld, type SyncWorld } from "../../helpers/sync.js";

// The rules pipeline inside the sync engine: every page's inserted rows go through the enabled rules
// that fire on creation, its changed rows through those that fire on a change, in the page's own
// database transaction (so a page never commits without its rules, and a replayed page runs none).

let w: SyncWorld;
afterEach(async () => {
  await w?.close();
});

async function world() {
  w = await syncWorld();
  await query(
    w.orm.em.fork(),
    `insert into tags (id, short_id, slug, display_name) values
       (gen_random_uuid(), 'tagBiz01', 'business', 'Business'), (gen_random_uuid(), 'tagChg01', 'changed', 'Changed')`,
  );
  const conn = await w.connect();
  return { em: () => w.orm.em.fork(), id: conn.id, provider: w.provider };
}

const systemRule = async (em: ReturnType<SyncWorld["orm"]["em"]["fork"]>) =>
  (await query<{ id: string }>(em, `select id from rules where created_by_type = 'system'`))[0].id;

describe("rules at sync", () => {
  it("categorize and tag new rows, leave the built-in needs_review mark, and annotate with the rule", async () => {
    const { em, id, provider } = await world();
    const coffee = await newRule(em(), {
      name: "Coffee shops",
      trigger: "on_create",
      conditions: { field: "provider_merchant_name", op: "contains", value: "blue bottle" },
      actions: [
        { type: "set_category", category_slug: "food_and_drink_coffee" },
        { type: "add_tag", tag_slug: "business" },
      ],
    });
    const onChange = await newRule(em(), {
      trigger: "on_change",
      conditions: {},
      actions: [{ type: "add_tag", tag_slug: "changed" }],
    });
    provider.push(
      { added: [tx("a", { merchantName: "Blue Bottle", amount: "4.50" }), tx("b", { merchantName: "Grocer" })] },
      { added: [tx("c", { merchantName: "BLUE BOTTLE #12" })] },
    );
    expect(await w.engine.run(id, { trigger: "initial" })).toMatchObject({ status: "success", added: 3 });
    const rows = await storedTransactions(w.orm);
    expect(rows.get("a")).toMatchObject({
      category: "food_and_drink_coffee",
      category_source: "rule",
      tags: ["business", "needs_review"],
    });
    expect(rows.get("b")).toMatchObject({ category: null, tags: ["needs_review"] });
    expect(rows.get("c")).toMatchObject({ category: "food_and_drink_coffee", tags: ["business", "needs_review"] });
    expect((await ruleRow(em(), coffee)).hit_count).toBe(2);
    expect((await ruleRow(em(), coffee)).last_hit_at).not.toBeNull();
    expect((await ruleRow(em(), onChange)).hit_count).toBe(0);
    expect((await ruleRow(em(), await systemRule(em()))).hit_count).toBe(3);
    const notes = await annotationsOf(em(), rows.get("a")!.id);
    expect(notes.map((n) => [n.action, n.actor_name, n.details.rule_name]).sort()).toEqual([
      ["category_set", "sync (plaid)", "Coffee shops"],
      ["tag_added", "sync (plaid)", "Coffee shops"],
      ["tag_added", "sync (plaid)", "Mark new transactions for review"],
    ]);
    expect(notes.find((n) => n.action === "category_set")!.details).toMatchObject({
      source: "rule",
      to: "food_and_drink_coffee",
      rule_id: expect.any(String),
    });
  });

  it("run on_change and always rules on modified rows, never on_create ones, and none on unchanged rows", async () => {
    const { em, id, provider } = await world();
    provider.push({ added: [tx("m", { amount: "10.00" }), tx("u", { amount: "5.00" })] });
    await w.engine.run(id, { trigger: "initial" });
    const onCreate = await newRule(em(), {
      trigger: "on_create",
      actions: [{ type: "set_metadata", key: "created", value: true }],
    });
    const onUpdate = await newRule(em(), { trigger: "on_update", actions: [{ type: "add_tag", tag_slug: "changed" }] });
    const always = await newRule(em(), {
      trigger: "always",
      conditions: { field: "amount", op: "gt", value: 10 },
      actions: [{ type: "add_comment", content: "over ten" }],
    });
    provider.push({ modified: [tx("m", { amount: "12.00" }), tx("u", { amount: "5.00", name: "Shop u" })] });
    provider.push({ modified: [tx("u", { amount: "5.00", name: "Shop u" })] });
    expect(await w.engine.run(id, { trigger: "manual" })).toMatchObject({ modified: 2, unchanged: 1 });
    const rows = await storedTransactions(w.orm);
    expect(rows.get("m")).toMatchObject({ amount: "12.00", tags: ["changed", "needs_review"], metadata: {} });
    expect(rows.get("u")).toMatchObject({ tags: ["changed", "needs_review"], metadata: {} });
    expect([
      (await ruleRow(em(), onCreate)).hit_count,
      (await ruleRow(em(), onUpdate)).hit_count,
      (await ruleRow(em(), always)).hit_count,
    ]).toEqual([0, 2, 1]);
    const comments = await query<{ body: string; author_name: string }>(
      em(),
      `select body, author_name from comments where transaction_id = ?`,
      [rows.get("m")!.id],
    );
    expect(comments).toEqual([{ body: "over ten", author_name: expect.stringMatching(/^rule: /) }]);
  });

  it("never overwrite a category a person chose, while the rule's other actions still apply", async () => {
    const { em, id, provider } = await world();
    provider.push({ added: [tx("p", { merchantName: "Blue Bottle" })] });
    await w.engine.run(id, { trigger: "initial" });
    const row = (await storedTransactions(w.orm)).get("p")!;
    await setTransactionCategory(em(), OPERATOR, row.id, "home_furniture");
    const rule = await newRule(em(), {
      conditions: { field: "provider_merchant_name", op: "contains", value: "blue bottle" },
      actions: [
        { type: "set_category", category_slug: "food_and_drink_coffee" },
        { type: "set_metadata", key: "shop", value: "coffee" },
      ],
    });
    provider.push({ modified: [tx("p", { merchantName: "Blue Bottle", amount: "99.00" })] });
    await w.engine.run(id, { trigger: "manual" });
    expect((await storedTransactions(w.orm)).get("p")).toMatchObject({
      amount: "99.00",
      category: "home_furniture",
      category_source: "user",
      metadata: { shop: "coffee" },
    });
    expect((await ruleRow(em(), rule)).hit_count).toBe(1);
  });

  it("treat a posted row that replaces its pending row as changed: on_create results carry over", async () => {
    const { em, id, provider } = await world();
    const onCreate = await newRule(em(), {
      trigger: "on_create",
      conditions: { field: "provider_name", op: "contains", value: "hotel" },
      actions: [
        { type: "set_category", category_slug: "travel_lodging" },
        { type: "add_comment", content: "trip" },
      ],
    });
    const onChange = await newRule(em(), { trigger: "on_change", actions: [{ type: "add_tag", tag_slug: "changed" }] });
    provider.push({ added: [tx("pend", { name: "HOTEL X", pending: true, amount: "80.00" })] });
    await w.engine.run(id, { trigger: "initial" });
    provider.push({
      added: [tx("post", { name: "HOTEL X", amount: "95.00", pendingTransactionId: "pend" })],
      removed: [{ providerAccountId: "acc-1", providerTransactionId: "pend" }],
    });
    await w.engine.run(id, { trigger: "manual" });
    const posted = (await storedTransactions(w.orm)).get("post")!;
    expect(posted).toMatchObject({
      category: "travel_lodging",
      category_source: "rule",
      tags: ["changed", "needs_review"],
    });
    const comments = await query(em(), `select 1 from comments where transaction_id = ?`, [posted.id]);
    expect(comments).toHaveLength(1);
    expect([(await ruleRow(em(), onCreate)).hit_count, (await ruleRow(em(), onChange)).hit_count]).toEqual([1, 1]);
  });

  it("commit a page and its rules together: a failing rule write leaves the page uncommitted", async () => {
    const { em, id, provider } = await world();
    const rule = await newRule(em(), { actions: [{ type: "add_tag", tag_slug: "business" }] });
    // The hit-count write fails once: the page's rows, its cursor and every rule change must roll back.
    await query(
      em(),
      `create function fail_hits() returns trigger language plpgsql as $$
       begin raise exception 'hit counts unavailable'; end $$;
       create trigger fail_hits before update of hit_count on rules for each row execute function fail_hits()`,
    );
    provider.push({ added: [tx("x"), tx("y")] });
    expect(await w.engine.run(id, { trigger: "initial" })).toMatchObject({ status: "error" });
    expect((await storedTransactions(w.orm)).size).toBe(0);
    expect(await query(em(), `select 1 from annotations where action = 'tag_added'`)).toEqual([]);
    await query(em(), `drop trigger fail_hits on rules`);
    expect(await w.engine.run(id, { trigger: "manual" })).toMatchObject({ status: "success", added: 2 });
    const rows = await storedTransactions(w.orm);
    expect([rows.get("x")!.tags, rows.get("y")!.tags]).toEqual([
      ["business", "needs_review"],
      ["business", "needs_review"],
    ]);
    expect((await ruleRow(em(), rule)).hit_count).toBe(2);
    // A later sync with nothing new runs no rule again.
    expect(await w.engine.run(id, { trigger: "manual" })).toMatchObject({ status: "success", pages: 0 });
    expect((await ruleRow(em(), rule)).hit_count).toBe(2);
  });

  it("judge a page's new rows before inserting them exactly as they would be judged once stored", async () => {
    const { em, id, provider } = await world();
    const cp = await query<{ id: string }>(
      em(),
      `insert into counterparties (id, short_id, name) values (gen_random_uuid(), 'cpBlue01', 'Blue Bottle')
       returning id`,
    );
    // Rules on every kind of field the sync path builds before the insert, chained through what earlier ones set.
    const specs = [
      { field: "account_name", op: "contains", value: "acc-1" },
      { field: "user_name", op: "eq", value: "ann" },
      { field: "day_of_week", op: "eq", value: 7 },
      { field: "amount", op: "between", min: -5, max: 10 },
      { field: "pending", op: "eq", value: true },
      { field: "provider_category_detailed", op: "contains", value: "coffee" },
      { field: "category", op: "eq", value: "food_and_drink_coffee" },
      { field: "provider", op: "eq", value: "plaid" },
      { field: "provider_merchant_name", op: "matches", value: "^Blue" },
      { field: "in_series", op: "eq", value: false },
    ];
    for (const [i, conditions] of specs.entries()) {
      await newRule(em(), {
        priority: 10 + i,
        conditions,
        actions: [{ type: "set_metadata", key: `r${i}`, value: i }],
      });
    }
    await newRule(em(), {
      priority: 30,
      conditions: { field: "metadata.r8", op: "exists" },
      actions: [
        { type: "assign_counterparty", counterparty_id: "cpBlue01" },
        { type: "add_comment", content: "blue" },
      ],
    });
    await newRule(em(), {
      priority: 31,
      conditions: {
        and: [
          { field: "counterparty", op: "eq", value: "blue bottle" },
          { field: "tags", op: "contains", value: "needs_review" },
        ],
      },
      actions: [
        { type: "set_category", category_slug: "food_and_drink_restaurants" },
        { type: "flag", reason: "x" },
      ],
    });
    const rows = Array.from({ length: 24 }, (_, i) =>
      tx(`n${i}`, {
        name: ["BLUE BOTTLE 1", "Corner shop", "Cafe"][i % 3],
        merchantName: i % 2 ? "Blue Bottle" : null,
        amount: ["4.50", "-3.00", "12.00", "10.00"][i % 4],
        date: ["2026-03-01", "2026-03-02", "2026-03-08"][i % 3],
        pending: i % 5 === 0,
        categoryPrimary: "FOOD_AND_DRINK",
        categoryDetailed: i % 4 ? "FOOD_AND_DRINK_COFFEE" : "FOOD_AND_DRINK_RESTAURANT",
      }),
    );
    provider.push({ added: rows });
    await w.engine.run(id, { trigger: "initial" });
    const synced = await storedTransactions(w.orm);

    // The same rows inserted as they were before the rules, then judged once stored (applyRulesOnSync).
    const [{ account_id }] = await query<{ account_id: string }>(em(), `select account_id from transactions limit 1`);
    const copies = await insertTransactions(
      em(),
      [...synced.values()].map((t) => ({
        accountId: account_id,
        amount: t.amount,
        isoCurrencyCode: "USD",
        date: t.date,
        provider: "plaid",
        providerTransactionId: `copy-${t.provider_transaction_id}`,
        providerName: t.provider_name,
        providerMerchantName: rows.find((r) => r.providerTransactionId === t.provider_transaction_id)!.merchantName,
        providerCategoryPrimary: t.provider_category_primary,
        providerCategoryDetailed: rows.find((r) => r.providerTransactionId === t.provider_transaction_id)!
          .categoryDetailed,
        pending: t.pending,
        categoryId: null,
        categorySource: null,
      })),
    );
    // The copies take the category the sync mapped from the provider (before any rule changed it).
    await query(
      em(),
      `update transactions c set category_id = coalesce(pre.id, o.category_id),
         category_source = coalesce(a.details->>'previous_source', o.category_source)
       from transactions o
       left join annotations a on a.transaction_id = o.id and a.action = 'category_set'
       left join categories pre on pre.slug = a.details->>'from'
       where c.provider_transaction_id = 'copy-' || o.provider_transaction_id`,
    );
    await em().transactional((t) => applyRulesOnSync(t, { created: copies, changed: [] }, syncActor));
    const after = await storedTransactions(w.orm);
    const noteKinds = async (txId: string) =>
      (await annotationsOf(em(), txId))
        .filter((n) => n.details.rule_name !== undefined)
        .map((n) => `${n.action}:${String(n.details.rule_name)}`)
        .sort();
    let metadataSeen = 0;
    for (const r of rows) {
      const original = after.get(r.providerTransactionId)!;
      const copy = after.get(`copy-${r.providerTransactionId}`)!;
      const [a, b] = [await txRow(em(), original.id), await txRow(em(), copy.id)];
      expect(a, r.providerTransactionId).toEqual(b);
      expect(await noteKinds(original.id)).toEqual(await noteKinds(copy.id));
      metadataSeen += Object.keys(a.metadata).length;
    }
    // The rules did fire on a good share of fields and rows (the comparison is not vacuous).
    expect(metadataSeen).toBeGreaterThan(60);
    expect(after.get("n1")).toMatchObject({ category: "food_and_drink_restaurants" });
    expect((await txRow(em(), after.get("n1")!.id)).counterparty_id).toBe(cp[0].id);
  });

  it("put new rows into a series by rule at sync, but not a row the same page removed", async () => {
    const { em, id, provider } = await world();
    const rule = await newRule(em(), {
      conditions: { field: "provider_name", op: "contains", value: "gym" },
      actions: [
        { type: "assign_series", series_name: "Gym", create_if_missing: true },
        { type: "add_tag", tag_slug: "business" },
      ],
    });
    const later = await newRule(em(), {
      priority: 200,
      conditions: { field: "in_series", op: "eq", value: true },
      actions: [{ type: "set_metadata", key: "recurring", value: true }],
    });
    provider.push({
      added: [tx("g1", { name: "GYM CLUB" }), tx("g2", { name: "GYM CLUB" }), tx("gone", { name: "GYM CLUB" })],
      removed: [{ providerAccountId: "acc-1", providerTransactionId: "gone" }],
    });
    await w.engine.run(id, { trigger: "initial" });
    const series = await query<{ id: string; short_id: string }>(em(), `select id, short_id from series`);
    expect(series).toHaveLength(1);
    const rows = await storedTransactions(w.orm);
    const inSeries = await query<{ provider_transaction_id: string }>(
      em(),
      `select provider_transaction_id from transactions where series_id = ? order by 1`,
      [series[0].id],
    );
    expect(inSeries.map((r) => r.provider_transaction_id)).toEqual(["g1", "g2"]);
    expect(rows.get("g1")).toMatchObject({ tags: ["business", "needs_review"], metadata: { recurring: true } });
    const notes = await annotationsOf(em(), rows.get("g1")!.id);
    expect(notes.find((n) => n.action === "series_assigned")!.details).toMatchObject({
      series_id: series[0].short_id,
      series_name: "Gym",
      rule_name: expect.any(String),
    });
    // A row the same page removed was written as the rules left it (and annotated), but joins no series.
    expect(rows.get("gone")).toMatchObject({ deleted: true, tags: ["business", "needs_review"] });
    const goneNotes = (await annotationsOf(em(), rows.get("gone")!.id)).map((n) => n.action);
    expect(goneNotes).toContain("tag_added");
    expect(goneNotes).not.toContain("series_assigned");
    expect([(await ruleRow(em(), rule)).hit_count, (await ruleRow(em(), later)).hit_count]).toEqual([3, 3]);
  });

  it("preview and sync agree on the same data: the rows preview matches are the rows the sync changed", async () => {
    const { em, id, provider } = await world();
    const conditions = {
      or: [
        {
          and: [
            { field: "provider_name", op: "contains", value: "coffee" },
            { field: "amount", op: "lt", value: "10" },
          ],
        },
        { field: "provider_merchant_name", op: "matches", value: "^Blue [A-Z]" },
        { and: [{ field: "day_of_week", op: "eq", value: 7 }, { not: { field: "pending", op: "eq", value: false } }] },
      ],
    };
    const rule = await newRule(em(), { name: "Agreement", conditions, actions: [{ type: "flag", reason: "check" }] });
    const names = ["COFFEE HOUSE", "coffee beans", "Tea Room", "Blue Bottle", "blue bottle", "Blue", "Corner Coffee"];
    const amounts = ["3.50", "12.00", "9.99", "-4.00", "25.00"];
    const days = ["2026-03-01", "2026-03-02", "2026-03-07", "2026-03-08"];
    const added = Array.from({ length: 60 }, (_, i) =>
      tx(`r${i}`, {
        name: names[i % names.length],
        merchantName: i % 3 === 0 ? names[(i + 1) % names.length] : null,
        amount: amounts[i % amounts.length],
        date: days[i % days.length],
        pending: i % 4 === 1,
      }),
    );
    provider.push({ added: added.slice(0, 25) }, { added: added.slice(25) });
    await w.engine.run(id, { trigger: "initial" });

    const changedBySync = await query<{ short_id: string }>(
      em(),
      `select distinct t.short_id from annotations a join transactions t on t.id = a.transaction_id
       where a.action = 'tag_added' and a.details->>'rule_name' = 'Agreement' order by t.short_id`,
    );
    const preview = await previewRule(em(), { conditions, sampleSize: 50 }, { timeoutMs: 10_000 });
    expect(preview.totalScanned).toBe(60);
    expect(preview.matchCount).toBe(changedBySync.length);
    expect(preview.matchCount).toBe((await ruleRow(em(), rule)).hit_count);
    expect(preview.matchCount).toBeGreaterThan(5);
    expect(preview.matchCount).toBeLessThan(55);
    expect(preview.samples.map((s) => s.shortId).sort()).toEqual(changedBySync.map((r) => r.short_id));
  });
});
