import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { query } from "../../services/db/sql.js";
import { slugify } from "../../services/ledger/categories/slug.js";
import { expectCoreError, withKey } from "../helpers/core-error.js";
import { newAccount, newTransactions, newUser } from "../helpers/ledger.js";
import { startStack, type Stack } from "../helpers/stack.js";

let s: Stack;
let admin: ReturnType<typeof withKey>;
let accountId: string;
beforeAll(async () => {
  s = await startStack();
  admin = withKey(s.adminKey);
  const em = s.orm.em.fork();
  const user = await newUser(em, "Cat Owner");
  accountId = (await newAccount(em, user.id)).id;
});
afterAll(async () => {
  await s?.close();
});

let n = 0;
const uniq = (base: string) => `${base}_${++n}_${Math.random().toString(36).slice(2, 6)}`;

async function categoryIdOf(slug: string): Promise<string> {
  return (await s.core.categories.getCategory({ id: slug }, admin)).category!.id;
}

/** Transactions in `slug` with the given category_source, returning their UUIDs. */
async function txIn(slug: string, count: number, source: "user" | "rule" = "rule"): Promise<string[]> {
  const ids = await newTransactions(
    s.orm.em.fork(),
    accountId,
    Array.from({ length: count }, () => ({})),
  );
  await query(
    s.orm.em.fork(),
    `update transactions set category_id = ?, category_source = ? where id = any(?::uuid[])`,
    [await categoryIdOf(slug), source, `{${ids.join(",")}}`],
  );
  return ids;
}

async function categoryOfTx(id: string): Promise<{ slug: string | null; source: string | null }> {
  const [row] = await query<{ slug: string | null; source: string | null }>(
    s.orm.em.fork(),
    `select c.slug, t.category_source as source
     from transactions t left join categories c on c.id = t.category_id where t.id = ?`,
    [id],
  );
  return row;
}

async function annotationsFor(entityId: string) {
  return query<{
    action: string;
    entity_type: string;
    transaction_id: string | null;
    actor_name: string;
    details: Record<string, unknown>;
  }>(
    s.orm.em.fork(),
    `select action, entity_type, transaction_id, actor_name, details
     from annotations where entity_id = ? order by created_at, id`,
    [entityId],
  );
}

describe("slugify", () => {
  it.each([
    ["Pet Supplies", "pet_supplies"],
    ["  Café & Bäckerei!  ", "cafe_backerei"],
    ["Kids' stuff -- 2026", "kids_stuff_2026"],
    ["___", ""],
    ["x".repeat(70), "x".repeat(64)],
    [`${"a".repeat(63)} b`, "a".repeat(63)],
  ])("%j → %j", (input, slug) => {
    expect(slugify(input)).toBe(slug);
  });
});

describe("CategoryService reads", () => {
  it("lists the seeded taxonomy as a two-level tree, sorted by slug", async () => {
    const cats = (await s.core.categories.listCategories({}, withKey(s.readKey))).categories;
    const food = cats.find((c) => c.slug === "food_and_drink")!;
    expect(food.parentSlug).toBeUndefined();
    expect(food.children.map((c) => c.slug)).toContain("food_and_drink_groceries");
    expect(
      food.children.every(
        (c) => c.parentSlug === "food_and_drink" && c.parentId === food.shortId && c.children.length === 0,
      ),
    ).toBe(true);
    expect(cats.map((c) => c.slug)).toEqual([...cats.map((c) => c.slug)].sort());
    expect(cats.length).toBeGreaterThanOrEqual(15);
    const unc = cats.find((c) => c.slug === "uncategorized")!;
    expect(unc.isSystem).toBe(true);
    expect(cats.filter((c) => c.isSystem).map((c) => c.slug)).toEqual(["uncategorized"]);
    // No child appears at the top level.
    expect(cats.some((c) => c.slug === "food_and_drink_groceries")).toBe(false);
  });

  it("gets a category by UUID, short id or slug (an 8-letter slug included), with its children", async () => {
    const created = (await s.core.categories.createCategory({ slug: "shopping", displayName: "Shopping trips" }, admin))
      .category!;
    for (const id of [created.id, created.id.toUpperCase(), created.shortId, "shopping"]) {
      expect((await s.core.categories.getCategory({ id }, withKey(s.readKey))).category!.id).toBe(created.id);
    }
    const food = (await s.core.categories.getCategory({ id: "food_and_drink" }, admin)).category!;
    expect(food.children.length).toBeGreaterThan(3);
  });

  it.each(["nope_nope", "zzzzzzzz", "00000000-0000-0000-0000-000000000000", "Bad Slug!", ""])(
    "an unknown or malformed id %j → NOT_FOUND",
    async (id) => {
      await expectCoreError(s.core.categories.getCategory({ id }, admin), "NOT_FOUND");
    },
  );
});

describe("CreateCategory", () => {
  it("derives the slug from the display name and annotates the creation", async () => {
    const name = `Pet Supplies ${++n}`;
    const c = (await s.core.categories.createCategory({ displayName: `  ${name} ` }, admin)).category!;
    expect(c).toMatchObject({ slug: slugify(name), displayName: name, isSystem: false, children: [] });
    expect(c.parentSlug).toBeUndefined();
    expect(await annotationsFor(c.id)).toEqual([
      {
        action: "created",
        entity_type: "category",
        transaction_id: null,
        actor_name: "test admin",
        details: { slug: c.slug, display_name: name, parent_slug: null },
      },
    ]);
  });

  it("creates a child under a top-level category", async () => {
    const slug = uniq("food_and_drink_bakery");
    const c = (
      await s.core.categories.createCategory({ slug, displayName: "Bakery", parentSlug: "food_and_drink" }, admin)
    ).category!;
    const parent = (await s.core.categories.getCategory({ id: "food_and_drink" }, admin)).category!;
    expect(c).toMatchObject({ parentSlug: "food_and_drink", parentId: parent.shortId });
    expect(parent.children.map((k) => k.slug)).toContain(slug);
  });

  it("a duplicate slug → SLUG_CONFLICT, and nothing is written", async () => {
    const before = await query(s.orm.em.fork(), `select count(*)::int as n from annotations`);
    await expectCoreError(
      s.core.categories.createCategory({ slug: "income", displayName: "Income 2" }, admin),
      "SLUG_CONFLICT",
    );
    await expectCoreError(s.core.categories.createCategory({ displayName: "Income" }, admin), "SLUG_CONFLICT");
    expect(await query(s.orm.em.fork(), `select count(*)::int as n from annotations`)).toEqual(before);
  });

  it.each([
    ["a missing display name", { displayName: "  " }],
    ["a display name with no usable slug", { displayName: "!!!" }],
    ["a bad slug", { slug: "has space", displayName: "X" }],
    ["a too long slug", { slug: "x".repeat(65), displayName: "X" }],
    ["a too long display name", { displayName: "x".repeat(101) }],
    ["a child as parent (three levels)", { displayName: "Deep", parentSlug: "food_and_drink_coffee" }],
    ["uncategorized as parent", { displayName: "Under unc", parentSlug: "uncategorized" }],
  ])("rejects %s with VALIDATION_ERROR", async (_what, req) => {
    await expectCoreError(s.core.categories.createCategory(req, admin), "VALIDATION_ERROR");
  });

  it("a parent_slug that names no category → VALIDATION_ERROR naming it (a value, not a path)", async () => {
    const f = await expectCoreError(
      s.core.categories.createCategory({ displayName: "Orphan", parentSlug: "no_such_parent" }, admin),
      "VALIDATION_ERROR",
    );
    expect(f.message).toBe('parent_slug "no_such_parent" names no category');
  });

  it("needs a full_access key", async () => {
    await expectCoreError(
      s.core.categories.createCategory({ displayName: "Nope" }, withKey(s.readKey)),
      "INSUFFICIENT_SCOPE",
    );
  });
});

describe("UpdateCategory", () => {
  it("renames, re-slugs and moves a category, annotating the changes", async () => {
    const slug = uniq("hobbies");
    const c = (await s.core.categories.createCategory({ slug, displayName: "Hobbies" }, admin)).category!;
    const moved = (
      await s.core.categories.updateCategory(
        { id: c.shortId, slug: `${slug}_x`, displayName: "Hobby stuff", parentSlug: "entertainment" },
        admin,
      )
    ).category!;
    expect(moved).toMatchObject({ slug: `${slug}_x`, displayName: "Hobby stuff", parentSlug: "entertainment" });
    const top = (await s.core.categories.updateCategory({ id: c.id, parentSlug: "" }, admin)).category!;
    expect(top.parentSlug).toBeUndefined();
    // A no-op writes no annotation.
    await s.core.categories.updateCategory({ id: c.id, displayName: "Hobby stuff" }, admin);
    const notes = await annotationsFor(c.id);
    expect(notes.map((a) => a.action)).toEqual(["created", "updated", "updated"]);
    expect(notes[1].details).toEqual({
      slug: `${slug}_x`,
      changes: {
        slug: { from: slug, to: `${slug}_x` },
        display_name: { from: "Hobbies", to: "Hobby stuff" },
        parent_slug: { from: null, to: "entertainment" },
      },
    });
    expect(notes[2].details).toMatchObject({ changes: { parent_slug: { from: "entertainment", to: null } } });
  });

  it("a category with children cannot become a child → CONFLICT", async () => {
    await expectCoreError(
      s.core.categories.updateCategory({ id: "travel", parentSlug: "entertainment" }, admin),
      "CONFLICT",
    );
  });

  it("two levels only, and not its own parent → VALIDATION_ERROR", async () => {
    const c = (await s.core.categories.createCategory({ slug: uniq("leaf"), displayName: "Leaf" }, admin)).category!;
    await expectCoreError(
      s.core.categories.updateCategory({ id: c.id, parentSlug: "travel_flights" }, admin),
      "VALIDATION_ERROR",
    );
    await expectCoreError(
      s.core.categories.updateCategory({ id: c.id, parentSlug: c.slug }, admin),
      "VALIDATION_ERROR",
    );
    await expectCoreError(s.core.categories.updateCategory({ id: c.id, slug: "" }, admin), "VALIDATION_ERROR");
    await expectCoreError(s.core.categories.updateCategory({ id: c.id, displayName: " " }, admin), "VALIDATION_ERROR");
  });

  it("a taken slug → SLUG_CONFLICT; an unknown parent → VALIDATION_ERROR; an unknown id → NOT_FOUND", async () => {
    const c = (await s.core.categories.createCategory({ slug: uniq("dup"), displayName: "Dup" }, admin)).category!;
    await expectCoreError(s.core.categories.updateCategory({ id: c.id, slug: "travel" }, admin), "SLUG_CONFLICT");
    await expectCoreError(
      s.core.categories.updateCategory({ id: c.id, parentSlug: "no_such" }, admin),
      "VALIDATION_ERROR",
    );
    await expectCoreError(
      s.core.categories.updateCategory({ id: "no_such_cat", displayName: "x" }, admin),
      "NOT_FOUND",
    );
  });

  it("uncategorized keeps its slug and place → FORBIDDEN, but may be renamed", async () => {
    await expectCoreError(s.core.categories.updateCategory({ id: "uncategorized", slug: "misc" }, admin), "FORBIDDEN");
    await expectCoreError(
      s.core.categories.updateCategory({ id: "uncategorized", parentSlug: "income" }, admin),
      "FORBIDDEN",
    );
    const renamed = (
      await s.core.categories.updateCategory({ id: "uncategorized", displayName: "Not yet sorted" }, admin)
    ).category!;
    expect(renamed).toMatchObject({ slug: "uncategorized", displayName: "Not yet sorted", isSystem: true });
    await s.core.categories.updateCategory(
      { id: "uncategorized", displayName: "Uncategorized", parentSlug: "" },
      admin,
    );
  });

  it("needs a full_access key", async () => {
    await expectCoreError(
      s.core.categories.updateCategory({ id: "income", displayName: "x" }, withKey(s.readKey)),
      "INSUFFICIENT_SCOPE",
    );
  });
});

describe("DeleteCategory", () => {
  it("uncategorizes its transactions (source cleared), annotating each and the deletion", async () => {
    const c = (
      await s.core.categories.createCategory({ slug: uniq("doomed"), displayName: "Doomed", parentSlug: "home" }, admin)
    ).category!;
    const ids = await txIn(c.slug, 3, "user");
    const other = await txIn("home_furniture", 1);
    const r = await s.core.categories.deleteCategory({ id: c.slug }, admin);
    expect(r.transactionsUncategorized).toBe(3n);
    for (const id of ids) {
      expect(await categoryOfTx(id)).toEqual({ slug: null, source: null });
      expect(await annotationsFor(id)).toEqual([
        {
          action: "category_reset",
          entity_type: "transaction",
          transaction_id: id,
          actor_name: "test admin",
          details: { from: c.slug, previous_source: "user", reason: "category_deleted" },
        },
      ]);
    }
    expect(await categoryOfTx(other[0])).toEqual({ slug: "home_furniture", source: "rule" });
    expect((await annotationsFor(c.id)).map((a) => [a.action, a.details.transactions_uncategorized])).toEqual([
      ["created", undefined],
      ["deleted", 3],
    ]);
    await expectCoreError(s.core.categories.getCategory({ id: c.id }, admin), "NOT_FOUND");
  });

  it("an empty category deletes with 0 uncategorized", async () => {
    const c = (await s.core.categories.createCategory({ slug: uniq("empty"), displayName: "Empty" }, admin)).category!;
    expect((await s.core.categories.deleteCategory({ id: c.shortId }, admin)).transactionsUncategorized).toBe(0n);
  });

  it("a parent of children → CONFLICT, uncategorized → FORBIDDEN, unknown → NOT_FOUND; nothing changes", async () => {
    const ids = await txIn("personal_care_gym", 1);
    await expectCoreError(s.core.categories.deleteCategory({ id: "personal_care" }, admin), "CONFLICT");
    await expectCoreError(s.core.categories.deleteCategory({ id: "uncategorized" }, admin), "FORBIDDEN");
    await expectCoreError(s.core.categories.deleteCategory({ id: "no_such_cat" }, admin), "NOT_FOUND");
    await expectCoreError(s.core.categories.deleteCategory({ id: "zzzzzzzz" }, admin), "NOT_FOUND");
    expect(await categoryOfTx(ids[0])).toEqual({ slug: "personal_care_gym", source: "rule" });
  });

  it("needs a full_access key", async () => {
    await expectCoreError(
      s.core.categories.deleteCategory({ id: "income_other" }, withKey(s.readKey)),
      "INSUFFICIENT_SCOPE",
    );
  });
});

describe("MergeCategory", () => {
  it("moves transactions (keeping category_source) into the target and deletes the source", async () => {
    const src = (
      await s.core.categories.createCategory(
        { slug: uniq("snacks"), displayName: "Snacks", parentSlug: "food_and_drink" },
        admin,
      )
    ).category!;
    const userTx = await txIn(src.slug, 2, "user");
    const ruleTx = await txIn(src.slug, 1, "rule");
    const r = await s.core.categories.mergeCategory({ id: src.shortId, into: "food_and_drink_groceries" }, admin);
    expect(r.transactionsMoved).toBe(3n);
    expect(r.category!.slug).toBe("food_and_drink_groceries");
    for (const id of userTx)
      expect(await categoryOfTx(id)).toEqual({ slug: "food_and_drink_groceries", source: "user" });
    expect(await categoryOfTx(ruleTx[0])).toEqual({ slug: "food_and_drink_groceries", source: "rule" });
    const [note] = await annotationsFor(userTx[0]);
    expect(note).toEqual({
      action: "category_set",
      entity_type: "transaction",
      transaction_id: userTx[0],
      actor_name: "test admin",
      details: {
        from: src.slug,
        to: "food_and_drink_groceries",
        source: "user",
        previous_source: "user",
        reason: "category_merged",
      },
    });
    expect((await annotationsFor(src.id)).at(-1)).toMatchObject({
      action: "merged",
      details: { slug: src.slug, into: "food_and_drink_groceries", transactions_moved: 3, children_moved: [] },
    });
    await expectCoreError(s.core.categories.getCategory({ id: src.id }, admin), "NOT_FOUND");
  });

  it("re-parents the source's children under a top-level target", async () => {
    const src = (await s.core.categories.createCategory({ slug: uniq("pets"), displayName: "Pets" }, admin)).category!;
    const kid = (
      await s.core.categories.createCategory(
        { slug: uniq("pets_food"), displayName: "Pet food", parentSlug: src.slug },
        admin,
      )
    ).category!;
    const kidTx = await txIn(kid.slug, 1);
    const srcTx = await txIn(src.slug, 1);
    const r = await s.core.categories.mergeCategory({ id: src.id, into: "home" }, admin);
    expect(r.transactionsMoved).toBe(1n);
    expect(r.category!.children.map((k) => k.slug)).toContain(kid.slug);
    expect((await s.core.categories.getCategory({ id: kid.id }, admin)).category!.parentSlug).toBe("home");
    expect(await categoryOfTx(kidTx[0])).toEqual({ slug: kid.slug, source: "rule" });
    expect(await categoryOfTx(srcTx[0])).toEqual({ slug: "home", source: "rule" });
    expect((await annotationsFor(kid.id)).at(-1)).toMatchObject({
      action: "updated",
      details: { changes: { parent_slug: { from: src.slug, to: "home" } }, reason: "category_merged" },
    });
  });

  it("a source with children into a child target → CONFLICT, and nothing moves", async () => {
    const src = (await s.core.categories.createCategory({ slug: uniq("crafts"), displayName: "Crafts" }, admin))
      .category!;
    await s.core.categories.createCategory(
      { slug: uniq("crafts_yarn"), displayName: "Yarn", parentSlug: src.slug },
      admin,
    );
    const ids = await txIn(src.slug, 1);
    await expectCoreError(s.core.categories.mergeCategory({ id: src.id, into: "home_hardware" }, admin), "CONFLICT");
    expect(await categoryOfTx(ids[0])).toEqual({ slug: src.slug, source: "rule" });
    expect((await s.core.categories.getCategory({ id: src.id }, admin)).category!.children).toHaveLength(1);
  });

  it("into itself/uncategorized/none → VALIDATION_ERROR; uncategorized → FORBIDDEN; unknown → NOT_FOUND", async () => {
    await expectCoreError(
      s.core.categories.mergeCategory({ id: "travel_lodging", into: "travel_lodging" }, admin),
      "VALIDATION_ERROR",
    );
    const self = (await s.core.categories.getCategory({ id: "travel_lodging" }, admin)).category!;
    await expectCoreError(
      s.core.categories.mergeCategory({ id: self.shortId, into: self.id }, admin),
      "VALIDATION_ERROR",
    );
    await expectCoreError(
      s.core.categories.mergeCategory({ id: "travel_lodging", into: "uncategorized" }, admin),
      "VALIDATION_ERROR",
    );
    await expectCoreError(
      s.core.categories.mergeCategory({ id: "travel_lodging", into: "" }, admin),
      "VALIDATION_ERROR",
    );
    await expectCoreError(s.core.categories.mergeCategory({ id: "uncategorized", into: "travel" }, admin), "FORBIDDEN");
    await expectCoreError(
      s.core.categories.mergeCategory({ id: "travel_lodging", into: "no_such" }, admin),
      "VALIDATION_ERROR",
    );
    await expectCoreError(
      s.core.categories.mergeCategory({ id: "travel_lodging", into: "zzzzzzzz" }, admin),
      "VALIDATION_ERROR",
    );
    await expectCoreError(s.core.categories.mergeCategory({ id: "no_such", into: "travel" }, admin), "NOT_FOUND");
  });

  it("needs a full_access key", async () => {
    await expectCoreError(
      s.core.categories.mergeCategory({ id: "travel_lodging", into: "travel" }, withKey(s.readKey)),
      "INSUFFICIENT_SCOPE",
    );
  });
});
