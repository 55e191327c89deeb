import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertApiKey } from "../../../services/auth/api-keys.js";
import { query } from "../../../services/db/sql.js";
import { valueOf } from "../../../gateways/shared/rules.js";
import { expectCoreError, withKey } from "../../helpers/core-error.js";
import { newAccount, newUser } from "../../helpers/ledger.js";
import { startStack, type Stack } from "../../helpers/stack.js";

// RuleService writes and reads through the real core (Connect over h2c).

let s: Stack;
let admin: ReturnType<typeof withKey>;
let agent: ReturnType<typeof withKey>;
let reader: ReturnType<typeof withKey>;
let adminKeyShortId: string;
let agentKeyShortId: string;
let account: { id: string; shortId: string };
let user: { id: string; shortId: string };

beforeAll(async () => {
  s = await startStack();
  admin = withKey(s.adminKey);
  reader = withKey(s.readKey);
  const em = s.orm.em.fork();
  const agentKey = await insertApiKey(em, { name: "budget bot", scope: "full_access", actorType: "agent" });
  agent = withKey(agentKey.plaintext);
  agentKeyShortId = agentKey.key.shortId;
  [{ short_id: adminKeyShortId }] = await query<{ short_id: string }>(
    em,
    `select short_id from api_keys where name = 'test admin'`,
  );
  user = await newUser(em, "Ann");
  account = await newAccount(em, user.id);
  await s.core.tags.createTag({ slug: "business" }, admin);
  await s.core.counterparties.createCounterparty({ name: "Blue Bottle" }, admin);
});
afterAll(async () => {
  await s?.close();
});

const coffee = { field: "provider_merchant_name", op: "contains", value: "coffee" };
const setCoffee = [{ type: "set_category", category_slug: "food_and_drink_coffee" }];

const create = (body: Record<string, unknown>, key = admin) =>
  s.core.rules.createRule(
    {
      name: (body.name as string) ?? "Coffee shops",
      conditions: valueOf("conditions" in body ? body.conditions : coffee),
      actions: valueOf("actions" in body ? body.actions : setCoffee),
      trigger: body.trigger as string | undefined,
      priority: body.priority as number | undefined,
      enabled: body.enabled as boolean | undefined,
    },
    key,
  );

const annotations = (entityId: string) =>
  query<{ action: string; actor_type: string; actor_name: string; details: Record<string, unknown> }>(
    s.orm.em.fork(),
    `select action, actor_type, actor_name, details from annotations where entity_id = ? order by created_at, id`,
    [entityId],
  );

describe("RuleService: create, get, update, enable, disable, delete", () => {
  it("creates a rule with SPEC's fields, the calling key as creator, and the defaults", async () => {
    const r = (await create({ name: "  Coffee shops " })).rule!;
    expect(r).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      shortId: expect.stringMatching(/^[0-9A-Za-z]{8}$/),
      name: "Coffee shops",
      conditions: coffee,
      actions: setCoffee,
      trigger: "always",
      categorySlug: "food_and_drink_coffee",
      categoryDisplayName: "Coffee",
      priority: 100,
      enabled: true,
      hitCount: 0n,
      createdByType: "user",
      createdById: adminKeyShortId,
      createdByName: "test admin",
    });
    expect(r.lastHitAt).toBeUndefined();
    expect(r.createdAt).toBeDefined();
    const byShort = (await s.core.rules.getRule({ id: r.shortId }, reader)).rule!;
    expect(byShort).toEqual(r);
    expect((await s.core.rules.getRule({ id: r.id }, reader)).rule!.shortId).toBe(r.shortId);
    expect((await annotations(r.id)).map((a) => [a.action, a.actor_name])).toEqual([["created", "test admin"]]);
  });

  it("records an agent's key as an agent creator; accepts on_update as on_change", async () => {
    const r = (await create({ name: "agent rule", trigger: "on_update", priority: -5, enabled: false }, agent)).rule!;
    expect(r).toMatchObject({
      createdByType: "agent",
      createdById: agentKeyShortId,
      createdByName: "budget bot",
      trigger: "on_change",
      priority: -5,
      enabled: false,
    });
  });

  it("writes account and user ids in conditions as short ids, checking they exist", async () => {
    const r = (
      await create({
        name: "ids",
        conditions: {
          and: [
            { field: "account_id", op: "eq", value: account.id },
            { field: "user_id", op: "in", value: [user.shortId, user.id] },
          ],
        },
      })
    ).rule!;
    expect(r.conditions).toEqual({
      and: [
        { field: "account_id", op: "eq", value: account.shortId },
        { field: "user_id", op: "in", value: [user.shortId, user.shortId] },
      ],
    });
    const f = await expectCoreError(
      create({ conditions: { or: [coffee, { field: "account_id", op: "eq", value: "Nope1234" }] } }),
      "VALIDATION_ERROR",
    );
    expect(f.message).toBe('or[1]: unknown account "Nope1234"');
  });

  it("shows every action type back as written, with slugs", async () => {
    const [cp] = await query<{ short_id: string }>(s.orm.em.fork(), `select short_id from counterparties`);
    const actions = [
      { type: "set_category", category_slug: "uncategorized" },
      { type: "add_tag", tag_slug: "business" },
      { type: "remove_tag", tag_slug: "needs_review" },
      { type: "add_comment", content: "Auto" },
      { type: "set_metadata", key: "k", value: 1.5 },
      { type: "remove_metadata", key: "gone" },
      { type: "assign_counterparty", counterparty_id: cp.short_id },
      { type: "flag", reason: "look" },
    ];
    const r = (await create({ name: "all actions", actions })).rule!;
    expect(r.actions).toEqual(actions);
    expect(r).toMatchObject({ categorySlug: "uncategorized", categoryDisplayName: "Uncategorized" });
  });

  it("refuses unknown categories, tags, counterparties and series in actions, naming the action", async () => {
    const cases: [unknown[], string][] = [
      [[{ type: "flag" }, { type: "set_category", category_slug: "nope" }], 'actions[1]: unknown category_slug "nope"'],
      [[{ type: "add_tag", tag_slug: "nope" }], 'actions[0]: unknown tag_slug "nope"'],
      [[{ type: "remove_tag", tag_slug: "nope" }], 'actions[0]: unknown tag_slug "nope"'],
      [[{ type: "assign_counterparty", counterparty_id: "Nope1234" }], 'actions[0]: unknown counterparty "Nope1234"'],
      [[{ type: "assign_series", series_id: "Nope1234" }], 'actions[0]: unknown series "Nope1234"'],
    ];
    for (const [actions, message] of cases) {
      const f = await expectCoreError(create({ actions }), "VALIDATION_ERROR");
      expect(f.message.startsWith(message), f.message).toBe(true);
    }
  });

  it("refuses bad input with VALIDATION_ERROR and stores nothing", async () => {
    const before = await query(s.orm.em.fork(), `select id from rules`);
    const cases: [Record<string, unknown>, string][] = [
      [{ name: "" }, "name is required"],
      [{ name: "a\u0000b" }, "name must not contain control characters other than tab (it is one line); found U+0000"],
      [{ name: "x".repeat(201) }, "name must be at most 200 characters (got 201)"],
      [{ conditions: undefined }, "conditions is required ({} matches every transaction)"],
      [{ conditions: "coffee" }, "conditions: a condition must be an object, got a string"],
      [{ conditions: null }, "conditions: a condition must be an object, got null"],
      [
        { conditions: { and: [coffee, { or: [{ field: "provider_name", op: "gt", value: 1 }] }] } },
        'and[1].or[0]: operator "gt" is not valid for string field "provider_name"',
      ],
      [{ actions: undefined }, "actions is required"],
      [{ actions: [] }, "actions: a rule needs at least one action"],
      [
        { trigger: "sometimes" },
        "trigger must be one of on_create, on_change, always (on_update is accepted for on_change)",
      ],
      [{ priority: 2_000_000 }, "priority must be a whole number from -1000000 to 1000000"],
    ];
    for (const [body, message] of cases) {
      const f = await expectCoreError(create(body), "VALIDATION_ERROR");
      expect(f.message, JSON.stringify(body)).toBe(message);
    }
    expect(await query(s.orm.em.fork(), `select id from rules`)).toEqual(before);
  });

  it("refuses a condition tree over 64 KiB", async () => {
    const big = { or: Array.from({ length: 100 }, () => ({ ...coffee, value: "x".repeat(999) })) };
    const f = await expectCoreError(create({ conditions: big }), "VALIDATION_ERROR");
    expect(f.message).toMatch(/^conditions may be at most 65536 bytes as JSON/);
  });

  it("updates only the fields given, annotates what changed, and does nothing for no change", async () => {
    const r = (await create({ name: "to update" })).rule!;
    const u = (
      await s.core.rules.updateRule(
        { id: r.shortId, priority: 7, conditions: valueOf({ field: "amount", op: "gt", value: 10 }) },
        admin,
      )
    ).rule!;
    expect(u).toMatchObject({ name: "to update", priority: 7, actions: setCoffee, trigger: "always" });
    expect(u.conditions).toEqual({ field: "amount", op: "gt", value: 10 });
    await s.core.rules.updateRule({ id: r.id, priority: 7, name: "to update" }, admin);
    const notes = await annotations(r.id);
    expect(notes.map((n) => n.action)).toEqual(["created", "updated"]);
    expect(notes[1].details.changes).toEqual({
      priority: { from: 100, to: 7 },
      conditions: { from: coffee, to: { field: "amount", op: "gt", value: 10 } },
    });
    await expectCoreError(s.core.rules.updateRule({ id: r.id, actions: valueOf([]) }, admin), "VALIDATION_ERROR");
    await expectCoreError(s.core.rules.updateRule({ id: "Nope1234", priority: 1 }, admin), "NOT_FOUND");
  });

  it("enables and disables (idempotently), and deletes", async () => {
    const r = (await create({ name: "toggle" })).rule!;
    expect((await s.core.rules.disableRule({ id: r.shortId }, admin)).rule!.enabled).toBe(false);
    expect((await s.core.rules.disableRule({ id: r.shortId }, admin)).rule!.enabled).toBe(false);
    expect((await s.core.rules.enableRule({ id: r.id }, admin)).rule!.enabled).toBe(true);
    expect((await annotations(r.id)).map((a) => a.action)).toEqual(["created", "disabled", "enabled"]);
    await s.core.rules.deleteRule({ id: r.shortId }, admin);
    await expectCoreError(s.core.rules.getRule({ id: r.id }, admin), "NOT_FOUND");
    await expectCoreError(s.core.rules.deleteRule({ id: r.id }, admin), "NOT_FOUND");
    expect((await annotations(r.id)).at(-1)).toMatchObject({ action: "deleted", details: { name: "toggle" } });
  });

  it("the built-in rule is an ordinary rule: visible, editable, disableable", async () => {
    const [builtIn] = await query<{ short_id: string }>(
      s.orm.em.fork(),
      `select short_id from rules where created_by_type = 'system'`,
    );
    const r = (await s.core.rules.getRule({ id: builtIn.short_id }, reader)).rule!;
    expect(r).toMatchObject({
      name: "Mark new transactions for review",
      conditions: {},
      actions: [{ type: "add_tag", tag_slug: "needs_review" }],
      trigger: "on_create",
      priority: 0,
      enabled: true,
      createdByType: "system",
      createdByName: "Coffer",
    });
    expect(r.createdById).toBe("");
    expect((await s.core.rules.disableRule({ id: r.id }, admin)).rule!.enabled).toBe(false);
    expect((await s.core.rules.updateRule({ id: r.id, priority: 3, enabled: true }, admin)).rule).toMatchObject({
      priority: 3,
      enabled: true,
    });
  });

  it("keeps a rule working when its category or tag slug is renamed, and refuses deleting one in use", async () => {
    const cat = (await s.core.categories.createCategory({ slug: "snacks", displayName: "Snacks" }, admin)).category!;
    const tag = (await s.core.tags.createTag({ slug: "snack_tag" }, admin)).tag!;
    const r = (
      await create({
        name: "snacks",
        actions: [
          { type: "set_category", category_slug: "snacks" },
          { type: "add_tag", tag_slug: "snack_tag" },
        ],
      })
    ).rule!;
    await s.core.categories.updateCategory({ id: cat.id, slug: "treats" }, admin);
    await s.core.tags.updateTag({ id: tag.id, slug: "treat_tag" }, admin);
    expect((await s.core.rules.getRule({ id: r.id }, admin)).rule!.actions).toEqual([
      { type: "set_category", category_slug: "treats" },
      { type: "add_tag", tag_slug: "treat_tag" },
    ]);
    const c = await expectCoreError(s.core.categories.deleteCategory({ id: cat.id }, admin), "CONFLICT");
    expect(c.message).toBe(
      `category "treats" is used by rule "snacks" (${r.shortId}); change or delete the rule first`,
    );
    await expectCoreError(s.core.categories.mergeCategory({ id: cat.id, into: "food_and_drink" }, admin), "CONFLICT");
    const t = await expectCoreError(s.core.tags.deleteTag({ id: tag.id }, admin), "CONFLICT");
    expect(t.message).toBe(`tag "treat_tag" is used by rule "snacks" (${r.shortId}); change or delete the rule first`);
    await s.core.rules.deleteRule({ id: r.id }, admin);
    await s.core.tags.deleteTag({ id: tag.id }, admin);
    await s.core.categories.deleteCategory({ id: cat.id }, admin);
  });

  it("read_only keys read rules, preview and find matches, and may not write", async () => {
    const r = (await create({ name: "scoped" })).rule!;
    await s.core.rules.listRules({}, reader);
    await s.core.rules.previewRule({ conditions: valueOf(coffee) }, reader);
    await s.core.rules.findMatchingRules({ merchant: "Blue Bottle Coffee" }, reader);
    for (const call of [
      () => create({ name: "nope" }, reader),
      () => s.core.rules.updateRule({ id: r.id, priority: 1 }, reader),
      () => s.core.rules.deleteRule({ id: r.id }, reader),
      () => s.core.rules.enableRule({ id: r.id }, reader),
      () => s.core.rules.disableRule({ id: r.id }, reader),
      () => s.core.rules.applyRule({ id: r.id }, reader),
      () => s.core.rules.applyAllRules({}, reader),
    ]) {
      await expectCoreError(call(), "INSUFFICIENT_SCOPE");
    }
  });
});
