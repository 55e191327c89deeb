import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pgArray, query } from "../../services/db/sql.js";
import { newAccount, newTransactions, newUser } from "../helpers/ledger.js";
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

const req = (method: "GET" | "POST" | "PATCH" | "DELETE", url: string, payload?: object, apiKey = s.adminKey) =>
  s.rest.inject({ method, url, headers: key(apiKey), payload });

describe("tags over REST", () => {
  it("POST (201) derives what is missing, GET lists {tags} by slug, GET/PATCH by slug, short id or UUID", async () => {
    const a = await req("POST", "/api/v1/tags", { display_name: "Tax Deductible", color: "#00AA00" });
    expect(a.statusCode).toBe(201);
    expect(a.json()).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      short_id: expect.stringMatching(/^[0-9A-Za-z]{8}$/),
      slug: "tax_deductible",
      display_name: "Tax Deductible",
      color: "#00aa00",
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
    });
    const b = (await req("POST", "/api/v1/tags", { slug: "vacation", color: null })).json();
    expect(b).toMatchObject({ slug: "vacation", display_name: "Vacation", color: null });

    const list = await req("GET", "/api/v1/tags", undefined, s.readKey);
    expect(list.statusCode).toBe(200);
    expect(Object.keys(list.json())).toEqual(["tags"]);
    // needs_review comes with the built-in rule that tags new transactions (migration 0009).
    expect(list.json().tags.map((t: { slug: string }) => t.slug)).toEqual([
      "needs_review",
      "tax_deductible",
      "vacation",
    ]);

    for (const id of ["vacation", b.short_id, b.id])
      expect((await req("GET", `/api/v1/tags/${id}`, undefined, s.readKey)).json()).toEqual(b);
    const patched = await req("PATCH", "/api/v1/tags/vacation", { display_name: "Holidays", color: "#123456" });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toMatchObject({ id: b.id, slug: "vacation", display_name: "Holidays", color: "#123456" });
    expect((await req("PATCH", `/api/v1/tags/${b.short_id}`, { color: null })).json().color).toBeNull();
  });

  it("DELETE (204) removes the tag from its transactions and annotates them", async () => {
    const t = (await req("POST", "/api/v1/tags", { slug: "to_delete" })).json();
    const [tx] = await newTransactions(s.orm.em.fork(), accountId, [{ tagIds: [t.id] }]);
    const del = await req("DELETE", `/api/v1/tags/${t.slug}`);
    expect(del.statusCode).toBe(204);
    expect(del.body).toBe("");
    const [row] = await query<{ tag_ids: string[] }>(s.orm.em.fork(), `select tag_ids from transactions where id = ?`, [
      tx,
    ]);
    expect(row.tag_ids).toEqual([]);
    const notes = await query(
      s.orm.em.fork(),
      `select action, transaction_id from annotations where entity_id = any(?::uuid[]) order by created_at`,
      [pgArray([tx])],
    );
    expect(notes).toEqual([{ action: "tag_removed", transaction_id: tx }]);
    expectEnvelope(await req("GET", `/api/v1/tags/${t.id}`), "NOT_FOUND");
  });

  it("a duplicate slug → 409 SLUG_CONFLICT", async () => {
    await req("POST", "/api/v1/tags", { slug: "dup_tag" });
    expectEnvelope(await req("POST", "/api/v1/tags", { slug: "dup_tag" }), "SLUG_CONFLICT");
    const other = (await req("POST", "/api/v1/tags", { slug: "other_tag" })).json();
    expectEnvelope(await req("PATCH", `/api/v1/tags/${other.id}`, { slug: "dup_tag" }), "SLUG_CONFLICT");
  });

  it("bad input: schema → 400 INVALID_PARAMETER naming the field; rules → 400 VALIDATION_ERROR", async () => {
    expect(expectEnvelope(await req("POST", "/api/v1/tags", { slug: 1 }), "INVALID_PARAMETER").message).toContain(
      "slug",
    );
    expect(expectEnvelope(await req("POST", "/api/v1/tags", { name: "x" }), "INVALID_PARAMETER").message).toContain(
      "name",
    );
    expect(
      expectEnvelope(await req("PATCH", "/api/v1/tags/vacation", { slug: "" }), "INVALID_PARAMETER").message,
    ).toContain("slug");
    expectEnvelope(await req("GET", "/api/v1/tags?sort=slug"), "INVALID_PARAMETER");
    expectEnvelope(await req("POST", "/api/v1/tags", {}), "VALIDATION_ERROR");
    expectEnvelope(await req("POST", "/api/v1/tags", { slug: "ok_slug", color: "green" }), "VALIDATION_ERROR");
    expectEnvelope(await req("POST", "/api/v1/tags", { slug: "Not a slug!" }), "VALIDATION_ERROR");
  });

  it.each([
    "zzzzzzzz",
    "no_such_tag",
    "00000000-0000-0000-0000-000000000000",
    "%27%20OR%201%3D1--",
    "x".repeat(300),
    "%E2%98%83",
  ])("GET, PATCH and DELETE /api/v1/tags/%s → 404 NOT_FOUND, never 500", async (id) => {
    expectEnvelope(await req("GET", `/api/v1/tags/${id}`), "NOT_FOUND");
    expectEnvelope(await req("PATCH", `/api/v1/tags/${id}`, { display_name: "x" }), "NOT_FOUND");
    expectEnvelope(await req("DELETE", `/api/v1/tags/${id}`), "NOT_FOUND");
  });

  it("writes need full_access → 403 INSUFFICIENT_SCOPE", async () => {
    expectEnvelope(await req("POST", "/api/v1/tags", { slug: "nope" }, s.readKey), "INSUFFICIENT_SCOPE");
    expectEnvelope(
      await req("PATCH", "/api/v1/tags/vacation", { display_name: "nope" }, s.readKey),
      "INSUFFICIENT_SCOPE",
    );
    expectEnvelope(await req("DELETE", "/api/v1/tags/vacation", undefined, s.readKey), "INSUFFICIENT_SCOPE");
    expect((await req("GET", "/api/v1/tags/vacation", undefined, s.readKey)).statusCode).toBe(200);
  });
});
