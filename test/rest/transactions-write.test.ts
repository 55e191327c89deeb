import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertApiKey } from "../../services/auth/api-keys.js";
import { query } from "../../services/db/sql.js";
import { newAccount, newTransactions, newUser } from "../helpers/ledger.js";
import { expectEnvelope, key } from "../helpers/rest.js";
import { startStack, type Stack } from "../helpers/stack.js";

// The transaction write endpoints through the REST gateway: shapes, status
// codes and every error path.

let s: Stack;
let agentKey: string;
let user: { id: string; shortId: string };
let account: { id: string; shortId: string };

beforeAll(async () => {
  s = await startStack();
  const em = s.orm.em.fork();
  agentKey = (await insertApiKey(em, { name: "helper agent", scope: "full_access", actorType: "agent" })).plaintext;
  user = await newUser(em, "Ann");
  account = await newAccount(em, user.id, { name: "Joint" });
});
afterAll(async () => {
  await s.close();
});

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
const call = (method: Method, url: string, payload?: unknown, k = s.adminKey) =>
  s.rest.inject({ method, url, headers: key(k), ...(payload === undefined ? {} : { payload: payload as object }) });

async function newTx(
  extra: Parameters<typeof newTransactions>[2][number] = {},
): Promise<{ id: string; short_id: string }> {
  const em = s.orm.em.fork();
  const [id] = await newTransactions(em, account.id, [{ amount: "42.50", providerName: "CORNER GROCER", ...extra }]);
  const [row] = await query<{ short_id: string }>(em, `select short_id from transactions where id = ?`, [id]);
  return { id, short_id: row.short_id };
}

const annotationCount = async () =>
  Number((await query<{ n: string }>(s.orm.em.fork(), `select count(*) as n from annotations`))[0].n);

describe("PATCH/DELETE /api/v1/transactions/:id/category", () => {
  it("sets the category and returns the whole transaction as REST JSON", async () => {
    const t = await newTx();
    const res = await call("PATCH", `/api/v1/transactions/${t.short_id}/category`, {
      category_slug: "food_and_drink_groceries",
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      id: t.id,
      short_id: t.short_id,
      account_id: account.shortId,
      account_name: "Joint",
      user_id: user.shortId,
      amount: 42.5,
      iso_currency_code: "USD",
      date: "2026-01-15",
      name: "CORNER GROCER",
      category_slug: "food_and_drink_groceries",
      category_display_name: "Groceries",
      category_parent_slug: "food_and_drink",
      category_source: "user",
      tags: [],
      metadata: {},
      deleted_at: null,
      updated_at: expect.stringMatching(/Z$/),
    });
  });

  it("an agent's key records category_source agent", async () => {
    const t = await newTx();
    const res = await call("PATCH", `/api/v1/transactions/${t.id}/category`, { category_slug: "travel" }, agentKey);
    expect(res.json().category_source).toBe("agent");
  });

  it("DELETE resets it to uncategorized with no source", async () => {
    const t = await newTx();
    await call("PATCH", `/api/v1/transactions/${t.id}/category`, { category_slug: "travel" });
    const res = await call("DELETE", `/api/v1/transactions/${t.id}/category`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({
      category_slug: "uncategorized",
      category_display_name: "Uncategorized",
      category_source: null,
      category_parent_slug: null,
    });
  });

  it("an unknown slug → 400 VALIDATION_ERROR naming it", async () => {
    const t = await newTx();
    const err = expectEnvelope(
      await call("PATCH", `/api/v1/transactions/${t.id}/category`, { category_slug: "shoes" }),
      "VALIDATION_ERROR",
    );
    expect(err.message).toContain('"shoes"');
  });

  it.each([
    ["missing", {}, "category_slug"],
    ["a number", { category_slug: 5 }, "category_slug"],
    ["empty", { category_slug: "" }, "category_slug"],
    ["an unknown field", { category_slug: "travel", source: "rule" }, "source"],
  ])("category_slug %s → 400 INVALID_PARAMETER naming %s", async (_what, payload, param) => {
    const t = await newTx();
    const err = expectEnvelope(
      await call("PATCH", `/api/v1/transactions/${t.id}/category`, payload),
      "INVALID_PARAMETER",
    );
    expect(err.message).toContain(param);
  });
});

describe("POST /api/v1/transactions/batch-categorize", () => {
  it("returns {updated}", async () => {
    const a = await newTx();
    const b = await newTx();
    const res = await call("POST", "/api/v1/transactions/batch-categorize", {
      transaction_ids: [a.id, b.short_id, a.short_id],
      category_slug: "medical_dental",
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ updated: 2 });
  });

  it("an unknown id → 404 NOT_FOUND and nothing changes", async () => {
    const a = await newTx();
    const before = await annotationCount();
    const err = expectEnvelope(
      await call("POST", "/api/v1/transactions/batch-categorize", {
        transaction_ids: [a.id, "AAAAAAAA"],
        category_slug: "medical_dental",
      }),
      "NOT_FOUND",
    );
    expect(err.message).toContain('"AAAAAAAA"');
    expect(await annotationCount()).toBe(before);
    const [row] = await query<{ category_id: string | null }>(
      s.orm.em.fork(),
      `select category_id from transactions where id = ?`,
      [a.id],
    );
    expect(row.category_id).toBeNull();
  });

  it.each([
    ["no ids", { transaction_ids: [], category_slug: "travel" }, "transaction_ids"],
    ["501 ids", { transaction_ids: Array(501).fill("AAAAAAAA"), category_slug: "travel" }, "transaction_ids"],
    ["ids not an array", { transaction_ids: "AAAAAAAA", category_slug: "travel" }, "transaction_ids"],
    ["no slug", { transaction_ids: ["AAAAAAAA"] }, "category_slug"],
  ])("%s → 400 INVALID_PARAMETER", async (_what, payload, param) => {
    expect(
      expectEnvelope(await call("POST", "/api/v1/transactions/batch-categorize", payload), "INVALID_PARAMETER").message,
    ).toContain(param);
  });

  it("a body that is not an object → 400 INVALID_BODY", async () => {
    expectEnvelope(await call("POST", "/api/v1/transactions/batch-categorize", ["x"]), "INVALID_BODY");
  });
});

describe("tags", () => {
  it("POST adds (creating an unknown tag), a repeat is a 200 no-op, DELETE removes", async () => {
    const t = await newTx();
    const added = await call("POST", `/api/v1/transactions/${t.id}/tags`, { slug: "reimbursable" });
    expect(added.statusCode).toBe(200);
    expect(added.json().tags).toEqual(["reimbursable"]);
    const before = await annotationCount();
    const repeat = await call("POST", `/api/v1/transactions/${t.short_id}/tags`, { slug: "reimbursable" });
    expect(repeat.statusCode).toBe(200);
    expect(await annotationCount()).toBe(before);
    const removed = await call("DELETE", `/api/v1/transactions/${t.id}/tags/reimbursable`);
    expect(removed.statusCode).toBe(200);
    expect(removed.json()).toMatchObject({ id: t.id, tags: [] });
  });

  it("a malformed slug → 400 VALIDATION_ERROR; a missing one → 400 INVALID_PARAMETER", async () => {
    const t = await newTx();
    expectEnvelope(await call("POST", `/api/v1/transactions/${t.id}/tags`, { slug: "Bad Slug" }), "VALIDATION_ERROR");
    expect(
      expectEnvelope(await call("POST", `/api/v1/transactions/${t.id}/tags`, {}), "INVALID_PARAMETER").message,
    ).toContain("slug");
  });

  it("DELETE of a tag not on the transaction, or an unknown tag → 404 NOT_FOUND", async () => {
    const t = await newTx();
    await call("POST", `/api/v1/transactions/${t.id}/tags`, { slug: "elsewhere" });
    const other = await newTx();
    expectEnvelope(
      await call("DELETE", `/api/v1/transactions/${other.id}/tags/elsewhere`),
      "NOT_FOUND",
      'Tag "elsewhere" is not on this transaction',
    );
    expectEnvelope(
      await call("DELETE", `/api/v1/transactions/${other.id}/tags/no_such_tag`),
      "NOT_FOUND",
      'Tag "no_such_tag" not found',
    );
  });
});

describe("metadata", () => {
  it("PUT replaces, PATCH merges (null removes), DELETE /:key removes one, DELETE removes all", async () => {
    const t = await newTx();
    const put = await call("PUT", `/api/v1/transactions/${t.id}/metadata`, { receipt: "R-7", trip: "Oslo" });
    expect(put.statusCode).toBe(200);
    expect(put.json().metadata).toEqual({ receipt: "R-7", trip: "Oslo" });
    const patch = await call("PATCH", `/api/v1/transactions/${t.id}/metadata`, {
      trip: null,
      people: ["ann", "bob"],
      paid: true,
      share: 0.5,
    });
    expect(patch.json().metadata).toEqual({ receipt: "R-7", people: ["ann", "bob"], paid: true, share: 0.5 });
    const replaced = await call("PUT", `/api/v1/transactions/${t.id}/metadata`, { a: 1, b: 2 });
    expect(replaced.json().metadata).toEqual({ a: 1, b: 2 });
    const one = await call("DELETE", `/api/v1/transactions/${t.id}/metadata/a`);
    expect(one.statusCode).toBe(200);
    expect(one.json().metadata).toEqual({ b: 2 });
    const all = await call("DELETE", `/api/v1/transactions/${t.id}/metadata`);
    expect(all.json().metadata).toEqual({});
    const empty = await call("PUT", `/api/v1/transactions/${t.id}/metadata`, {});
    expect(empty.statusCode).toBe(200);
  });

  it("DELETE of a key that is not there → 404 NOT_FOUND", async () => {
    const t = await newTx();
    expectEnvelope(
      await call("DELETE", `/api/v1/transactions/${t.id}/metadata/nope`),
      "NOT_FOUND",
      'Metadata key "nope" not found on this transaction',
    );
  });

  it.each([
    ["an array", [1, 2]],
    ["a string", "text"],
    ["a number", 7],
  ])("a body that is %s → 400 INVALID_BODY", async (_what, payload) => {
    const t = await newTx();
    expectEnvelope(
      await s.rest.inject({
        method: "PUT",
        url: `/api/v1/transactions/${t.id}/metadata`,
        headers: { ...key(s.adminKey), "content-type": "application/json" },
        payload: JSON.stringify(payload),
      }),
      "INVALID_BODY",
    );
  });

  it("no body, or a body with __proto__ → 400 INVALID_BODY, never stored", async () => {
    const t = await newTx();
    expectEnvelope(await call("PATCH", `/api/v1/transactions/${t.id}/metadata`), "INVALID_BODY");
    const res = await s.rest.inject({
      method: "PATCH",
      url: `/api/v1/transactions/${t.id}/metadata`,
      headers: { ...key(s.adminKey), "content-type": "application/json" },
      payload: '{"__proto__": {"x": 1}}',
    });
    expectEnvelope(res, "INVALID_BODY");
    expect(
      (await query<{ metadata: object }>(s.orm.em.fork(), `select metadata from transactions where id = ?`, [t.id]))[0]
        .metadata,
    ).toEqual({});
  });

  it("51 keys, a bad key, or more than 16 KiB → 400 VALIDATION_ERROR", async () => {
    const t = await newTx();
    const many = Object.fromEntries(Array.from({ length: 51 }, (_, i) => [`k${i}`, i]));
    expectEnvelope(
      await call("PUT", `/api/v1/transactions/${t.id}/metadata`, many),
      "VALIDATION_ERROR",
      /at most 50 keys/,
    );
    expectEnvelope(
      await call("PATCH", `/api/v1/transactions/${t.id}/metadata`, { "bad key": 1 }),
      "VALIDATION_ERROR",
      /metadata key "bad key"/,
    );
    expectEnvelope(
      await call("PUT", `/api/v1/transactions/${t.id}/metadata`, { big: "x".repeat(17_000) }),
      "VALIDATION_ERROR",
      /16384 bytes/,
    );
  });
});

describe("comments", () => {
  it("POST 201, GET {comments} oldest first, PATCH edits, DELETE 204", async () => {
    const t = await newTx();
    const created = await call("POST", `/api/v1/transactions/${t.short_id}/comments`, {
      body: "Birthday present for Sam",
    });
    expect(created.statusCode).toBe(201);
    const c = created.json();
    expect(c).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      short_id: expect.stringMatching(/^[0-9A-Za-z]{8}$/),
      transaction_id: t.short_id,
      body: "Birthday present for Sam",
      author_type: "user",
      author_name: "test admin",
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
    });
    await call("POST", `/api/v1/transactions/${t.id}/comments`, { body: "Second" }, agentKey);

    const list = await call("GET", `/api/v1/transactions/${t.id}/comments`, undefined, s.readKey);
    expect(list.statusCode).toBe(200);
    expect(list.json().comments.map((x: { body: string; author_type: string }) => [x.body, x.author_type])).toEqual([
      ["Birthday present for Sam", "user"],
      ["Second", "agent"],
    ]);

    const edited = await call("PATCH", `/api/v1/transactions/${t.id}/comments/${c.short_id}`, {
      body: "Present for Sam",
    });
    expect(edited.statusCode).toBe(200);
    expect(edited.json()).toMatchObject({ id: c.id, body: "Present for Sam" });

    const del = await call("DELETE", `/api/v1/transactions/${t.id}/comments/${c.id}`);
    expect(del.statusCode).toBe(204);
    expect(del.body).toBe("");
    expect((await call("GET", `/api/v1/transactions/${t.id}/comments`)).json().comments).toHaveLength(1);
  });

  it("a blank or over-long body → 400 VALIDATION_ERROR; a missing body field → 400 INVALID_PARAMETER", async () => {
    const t = await newTx();
    expectEnvelope(await call("POST", `/api/v1/transactions/${t.id}/comments`, { body: "   " }), "VALIDATION_ERROR");
    expectEnvelope(
      await call("POST", `/api/v1/transactions/${t.id}/comments`, { body: "x".repeat(10_001) }),
      "VALIDATION_ERROR",
    );
    expect(
      expectEnvelope(await call("POST", `/api/v1/transactions/${t.id}/comments`, { text: "hi" }), "INVALID_PARAMETER")
        .message,
    ).toBe("body is required");
  });

  it("a comment of another transaction → 404 NOT_FOUND", async () => {
    const t1 = await newTx();
    const t2 = await newTx();
    const c = (await call("POST", `/api/v1/transactions/${t1.id}/comments`, { body: "on t1" })).json();
    expectEnvelope(
      await call("PATCH", `/api/v1/transactions/${t2.id}/comments/${c.id}`, { body: "hijack" }),
      "NOT_FOUND",
      "Comment not found",
    );
    expectEnvelope(
      await call("DELETE", `/api/v1/transactions/${t2.id}/comments/${c.short_id}`),
      "NOT_FOUND",
      "Comment not found",
    );
  });
});

describe("annotations, delete and restore", () => {
  it("GET /annotations is the audit timeline, oldest first, with who, what and details", async () => {
    const t = await newTx();
    await call("PATCH", `/api/v1/transactions/${t.id}/category`, { category_slug: "travel_lodging" });
    await call("POST", `/api/v1/transactions/${t.id}/tags`, { slug: "trip_2026" }, agentKey);
    await call("PATCH", `/api/v1/transactions/${t.id}/metadata`, { booking: "HX-1" });
    await call("DELETE", `/api/v1/transactions/${t.id}`);
    // Readable while deleted, with a read_only key.
    const res = await call("GET", `/api/v1/transactions/${t.short_id}/annotations`, undefined, s.readKey);
    expect(res.statusCode).toBe(200);
    const { annotations } = res.json();
    expect(annotations.map((a: { action: string }) => a.action)).toEqual([
      "category_set",
      "tag_added",
      "metadata_set",
      "deleted",
    ]);
    expect(annotations[0]).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      short_id: expect.stringMatching(/^[0-9A-Za-z]{8}$/),
      transaction_id: t.short_id,
      entity_type: "transaction",
      action: "category_set",
      actor_type: "user",
      actor_id: expect.stringMatching(/^[0-9A-Za-z]{8}$/),
      actor_name: "test admin",
      details: { from: "uncategorized", to: "travel_lodging", source: "user", previous_source: null },
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
    });
    expect(annotations[1]).toMatchObject({
      actor_type: "agent",
      actor_name: "helper agent",
      details: { tag: "trip_2026" },
    });
    expect(annotations[2].details).toEqual({ keys_set: ["booking"], keys_removed: [], replace: false });
  });

  it("a deleted transaction disappears from GET, lists and counts, and comes back on restore", async () => {
    const em = s.orm.em.fork();
    const own = await newAccount(em, user.id, { name: "Delete test" });
    const [id] = await newTransactions(em, own.id, [{ providerName: "GONE SOON" }, { providerName: "STAYS" }]);
    const visible = async () => {
      const get = await call("GET", `/api/v1/transactions/${id}`);
      const list = await call("GET", `/api/v1/transactions?account_id=${own.shortId}`);
      const count = await call("GET", `/api/v1/transactions/count?account_id=${own.shortId}`);
      return {
        get: get.statusCode,
        names: list.json().transactions.map((t: { name: string }) => t.name),
        count: count.json().count,
      };
    };
    expect(await visible()).toEqual({ get: 200, names: expect.arrayContaining(["GONE SOON", "STAYS"]), count: 2 });
    expect((await call("DELETE", `/api/v1/transactions/${id}`)).statusCode).toBe(204);
    expect(await visible()).toEqual({ get: 404, names: ["STAYS"], count: 1 });
    expect((await call("POST", `/api/v1/transactions/${id}/restore`)).statusCode).toBe(200);
    expect(await visible()).toEqual({ get: 200, names: expect.arrayContaining(["GONE SOON", "STAYS"]), count: 2 });
  });

  it("DELETE → 204; the transaction then answers 404 to writes; restore → 200 and again 409", async () => {
    const t = await newTx();
    const del = await call("DELETE", `/api/v1/transactions/${t.short_id}`);
    expect(del.statusCode).toBe(204);
    expect(del.body).toBe("");
    expectEnvelope(await call("DELETE", `/api/v1/transactions/${t.id}`), "NOT_FOUND", "Transaction not found");
    expectEnvelope(
      await call("PATCH", `/api/v1/transactions/${t.id}/category`, { category_slug: "travel" }),
      "NOT_FOUND",
    );
    expectEnvelope(await call("GET", `/api/v1/transactions/${t.id}/comments`), "NOT_FOUND");
    const restored = await call("POST", `/api/v1/transactions/${t.id}/restore`);
    expect(restored.statusCode).toBe(200);
    expect(restored.json()).toMatchObject({ id: t.id, deleted_at: null });
    expectEnvelope(
      await call("POST", `/api/v1/transactions/${t.id}/restore`),
      "CONFLICT",
      "This transaction is not deleted",
    );
  });
});

describe("ids, scopes and methods", () => {
  const writes = (id: string): [Method, string, unknown][] => [
    ["PATCH", `/api/v1/transactions/${id}/category`, { category_slug: "travel" }],
    ["DELETE", `/api/v1/transactions/${id}/category`, undefined],
    ["POST", `/api/v1/transactions/${id}/tags`, { slug: "x" }],
    ["DELETE", `/api/v1/transactions/${id}/tags/x`, undefined],
    ["PUT", `/api/v1/transactions/${id}/metadata`, { a: 1 }],
    ["PATCH", `/api/v1/transactions/${id}/metadata`, { a: 1 }],
    ["DELETE", `/api/v1/transactions/${id}/metadata`, undefined],
    ["DELETE", `/api/v1/transactions/${id}/metadata/a`, undefined],
    ["POST", `/api/v1/transactions/${id}/comments`, { body: "x" }],
    ["PATCH", `/api/v1/transactions/${id}/comments/AAAAAAAA`, { body: "x" }],
    ["DELETE", `/api/v1/transactions/${id}/comments/AAAAAAAA`, undefined],
    ["DELETE", `/api/v1/transactions/${id}`, undefined],
    ["POST", `/api/v1/transactions/${id}/restore`, undefined],
  ];

  it.each([
    "zzzzzzzz",
    "abc",
    "00000000-0000-0000-0000-000000000000",
    "%27%20OR%201%3D1--",
    "x".repeat(300),
    "%E2%98%83",
  ])("every endpoint answers 404 NOT_FOUND for transaction id %s, never 500", async (id) => {
    for (const [method, url, payload] of [
      ...writes(id),
      ["GET", `/api/v1/transactions/${id}/comments`, undefined],
      ["GET", `/api/v1/transactions/${id}/annotations`, undefined],
    ] as [Method, string, unknown][]) {
      expectEnvelope(await call(method, url, payload), "NOT_FOUND");
    }
  });

  it("every write endpoint refuses a read_only key with 403 INSUFFICIENT_SCOPE; nothing changes", async () => {
    const t = await newTx();
    const before = await annotationCount();
    for (const [method, url, payload] of writes(t.id)) {
      expectEnvelope(await call(method, url, payload, s.readKey), "INSUFFICIENT_SCOPE");
    }
    expectEnvelope(
      await call(
        "POST",
        "/api/v1/transactions/batch-categorize",
        { transaction_ids: [t.id], category_slug: "travel" },
        s.readKey,
      ),
      "INSUFFICIENT_SCOPE",
    );
    expect(await annotationCount()).toBe(before);
  });

  it("no key → 401; an unsupported method → 405", async () => {
    const t = await newTx();
    expectEnvelope(
      await s.rest.inject({ method: "POST", url: `/api/v1/transactions/${t.id}/tags`, payload: { slug: "x" } }),
      "MISSING_CREDENTIALS",
    );
    expectEnvelope(await call("GET", `/api/v1/transactions/${t.id}/category`), "METHOD_NOT_ALLOWED");
    expectEnvelope(await call("GET", "/api/v1/transactions/batch-categorize"), "METHOD_NOT_ALLOWED");
  });
});
