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

let n = 0;
const create = async (payload: object = {}) => {
  const res = await req("POST", "/api/v1/counterparties", { name: `Party ${++n}`, ...payload });
  expect(res.statusCode).toBe(201);
  return res.json();
};

async function counterpartyIds(ids: string[]): Promise<(string | null)[]> {
  const rows = await query<{ id: string; counterparty_id: string | null }>(
    s.orm.em.fork(),
    `select id, counterparty_id from transactions where id = any(?::uuid[])`,
    [pgArray(ids)],
  );
  return ids.map((id) => rows.find((r) => r.id === id)!.counterparty_id);
}

describe("counterparties over REST", () => {
  it("POST (201), GET list {counterparties} with search, GET and PATCH by short id or UUID", async () => {
    const res = await req("POST", "/api/v1/counterparties", {
      name: "Maple Property Management",
      type: "organization",
      notes: "Landlord",
    });
    expect(res.statusCode).toBe(201);
    const c = res.json();
    expect(c).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      short_id: expect.stringMatching(/^[0-9A-Za-z]{8}$/),
      name: "Maple Property Management",
      type: "organization",
      notes: "Landlord",
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
    });
    expect((await create({ name: "Corner Deli" })).type).toBe("merchant");

    const list = await req("GET", "/api/v1/counterparties?search=maple", undefined, s.readKey);
    expect(list.statusCode).toBe(200);
    expect(list.json()).toEqual({ counterparties: [c] });
    expect(
      (await req("GET", "/api/v1/counterparties", undefined, s.readKey)).json().counterparties.length,
    ).toBeGreaterThanOrEqual(2);

    for (const id of [c.id, c.short_id])
      expect((await req("GET", `/api/v1/counterparties/${id}`, undefined, s.readKey)).json()).toEqual(c);
    const patched = await req("PATCH", `/api/v1/counterparties/${c.short_id}`, { notes: null, type: "person" });
    expect(patched.statusCode).toBe(200);
    expect(patched.json()).toMatchObject({ id: c.id, notes: null, type: "person", name: c.name });
  });

  it("a name taken case-insensitively → 409 CONFLICT", async () => {
    await create({ name: "Trader Joe's" });
    expectEnvelope(await req("POST", "/api/v1/counterparties", { name: "TRADER JOE'S" }), "CONFLICT");
    const other = await create();
    expectEnvelope(await req("PATCH", `/api/v1/counterparties/${other.id}`, { name: "trader joe's" }), "CONFLICT");
  });

  it("POST /:id/transactions assigns ({updated}), DELETE /:id/transactions unassigns, both annotated", async () => {
    const c = await create();
    const ids = await newTransactions(s.orm.em.fork(), accountId, [{}, {}]);
    const assigned = await req("POST", `/api/v1/counterparties/${c.short_id}/transactions`, { transaction_ids: ids });
    expect(assigned.statusCode).toBe(200);
    expect(assigned.json()).toEqual({ updated: 2 });
    expect(await counterpartyIds(ids)).toEqual([c.id, c.id]);

    const unassigned = await req("DELETE", `/api/v1/counterparties/${c.id}/transactions`, {
      transaction_ids: [ids[0]],
    });
    expect(unassigned.statusCode).toBe(200);
    expect(unassigned.json()).toEqual({ updated: 1 });
    expect(await counterpartyIds(ids)).toEqual([null, c.id]);
    const notes = await query(
      s.orm.em.fork(),
      `select action from annotations where transaction_id = ? order by created_at, id`,
      [ids[0]],
    );
    expect(notes).toEqual([{ action: "counterparty_assigned" }, { action: "counterparty_unassigned" }]);
  });

  it("assignment is all or nothing: an unknown transaction id → 404 NOT_FOUND and nothing changes", async () => {
    const c = await create();
    const ids = await newTransactions(s.orm.em.fork(), accountId, [{}]);
    expectEnvelope(
      await req("POST", `/api/v1/counterparties/${c.id}/transactions`, { transaction_ids: [ids[0], "zzzzzzzz"] }),
      "NOT_FOUND",
    );
    expect(await counterpartyIds(ids)).toEqual([null]);
  });

  it.each([
    ["an empty list", { transaction_ids: [] }],
    ["more than 500 ids", { transaction_ids: Array.from({ length: 501 }, (_, i) => `id${i}`) }],
    ["a non-array", { transaction_ids: "abc" }],
    ["a missing list", {}],
    ["an unknown field", { transaction_ids: ["a"], force: true }],
  ])("assign or unassign with %s → 400 INVALID_PARAMETER", async (_what, payload) => {
    const c = await create();
    expectEnvelope(await req("POST", `/api/v1/counterparties/${c.id}/transactions`, payload), "INVALID_PARAMETER");
    expectEnvelope(await req("DELETE", `/api/v1/counterparties/${c.id}/transactions`, payload), "INVALID_PARAMETER");
  });

  it("bad input: schema → 400 INVALID_PARAMETER naming the field; rules → 400 VALIDATION_ERROR", async () => {
    expect(
      expectEnvelope(await req("POST", "/api/v1/counterparties", { type: "person" }), "INVALID_PARAMETER").message,
    ).toContain("name");
    expect(
      expectEnvelope(await req("POST", "/api/v1/counterparties", { name: "x", type: "robot" }), "INVALID_PARAMETER")
        .message,
    ).toContain("type");
    expect(expectEnvelope(await req("GET", "/api/v1/counterparties?q=x"), "INVALID_PARAMETER").message).toContain("q");
    expectEnvelope(await req("POST", "/api/v1/counterparties", { name: "   " }), "VALIDATION_ERROR");
  });

  it.each(["zzzzzzzz", "abc", "00000000-0000-0000-0000-000000000000", "%27%20OR%201%3D1--", "x".repeat(300)])(
    "GET, PATCH, assign and unassign on /api/v1/counterparties/%s → 404 NOT_FOUND, never 500",
    async (id) => {
      expectEnvelope(await req("GET", `/api/v1/counterparties/${id}`), "NOT_FOUND");
      expectEnvelope(await req("PATCH", `/api/v1/counterparties/${id}`, { name: "x" }), "NOT_FOUND");
      expectEnvelope(
        await req("POST", `/api/v1/counterparties/${id}/transactions`, { transaction_ids: ["zzzzzzzz"] }),
        "NOT_FOUND",
      );
      expectEnvelope(
        await req("DELETE", `/api/v1/counterparties/${id}/transactions`, { transaction_ids: ["zzzzzzzz"] }),
        "NOT_FOUND",
      );
    },
  );

  it("writes need full_access → 403 INSUFFICIENT_SCOPE", async () => {
    const c = await create();
    const r = s.readKey;
    expectEnvelope(await req("POST", "/api/v1/counterparties", { name: "Nope" }, r), "INSUFFICIENT_SCOPE");
    expectEnvelope(await req("PATCH", `/api/v1/counterparties/${c.id}`, { name: "Nope" }, r), "INSUFFICIENT_SCOPE");
    expectEnvelope(
      await req("POST", `/api/v1/counterparties/${c.id}/transactions`, { transaction_ids: ["zzzzzzzz"] }, r),
      "INSUFFICIENT_SCOPE",
    );
    expectEnvelope(
      await req("DELETE", `/api/v1/counterparties/${c.id}/transactions`, { transaction_ids: ["zzzzzzzz"] }, r),
      "INSUFFICIENT_SCOPE",
    );
  });
});
