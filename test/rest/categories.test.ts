import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { query } from "../../services/db/sql.js";
import { categoryId, newAccount, newTransactions, newUser } from "../helpers/ledger.js";
import { expectEnvelope, key } from "../helpers/rest.js";
import { startStack, type Stack } from "../helpers/stack.js";

let s: Stack;
let accountId: string;
beforeAll(async () => {
  s = await startStack();
  const em = s.orm.em.fork();
  accountId = (await newAccount(em, (await newUser(em)).id)).id;
});
afterAll(async () => {
  await s?.close();
});

const req = (method: "GET" | "POST" | "PUT" | "DELETE", url: string, payload?: object, apiKey = s.adminKey) =>
  s.rest.inject({ method, url, headers: key(apiKey), payload });

async function categorized(slug: string, count: number): Promise<string[]> {
  const em = s.orm.em.fork();
  const id = await categoryId(em, slug);
  return newTransactions(
    em,
    accountId,
    Array.from({ length: count }, () => ({ categoryId: id, categorySource: "user" as const })),
  );
}

describe("categories over REST", () => {
  it("GET /categories returns the tree in an envelope", async () => {
    const res = await req("GET", "/api/v1/categories", undefined, s.readKey);
    expect(res.statusCode).toBe(200);
    expect(Object.keys(res.json())).toEqual(["categories"]);
    const food = res.json().categories.find((c: { slug: string }) => c.slug === "food_and_drink");
    expect(food).toMatchObject({ display_name: "Food & drink", parent_slug: null, parent_id: null, is_system: false });
    expect(food.children[0]).toEqual({
      id: expect.any(String),
      short_id: expect.stringMatching(/^[0-9A-Za-z]{8}$/),
      slug: expect.stringMatching(/^food_and_drink_/),
      display_name: expect.any(String),
      parent_slug: "food_and_drink",
      parent_id: food.short_id,
      is_system: false,
      children: [],
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
    });
    expectEnvelope(await req("GET", "/api/v1/categories?flat=true"), "INVALID_PARAMETER");
  });

  it("POST (201), GET by slug/short id/UUID, PUT, and DELETE (200 with the count)", async () => {
    const created = await req("POST", "/api/v1/categories", { display_name: "Garden Center", parent_slug: "home" });
    expect(created.statusCode).toBe(201);
    const c = created.json();
    expect(c).toMatchObject({
      slug: "garden_center",
      display_name: "Garden Center",
      parent_slug: "home",
      children: [],
    });
    for (const id of [c.slug, c.short_id, c.id])
      expect((await req("GET", `/api/v1/categories/${id}`, undefined, s.readKey)).json().id).toBe(c.id);

    const put = await req("PUT", `/api/v1/categories/${c.short_id}`, {
      display_name: "Garden",
      slug: "garden",
      parent_slug: null,
    });
    expect(put.statusCode).toBe(200);
    expect(put.json()).toMatchObject({
      id: c.id,
      slug: "garden",
      display_name: "Garden",
      parent_slug: null,
      parent_id: null,
    });

    const ids = await categorized("garden", 2);
    const del = await req("DELETE", "/api/v1/categories/garden");
    expect(del.statusCode).toBe(200);
    expect(del.json()).toEqual({ transactions_uncategorized: 2 });
    const [row] = await query<{ category_id: string | null }>(
      s.orm.em.fork(),
      `select category_id from transactions where id = ?`,
      [ids[0]],
    );
    expect(row.category_id).toBeNull();
    expectEnvelope(await req("GET", `/api/v1/categories/${c.id}`), "NOT_FOUND");
  });

  it("POST /categories/:id/merge moves transactions and answers with the target and the count", async () => {
    const src = (
      await req("POST", "/api/v1/categories", { display_name: "Lattes", parent_slug: "food_and_drink" })
    ).json();
    await categorized(src.slug, 3);
    const res = await req("POST", `/api/v1/categories/${src.short_id}/merge`, { into: "food_and_drink_coffee" });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      category: { slug: "food_and_drink_coffee", parent_slug: "food_and_drink" },
      transactions_moved: 3,
    });
    const notes = await query(
      s.orm.em.fork(),
      `select action from annotations where entity_id = ? order by created_at`,
      [src.id],
    );
    expect(notes).toEqual([{ action: "created" }, { action: "merged" }]);
  });

  it("conflicts: duplicate slug → 409 SLUG_CONFLICT; children in the way → 409 CONFLICT; system → 403", async () => {
    expectEnvelope(await req("POST", "/api/v1/categories", { display_name: "Travel" }), "SLUG_CONFLICT");
    expectEnvelope(await req("PUT", "/api/v1/categories/travel_flights", { slug: "travel" }), "SLUG_CONFLICT");
    expectEnvelope(await req("DELETE", "/api/v1/categories/travel"), "CONFLICT");
    expectEnvelope(await req("PUT", "/api/v1/categories/travel", { parent_slug: "home" }), "CONFLICT");
    expectEnvelope(await req("POST", "/api/v1/categories/travel/merge", { into: "home_repairs" }), "CONFLICT");
    expectEnvelope(await req("DELETE", "/api/v1/categories/uncategorized"), "FORBIDDEN");
    expectEnvelope(await req("PUT", "/api/v1/categories/uncategorized", { slug: "other" }), "FORBIDDEN");
    expectEnvelope(await req("POST", "/api/v1/categories/uncategorized/merge", { into: "travel" }), "FORBIDDEN");
  });

  it("bad input: schema violation → 400 INVALID_PARAMETER naming the field; rule → 400 VALIDATION_ERROR", async () => {
    expect(
      expectEnvelope(await req("POST", "/api/v1/categories", { slug: "x" }), "INVALID_PARAMETER").message,
    ).toContain("display_name");
    expect(
      expectEnvelope(await req("POST", "/api/v1/categories", { display_name: 5 }), "INVALID_PARAMETER").message,
    ).toContain("display_name");
    expect(
      expectEnvelope(await req("PUT", "/api/v1/categories/travel", { parent: "x" }), "INVALID_PARAMETER").message,
    ).toContain("parent");
    expect(
      expectEnvelope(await req("POST", "/api/v1/categories/travel/merge", {}), "INVALID_PARAMETER").message,
    ).toContain("into");
    expectEnvelope(
      await req("POST", "/api/v1/categories", { display_name: "Bad", slug: "Not OK!" }),
      "VALIDATION_ERROR",
    );
    expectEnvelope(
      await req("POST", "/api/v1/categories", { display_name: "Deep", parent_slug: "travel_flights" }),
      "VALIDATION_ERROR",
    );
    expectEnvelope(
      await req("POST", "/api/v1/categories/travel_flights/merge", { into: "travel_flights" }),
      "VALIDATION_ERROR",
    );
    expectEnvelope(
      await req("POST", "/api/v1/categories", { display_name: "Orphan", parent_slug: "nope" }),
      "VALIDATION_ERROR",
    );
    expectEnvelope(
      await req("POST", "/api/v1/categories/travel_lodging/merge", { into: "no_such_category" }),
      "VALIDATION_ERROR",
    );
  });

  it.each([
    "zzzzzzzz",
    "no_such_category",
    "00000000-0000-0000-0000-000000000000",
    "%27%20OR%201%3D1--",
    "x".repeat(300),
    "%E2%98%83",
  ])("GET, PUT, DELETE and merge on /api/v1/categories/%s → 404 NOT_FOUND, never 500", async (id) => {
    expectEnvelope(await req("GET", `/api/v1/categories/${id}`), "NOT_FOUND");
    expectEnvelope(await req("PUT", `/api/v1/categories/${id}`, { display_name: "x" }), "NOT_FOUND");
    expectEnvelope(await req("DELETE", `/api/v1/categories/${id}`), "NOT_FOUND");
    expectEnvelope(await req("POST", `/api/v1/categories/${id}/merge`, { into: "travel" }), "NOT_FOUND");
  });

  it("writes need full_access → 403 INSUFFICIENT_SCOPE", async () => {
    const r = s.readKey;
    expectEnvelope(await req("POST", "/api/v1/categories", { display_name: "Nope" }, r), "INSUFFICIENT_SCOPE");
    expectEnvelope(await req("PUT", "/api/v1/categories/travel", { display_name: "Nope" }, r), "INSUFFICIENT_SCOPE");
    expectEnvelope(await req("DELETE", "/api/v1/categories/travel_car_rental", undefined, r), "INSUFFICIENT_SCOPE");
    expectEnvelope(
      await req("POST", "/api/v1/categories/travel_car_rental/merge", { into: "travel" }, r),
      "INSUFFICIENT_SCOPE",
    );
    expect((await req("GET", "/api/v1/categories/travel_car_rental", undefined, r)).statusCode).toBe(200);
  });
});
