import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertApiKey } from "../../services/auth/api-keys.js";
import { pgArray, query } from "../../services/db/sql.js";
import { expectCoreError, withKey } from "../helpers/core-error.js";
import { newAccount, newTransactions, newUser } from "../helpers/ledger.js";
import { startStack, type Stack } from "../helpers/stack.js";

// The TransactionService write RPCs through the real core (Connect over h2c),
// checked against the database itself.

let s: Stack;
let admin: ReturnType<typeof withKey>;
let agent: ReturnType<typeof withKey>;
let agentKeyShortId: string;
let adminKeyShortId: string;
let accountId: string;

beforeAll(async () => {
  s = await startStack();
  admin = withKey(s.adminKey);
  const em = s.orm.em.fork();
  const agentKey = await insertApiKey(em, { name: "budget bot", scope: "full_access", actorType: "agent" });
  agent = withKey(agentKey.plaintext);
  agentKeyShortId = agentKey.key.shortId;
  adminKeyShortId = (
    await query<{ short_id: string }>(em, `select short_id from api_keys where name = 'test admin'`)
  )[0].short_id;
  const user = await newUser(em, "Ann");
  accountId = (await newAccount(em, user.id)).id;
});
afterAll(async () => {
  await s.close();
});

async function newTx(
  n = 1,
  extra: Parameters<typeof newTransactions>[2][number] = {},
): Promise<{ id: string; shortId: string }[]> {
  const em = s.orm.em.fork();
  const ids = await newTransactions(
    em,
    accountId,
    Array.from({ length: n }, () => ({ ...extra })),
  );
  const rows = await query<{ id: string; short_id: string }>(
    em,
    `select id, short_id from transactions where id = any(?::uuid[])`,
    [pgArray(ids)],
  );
  const byId = new Map(rows.map((r) => [r.id, r.short_id]));
  return ids.map((id) => ({ id, shortId: byId.get(id)! }));
}

interface AnnotationRow {
  action: string;
  actor_type: string;
  actor_id: string | null;
  actor_name: string;
  entity_type: string;
  details: Record<string, unknown>;
}

async function annotationsOf(id: string): Promise<AnnotationRow[]> {
  return query<AnnotationRow>(
    s.orm.em.fork(),
    `select action, actor_type, actor_id, actor_name, entity_type, details
     from annotations where transaction_id = ? order by created_at, id`,
    [id],
  );
}

async function rowOf(id: string) {
  const [r] = await query<{
    category_id: string | null;
    category_source: string | null;
    metadata: Record<string, unknown>;
    deleted_at: string | null;
    tags: string[];
  }>(
    s.orm.em.fork(),
    `select category_id, category_source, metadata, deleted_at::text as deleted_at,
       coalesce((select array_agg(g.slug order by g.slug) from tags g where g.id = any(t.tag_ids)), '{}') as tags
     from transactions t where id = ?`,
    [id],
  );
  return r;
}

const annotationCount = async () =>
  Number((await query<{ n: string }>(s.orm.em.fork(), `select count(*) as n from annotations`))[0].n);

describe("SetTransactionCategory / ResetTransactionCategory", () => {
  it("sets a category by slug (id or short id), records the actor as the source and annotates from → to", async () => {
    const [t] = await newTx();
    const r = await s.core.transactions.setTransactionCategory(
      { id: t.shortId, categorySlug: "food_and_drink_groceries" },
      admin,
    );
    expect(r.transaction).toMatchObject({
      id: t.id,
      categorySlug: "food_and_drink_groceries",
      categoryDisplayName: "Groceries",
      categoryParentSlug: "food_and_drink",
      categorySource: "user",
    });
    const again = await s.core.transactions.setTransactionCategory(
      { id: t.id, categorySlug: "food_and_drink_coffee" },
      agent,
    );
    expect(again.transaction?.categorySource).toBe("agent");
    expect(await annotationsOf(t.id)).toEqual([
      {
        action: "category_set",
        actor_type: "user",
        actor_id: adminKeyShortId,
        actor_name: "test admin",
        entity_type: "transaction",
        details: { from: "uncategorized", to: "food_and_drink_groceries", source: "user", previous_source: null },
      },
      {
        action: "category_set",
        actor_type: "agent",
        actor_id: agentKeyShortId,
        actor_name: "budget bot",
        entity_type: "transaction",
        details: {
          from: "food_and_drink_groceries",
          to: "food_and_drink_coffee",
          source: "agent",
          previous_source: "user",
        },
      },
    ]);
  });

  it("setting the same category again by the same kind of actor changes nothing and writes no annotation", async () => {
    const [t] = await newTx();
    await s.core.transactions.setTransactionCategory({ id: t.id, categorySlug: "travel_flights" }, admin);
    const before = await rowOf(t.id);
    await s.core.transactions.setTransactionCategory({ id: t.id, categorySlug: "travel_flights" }, admin);
    expect(await rowOf(t.id)).toEqual(before);
    expect(await annotationsOf(t.id)).toHaveLength(1);
  });

  it("a rule-set category confirmed by a person becomes the person's choice", async () => {
    const [t] = await newTx();
    const em = s.orm.em.fork();
    await query(
      em,
      `update transactions set category_id = (select id from categories where slug = 'travel'), category_source = 'rule'
       where id = ?`,
      [t.id],
    );
    const r = await s.core.transactions.setTransactionCategory({ id: t.id, categorySlug: "travel" }, admin);
    expect(r.transaction?.categorySource).toBe("user");
    expect((await annotationsOf(t.id))[0].details).toEqual({
      from: "travel",
      to: "travel",
      source: "user",
      previous_source: "rule",
    });
  });

  it("'uncategorized' stores category_id null but keeps the choice (source) so rules leave it alone", async () => {
    const [t] = await newTx();
    await s.core.transactions.setTransactionCategory({ id: t.id, categorySlug: "income_salary" }, admin);
    const r = await s.core.transactions.setTransactionCategory({ id: t.id, categorySlug: "uncategorized" }, admin);
    expect(r.transaction).toMatchObject({ categorySlug: "uncategorized", categorySource: "user" });
    expect(await rowOf(t.id)).toMatchObject({ category_id: null, category_source: "user" });
  });

  it("reset clears the category and its source, once; a second reset is a no-op without an annotation", async () => {
    const [t] = await newTx();
    await s.core.transactions.setTransactionCategory({ id: t.id, categorySlug: "home_repairs" }, admin);
    const r = await s.core.transactions.resetTransactionCategory({ id: t.shortId }, admin);
    expect(r.transaction?.categorySlug).toBe("uncategorized");
    expect(r.transaction?.categorySource).toBeUndefined();
    expect(await rowOf(t.id)).toMatchObject({ category_id: null, category_source: null });
    await s.core.transactions.resetTransactionCategory({ id: t.id }, admin);
    const timeline = await annotationsOf(t.id);
    expect(timeline.map((a) => a.action)).toEqual(["category_set", "category_reset"]);
    expect(timeline[1].details).toEqual({ from: "home_repairs", previous_source: "user" });
  });

  it.each(["no_such_category", "Food", "", "x".repeat(100)])(
    "an unknown or malformed slug %j → VALIDATION_ERROR and nothing changes",
    async (slug) => {
      const [t] = await newTx();
      const f = await expectCoreError(
        s.core.transactions.setTransactionCategory({ id: t.id, categorySlug: slug }, admin),
        "VALIDATION_ERROR",
      );
      expect(f.message).toMatch(/category_slug/);
      if (slug === "no_such_category") expect(f.message).toContain('"no_such_category"');
      expect(await rowOf(t.id)).toMatchObject({ category_id: null, category_source: null });
      expect(await annotationsOf(t.id)).toEqual([]);
    },
  );

  it.each(["zzzzzzzz", "nope", "00000000-0000-0000-0000-000000000000", ""])(
    "an unknown or malformed id %j → NOT_FOUND",
    async (id) => {
      await expectCoreError(
        s.core.transactions.setTransactionCategory({ id, categorySlug: "travel" }, admin),
        "NOT_FOUND",
      );
      await expectCoreError(s.core.transactions.resetTransactionCategory({ id }, admin), "NOT_FOUND");
    },
  );
});

describe("BatchCategorizeTransactions", () => {
  it("categorizes many by UUID or short id, ignores duplicates, and annotates each changed one", async () => {
    const txs = await newTx(4);
    await s.core.transactions.setTransactionCategory({ id: txs[3].id, categorySlug: "transportation_fuel" }, admin);
    const r = await s.core.transactions.batchCategorizeTransactions(
      {
        transactionIds: [txs[0].id, txs[0].shortId, txs[1].shortId, txs[2].id, txs[3].id, txs[1].shortId],
        categorySlug: "transportation_fuel",
      },
      admin,
    );
    // txs[3] already had this category by a user: left as is, not counted, not annotated again.
    expect(r.updated).toBe(3n);
    for (const t of txs) expect(await rowOf(t.id)).toMatchObject({ category_source: "user" });
    for (const t of txs.slice(0, 3)) {
      expect(await annotationsOf(t.id)).toEqual([
        expect.objectContaining({
          action: "category_set",
          actor_name: "test admin",
          details: {
            from: "uncategorized",
            to: "transportation_fuel",
            source: "user",
            previous_source: null,
            batch: true,
          },
        }),
      ]);
    }
    expect(await annotationsOf(txs[3].id)).toHaveLength(1);
  });

  it("one unknown id → NOT_FOUND naming it, and nothing changes (no category, no annotation)", async () => {
    const txs = await newTx(3);
    const before = await annotationCount();
    const f = await expectCoreError(
      s.core.transactions.batchCategorizeTransactions(
        { transactionIds: [txs[0].id, "ZZZZZZZZ", txs[1].shortId, "bad id"], categorySlug: "travel" },
        admin,
      ),
      "NOT_FOUND",
    );
    expect(f.message).toContain('"ZZZZZZZZ"');
    expect(f.message).toContain('"bad id"');
    expect(f.message).toMatch(/^2 transactions not found/);
    for (const t of txs) expect(await rowOf(t.id)).toMatchObject({ category_id: null, category_source: null });
    expect(await annotationCount()).toBe(before);
  });

  it("a soft-deleted transaction in the batch → NOT_FOUND and nothing changes", async () => {
    const txs = await newTx(2);
    await s.core.transactions.deleteTransaction({ id: txs[1].id }, admin);
    const before = await annotationCount();
    await expectCoreError(
      s.core.transactions.batchCategorizeTransactions(
        { transactionIds: txs.map((t) => t.id), categorySlug: "travel" },
        admin,
      ),
      "NOT_FOUND",
    );
    expect(await rowOf(txs[0].id)).toMatchObject({ category_id: null });
    expect(await annotationCount()).toBe(before);
  });

  it("names at most five missing ids and counts the rest", async () => {
    const ids = Array.from({ length: 7 }, (_, i) => `Missing${i}`);
    const f = await expectCoreError(
      s.core.transactions.batchCategorizeTransactions({ transactionIds: ids, categorySlug: "travel" }, admin),
      "NOT_FOUND",
    );
    expect(f.message).toMatch(/^7 transactions not found: .* and 2 more; nothing was changed$/);
  });

  it("no ids, more than 500 ids, or an unknown slug → VALIDATION_ERROR", async () => {
    const [t] = await newTx();
    await expectCoreError(
      s.core.transactions.batchCategorizeTransactions({ transactionIds: [], categorySlug: "travel" }, admin),
      "VALIDATION_ERROR",
    );
    await expectCoreError(
      s.core.transactions.batchCategorizeTransactions(
        { transactionIds: Array(501).fill(t.id), categorySlug: "travel" },
        admin,
      ),
      "VALIDATION_ERROR",
    );
    await expectCoreError(
      s.core.transactions.batchCategorizeTransactions({ transactionIds: [t.id], categorySlug: "nope" }, admin),
      "VALIDATION_ERROR",
    );
    expect(await rowOf(t.id)).toMatchObject({ category_id: null });
  });

  it("500 distinct ids in one batch work, with 500 annotations", async () => {
    const txs = await newTx(500);
    const r = await s.core.transactions.batchCategorizeTransactions(
      { transactionIds: txs.map((t) => t.shortId), categorySlug: "entertainment_games" },
      agent,
    );
    expect(r.updated).toBe(500n);
    const [n] = await query<{ n: string }>(
      s.orm.em.fork(),
      `select count(*) as n from annotations
       where transaction_id = any(?::uuid[]) and action = 'category_set' and actor_type = 'agent'`,
      [pgArray(txs.map((t) => t.id))],
    );
    expect(Number(n.n)).toBe(500);
  });
});

describe("tags", () => {
  it("adds an existing tag, creates an unknown one with a derived name, ignores a tag already there", async () => {
    const [t] = await newTx();
    const first = await s.core.transactions.addTransactionTag({ id: t.id, slug: "tax_deductible" }, admin);
    expect(first.transaction?.tags).toEqual(["tax_deductible"]);
    const [tag] = await query<{ display_name: string }>(
      s.orm.em.fork(),
      `select display_name from tags where slug = 'tax_deductible'`,
    );
    expect(tag.display_name).toBe("Tax deductible");
    // The tag's creation is on the tag's own record, not on the transaction's timeline.
    const [created] = await query<{ action: string; transaction_id: string | null; details: object }>(
      s.orm.em.fork(),
      `select action, transaction_id, details from annotations
       where entity_type = 'tag' and details->>'slug' = 'tax_deductible'`,
    );
    expect(created).toEqual({
      action: "tag_created",
      transaction_id: null,
      details: { slug: "tax_deductible", display_name: "Tax deductible", via: "transaction_tag" },
    });

    const second = await s.core.transactions.addTransactionTag({ id: t.shortId, slug: "vacation" }, admin);
    expect(second.transaction?.tags).toEqual(["tax_deductible", "vacation"]);
    const again = await s.core.transactions.addTransactionTag({ id: t.id, slug: "vacation" }, admin);
    expect(again.transaction?.tags).toEqual(["tax_deductible", "vacation"]);
    expect((await annotationsOf(t.id)).map((a) => [a.action, a.details])).toEqual([
      ["tag_added", { tag: "tax_deductible" }],
      ["tag_added", { tag: "vacation" }],
    ]);
    const [{ n }] = await query<{ n: string }>(
      s.orm.em.fork(),
      `select count(*) as n from tags where slug = 'vacation'`,
    );
    expect(n).toBe("1");
  });

  it("removes a tag with an annotation; a tag not on the transaction or unknown → NOT_FOUND", async () => {
    const [t] = await newTx();
    await s.core.transactions.addTransactionTag({ id: t.id, slug: "shared" }, admin);
    await s.core.transactions.addTransactionTag({ id: t.id, slug: "kids" }, admin);
    const r = await s.core.transactions.removeTransactionTag({ id: t.id, slug: "shared" }, agent);
    expect(r.transaction?.tags).toEqual(["kids"]);
    expect((await annotationsOf(t.id)).at(-1)).toMatchObject({
      action: "tag_removed",
      actor_type: "agent",
      details: { tag: "shared" },
    });

    const notOn = await expectCoreError(
      s.core.transactions.removeTransactionTag({ id: t.id, slug: "shared" }, admin),
      "NOT_FOUND",
    );
    expect(notOn.message).toBe('Tag "shared" is not on this transaction');
    const unknown = await expectCoreError(
      s.core.transactions.removeTransactionTag({ id: t.id, slug: "never_made" }, admin),
      "NOT_FOUND",
    );
    expect(unknown.message).toBe('Tag "never_made" not found');
    await expectCoreError(
      s.core.transactions.removeTransactionTag({ id: t.id, slug: "Not A Slug" }, admin),
      "NOT_FOUND",
    );
    expect((await rowOf(t.id)).tags).toEqual(["kids"]);
  });

  it.each(["Upper", "with space", "", "dash-ed", "x".repeat(65)])(
    "adding a malformed slug %j → VALIDATION_ERROR, no tag created",
    async (slug) => {
      const [t] = await newTx();
      await expectCoreError(s.core.transactions.addTransactionTag({ id: t.id, slug }, admin), "VALIDATION_ERROR");
      expect((await rowOf(t.id)).tags).toEqual([]);
      expect(await annotationsOf(t.id)).toEqual([]);
    },
  );

  it("UpdateTransactionTags is atomic: a bad removal changes nothing, not even a new tag", async () => {
    const [t] = await newTx();
    await s.core.transactions.addTransactionTag({ id: t.id, slug: "old" }, admin);
    const before = await annotationCount();
    await expectCoreError(
      s.core.transactions.updateTransactionTags(
        { id: t.id, add: ["brand_new_tag"], remove: ["old", "absent_tag"] },
        admin,
      ),
      "NOT_FOUND",
    );
    expect((await rowOf(t.id)).tags).toEqual(["old"]);
    expect(await annotationCount()).toBe(before);
    expect(await query(s.orm.em.fork(), `select 1 from tags where slug = 'brand_new_tag'`)).toEqual([]);

    const r = await s.core.transactions.updateTransactionTags(
      { id: t.id, add: ["brand_new_tag", "b2", "b2"], remove: ["old"] },
      admin,
    );
    expect(r.transaction?.tags).toEqual(["b2", "brand_new_tag"]);
    expect((await annotationsOf(t.id)).slice(1).map((a) => `${a.action}:${String(a.details.tag)}`)).toEqual([
      "tag_added:brand_new_tag",
      "tag_added:b2",
      "tag_removed:old",
    ]);
  });

  it("UpdateTransactionTags with nothing to do, or a slug both added and removed → VALIDATION_ERROR", async () => {
    const [t] = await newTx();
    await expectCoreError(
      s.core.transactions.updateTransactionTags({ id: t.id, add: [], remove: [] }, admin),
      "VALIDATION_ERROR",
    );
    await expectCoreError(
      s.core.transactions.updateTransactionTags({ id: t.id, add: ["a"], remove: ["a"] }, admin),
      "VALIDATION_ERROR",
    );
  });

  it("concurrent tag additions to one transaction all land (the row is locked, not overwritten)", async () => {
    const [t] = await newTx();
    const slugs = ["c1", "c2", "c3", "c4", "c5", "c6"];
    await Promise.all(slugs.map((slug) => s.core.transactions.addTransactionTag({ id: t.id, slug }, admin)));
    expect((await rowOf(t.id)).tags).toEqual(slugs);
    expect(await annotationsOf(t.id)).toHaveLength(6);
  });
});

describe("metadata", () => {
  it("merge sets keys, null removes one; replace swaps the whole object; each change annotates the keys", async () => {
    const [t] = await newTx();
    const a = await s.core.transactions.setTransactionMetadata(
      { id: t.id, metadata: { receipt: "R-1", trip: "Lisbon", n: 2 }, replace: false },
      admin,
    );
    expect(a.transaction?.metadata).toEqual({ receipt: "R-1", trip: "Lisbon", n: 2 });
    const b = await s.core.transactions.setTransactionMetadata(
      { id: t.id, metadata: { trip: null, nested: { x: [1, "y", true] } }, replace: false },
      admin,
    );
    expect(b.transaction?.metadata).toEqual({ receipt: "R-1", n: 2, nested: { x: [1, "y", true] } });
    const c = await s.core.transactions.setTransactionMetadata(
      { id: t.id, metadata: { only: "this", ignored: null }, replace: true },
      admin,
    );
    expect(c.transaction?.metadata).toEqual({ only: "this" });
    expect((await rowOf(t.id)).metadata).toEqual({ only: "this" });
    expect((await annotationsOf(t.id)).map((x) => [x.action, x.details])).toEqual([
      ["metadata_set", { keys_set: ["n", "receipt", "trip"], keys_removed: [], replace: false }],
      ["metadata_set", { keys_set: ["nested"], keys_removed: ["trip"], replace: false }],
      ["metadata_set", { keys_set: ["only"], keys_removed: ["n", "nested", "receipt"], replace: true }],
    ]);
  });

  it("a change that changes nothing (same values, any key order) writes no annotation", async () => {
    const [t] = await newTx();
    await s.core.transactions.setTransactionMetadata(
      { id: t.id, metadata: { o: { a: 1, b: 2 } }, replace: false },
      admin,
    );
    await s.core.transactions.setTransactionMetadata(
      { id: t.id, metadata: { o: { b: 2, a: 1 } }, replace: true },
      admin,
    );
    await s.core.transactions.setTransactionMetadata({ id: t.id, metadata: { gone: null }, replace: false }, admin);
    expect(await annotationsOf(t.id)).toHaveLength(1);
  });

  it("deletes given keys or all keys; a key not present → NOT_FOUND and nothing changes", async () => {
    const [t] = await newTx();
    await s.core.transactions.setTransactionMetadata(
      { id: t.id, metadata: { a: 1, b: 2, c: 3 }, replace: true },
      admin,
    );
    const one = await s.core.transactions.deleteTransactionMetadata({ id: t.id, keys: ["a"] }, admin);
    expect(one.transaction?.metadata).toEqual({ b: 2, c: 3 });
    const f = await expectCoreError(
      s.core.transactions.deleteTransactionMetadata({ id: t.id, keys: ["b", "zz"] }, admin),
      "NOT_FOUND",
    );
    expect(f.message).toBe('Metadata key "zz" not found on this transaction');
    expect((await rowOf(t.id)).metadata).toEqual({ b: 2, c: 3 });
    const all = await s.core.transactions.deleteTransactionMetadata({ id: t.id, keys: [] }, admin);
    expect(all.transaction?.metadata).toEqual({});
    await s.core.transactions.deleteTransactionMetadata({ id: t.id, keys: [] }, admin);
    expect((await annotationsOf(t.id)).map((x) => [x.action, x.details])).toEqual([
      ["metadata_set", { keys_set: ["a", "b", "c"], keys_removed: [], replace: true }],
      ["metadata_deleted", { keys: ["a"], all: false }],
      ["metadata_deleted", { keys: ["b", "c"], all: true }],
    ]);
  });

  it("limits: 50 keys, key syntax, 16 KiB — each → VALIDATION_ERROR with nothing written", async () => {
    const [t] = await newTx();
    const fifty = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i]));
    await s.core.transactions.setTransactionMetadata({ id: t.id, metadata: fifty, replace: true }, admin);
    // The merged result counts: a 51st key is refused even though the request has one key.
    const f = await expectCoreError(
      s.core.transactions.setTransactionMetadata({ id: t.id, metadata: { k50: 1 }, replace: false }, admin),
      "VALIDATION_ERROR",
    );
    expect(f.message).toMatch(/at most 50 keys/);
    await expectCoreError(
      s.core.transactions.setTransactionMetadata({ id: t.id, metadata: { ...fifty, k50: 1 }, replace: true }, admin),
      "VALIDATION_ERROR",
    );
    for (const bad of ["has space", "", "ü", "x".repeat(65), "a/b"]) {
      const e = await expectCoreError(
        s.core.transactions.setTransactionMetadata({ id: t.id, metadata: { [bad]: 1 }, replace: false }, admin),
        "VALIDATION_ERROR",
      );
      expect(e.message).toMatch(/metadata key/);
    }
    const big = await expectCoreError(
      s.core.transactions.setTransactionMetadata(
        { id: t.id, metadata: { note: "x".repeat(16 * 1024) }, replace: true },
        admin,
      ),
      "VALIDATION_ERROR",
    );
    expect(big.message).toMatch(/16384 bytes/);
    // Within a merge, the total counts: two 9 KiB values together exceed the limit.
    await s.core.transactions.setTransactionMetadata(
      { id: t.id, metadata: { a: "x".repeat(9000) }, replace: true },
      admin,
    );
    await expectCoreError(
      s.core.transactions.setTransactionMetadata(
        { id: t.id, metadata: { b: "y".repeat(9000) }, replace: false },
        admin,
      ),
      "VALIDATION_ERROR",
    );
    expect(Object.keys((await rowOf(t.id)).metadata)).toEqual(["a"]);
    expect((await annotationsOf(t.id)).map((a) => a.action)).toEqual(["metadata_set", "metadata_set"]);
  });

  it("an absent metadata object → VALIDATION_ERROR", async () => {
    const [t] = await newTx();
    await expectCoreError(
      s.core.transactions.setTransactionMetadata({ id: t.id, replace: true }, admin),
      "VALIDATION_ERROR",
    );
  });
});

describe("comments", () => {
  it("adds (trimmed), lists oldest first, edits and deletes, each with an annotation; author is the key", async () => {
    const [t] = await newTx();
    const c1 = (await s.core.transactions.addComment({ transactionId: t.shortId, body: "  Split with Bob  " }, admin))
      .comment!;
    expect(c1).toMatchObject({
      transactionId: t.shortId,
      body: "Split with Bob",
      authorType: "user",
      authorName: "test admin",
    });
    const c2 = (await s.core.transactions.addComment({ transactionId: t.id, body: "Refund expected" }, agent)).comment!;
    expect(c2).toMatchObject({ authorType: "agent", authorName: "budget bot" });
    const [{ author_key_id }] = await query<{ author_key_id: string }>(
      s.orm.em.fork(),
      `select author_key_id from comments where id = ?`,
      [c2.id],
    );
    expect(author_key_id).toMatch(/^[0-9a-f-]{36}$/);

    const list = await s.core.transactions.listComments({ transactionId: t.id }, withKey(s.readKey));
    expect(list.comments.map((c) => c.body)).toEqual(["Split with Bob", "Refund expected"]);

    // Any full_access key may edit another key's comment.
    const edited = (
      await s.core.transactions.updateComment(
        { transactionId: t.id, commentId: c2.shortId, body: "Refund received" },
        admin,
      )
    ).comment!;
    expect(edited).toMatchObject({ id: c2.id, body: "Refund received", authorName: "budget bot" });
    await s.core.transactions.updateComment({ transactionId: t.id, commentId: c2.id, body: "Refund received" }, admin);
    await s.core.transactions.deleteComment({ transactionId: t.id, commentId: c1.id }, agent);
    expect((await s.core.transactions.listComments({ transactionId: t.id }, admin)).comments.map((c) => c.id)).toEqual([
      c2.id,
    ]);

    expect((await annotationsOf(t.id)).map((a) => [a.action, a.entity_type, a.actor_name, a.details])).toEqual([
      ["comment_added", "comment", "test admin", { comment_id: c1.shortId }],
      ["comment_added", "comment", "budget bot", { comment_id: c2.shortId }],
      [
        "comment_edited",
        "comment",
        "test admin",
        { comment_id: c2.shortId, from: "Refund expected", to: "Refund received" },
      ],
      ["comment_deleted", "comment", "budget bot", { comment_id: c1.shortId, body: "Split with Bob" }],
    ]);
  });

  it("an empty, blank or over-long body → VALIDATION_ERROR; exactly 10,000 characters is fine", async () => {
    const [t] = await newTx();
    for (const body of ["", "   \n\t", "x".repeat(10_001)]) {
      await expectCoreError(s.core.transactions.addComment({ transactionId: t.id, body }, admin), "VALIDATION_ERROR");
    }
    const c = (await s.core.transactions.addComment({ transactionId: t.id, body: "😀".repeat(10_000) }, admin))
      .comment!;
    await expectCoreError(
      s.core.transactions.updateComment({ transactionId: t.id, commentId: c.id, body: " " }, admin),
      "VALIDATION_ERROR",
    );
    expect((await s.core.transactions.listComments({ transactionId: t.id }, admin)).comments).toHaveLength(1);
  });

  it("a comment id of another transaction, unknown or malformed → NOT_FOUND", async () => {
    const [t1, t2] = await newTx(2);
    const c = (await s.core.transactions.addComment({ transactionId: t1.id, body: "mine" }, admin)).comment!;
    for (const commentId of [c.id, c.shortId]) {
      await expectCoreError(
        s.core.transactions.updateComment({ transactionId: t2.id, commentId, body: "x" }, admin),
        "NOT_FOUND",
      );
      await expectCoreError(s.core.transactions.deleteComment({ transactionId: t2.id, commentId }, admin), "NOT_FOUND");
    }
    for (const commentId of ["ZZZZZZZZ", "nope", ""]) {
      await expectCoreError(s.core.transactions.deleteComment({ transactionId: t1.id, commentId }, admin), "NOT_FOUND");
    }
    await expectCoreError(s.core.transactions.addComment({ transactionId: "ZZZZZZZZ", body: "x" }, admin), "NOT_FOUND");
    await expectCoreError(s.core.transactions.listComments({ transactionId: "nope" }, admin), "NOT_FOUND");
    expect((await s.core.transactions.listComments({ transactionId: t1.id }, admin)).comments[0].body).toBe("mine");
  });
});

describe("soft delete and restore", () => {
  it("delete hides it from writes and comments; annotations stay readable; restore brings it back", async () => {
    const [t] = await newTx();
    await s.core.transactions.addComment({ transactionId: t.id, body: "keep me" }, admin);
    await s.core.transactions.deleteTransaction({ id: t.shortId }, agent);
    expect((await rowOf(t.id)).deleted_at).not.toBeNull();

    await expectCoreError(s.core.transactions.deleteTransaction({ id: t.id }, admin), "NOT_FOUND");
    await expectCoreError(
      s.core.transactions.setTransactionCategory({ id: t.id, categorySlug: "travel" }, admin),
      "NOT_FOUND",
    );
    await expectCoreError(s.core.transactions.resetTransactionCategory({ id: t.id }, admin), "NOT_FOUND");
    await expectCoreError(s.core.transactions.addTransactionTag({ id: t.id, slug: "x" }, admin), "NOT_FOUND");
    await expectCoreError(
      s.core.transactions.setTransactionMetadata({ id: t.id, metadata: { a: 1 }, replace: false }, admin),
      "NOT_FOUND",
    );
    await expectCoreError(s.core.transactions.deleteTransactionMetadata({ id: t.id, keys: [] }, admin), "NOT_FOUND");
    await expectCoreError(s.core.transactions.addComment({ transactionId: t.id, body: "x" }, admin), "NOT_FOUND");
    await expectCoreError(s.core.transactions.listComments({ transactionId: t.id }, admin), "NOT_FOUND");

    const timeline = await s.core.transactions.listAnnotations({ transactionId: t.id }, withKey(s.readKey));
    expect(timeline.annotations.map((a) => a.action)).toEqual(["comment_added", "deleted"]);
    expect(timeline.annotations[1]).toMatchObject({
      transactionId: t.shortId,
      actorType: "agent",
      actorId: agentKeyShortId,
      actorName: "budget bot",
    });

    const restored = await s.core.transactions.restoreTransaction({ id: t.id }, admin);
    expect(restored.transaction?.id).toBe(t.id);
    expect(restored.transaction?.deletedAt).toBeUndefined();
    expect((await rowOf(t.id)).deleted_at).toBeNull();
    expect(
      (await s.core.transactions.listComments({ transactionId: t.id }, admin)).comments.map((c) => c.body),
    ).toEqual(["keep me"]);
    expect((await annotationsOf(t.id)).map((a) => a.action)).toEqual(["comment_added", "deleted", "restored"]);
  });

  it("restoring a transaction that is not deleted → CONFLICT; an unknown one → NOT_FOUND", async () => {
    const [t] = await newTx();
    await expectCoreError(s.core.transactions.restoreTransaction({ id: t.id }, admin), "CONFLICT");
    await expectCoreError(s.core.transactions.restoreTransaction({ id: "ZZZZZZZZ" }, admin), "NOT_FOUND");
    await expectCoreError(s.core.transactions.listAnnotations({ transactionId: "ZZZZZZZZ" }, admin), "NOT_FOUND");
    expect(await annotationsOf(t.id)).toEqual([]);
  });
});

describe("scopes", () => {
  it("every write RPC refuses a read_only key with INSUFFICIENT_SCOPE and changes nothing", async () => {
    const [t] = await newTx();
    const c = (await s.core.transactions.addComment({ transactionId: t.id, body: "x" }, admin)).comment!;
    const ro = withKey(s.readKey);
    const before = await annotationCount();
    const tx = s.core.transactions;
    const calls: (() => Promise<unknown>)[] = [
      () => tx.setTransactionCategory({ id: t.id, categorySlug: "travel" }, ro),
      () => tx.resetTransactionCategory({ id: t.id }, ro),
      () => tx.batchCategorizeTransactions({ transactionIds: [t.id], categorySlug: "travel" }, ro),
      () => tx.addTransactionTag({ id: t.id, slug: "x" }, ro),
      () => tx.removeTransactionTag({ id: t.id, slug: "x" }, ro),
      () => tx.updateTransactionTags({ id: t.id, add: ["x"] }, ro),
      () => tx.setTransactionMetadata({ id: t.id, metadata: { a: 1 }, replace: false }, ro),
      () => tx.deleteTransactionMetadata({ id: t.id, keys: [] }, ro),
      () => tx.addComment({ transactionId: t.id, body: "x" }, ro),
      () => tx.updateComment({ transactionId: t.id, commentId: c.id, body: "y" }, ro),
      () => tx.deleteComment({ transactionId: t.id, commentId: c.id }, ro),
      () => tx.deleteTransaction({ id: t.id }, ro),
      () => tx.restoreTransaction({ id: t.id }, ro),
    ];
    for (const call of calls) await expectCoreError(call(), "INSUFFICIENT_SCOPE");
    expect(await annotationCount()).toBe(before);
    expect(await rowOf(t.id)).toMatchObject({ category_id: null, deleted_at: null, tags: [], metadata: {} });
  });
});
