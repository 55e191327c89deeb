import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { insertApiKey } from "../../services/auth/api-keys.js";
import { query } from "../../services/db/sql.js";
import { newAccount, newTransactions, newUser } from "../helpers/ledger.js";
import { expectEnvelope, key } from "../helpers/rest.js";
import { startStack, type Stack } from "../helpers/stack.js";

let s: Stack;
let agentKey: string;
let agentKeyShortId: string;
let adminKeyShortId: string;
let accountId: string;

beforeAll(async () => {
  s = await startStack();
  const em = s.orm.em.fork();
  const agent = await insertApiKey(em, { name: "claude weekly", scope: "full_access", actorType: "agent" });
  agentKey = agent.plaintext;
  agentKeyShortId = agent.key.shortId;
  adminKeyShortId = (await req("GET", "/api/v1/keys/me")).json().short_id;
  accountId = (await newAccount(em, (await newUser(em)).id)).id;
});
afterAll(async () => {
  await s?.close();
});
beforeEach(async () => {
  await query(s.orm.em.fork(), `delete from reports`);
});

const req = (method: "GET" | "POST" | "PATCH" | "DELETE" | "PUT", url: string, payload?: object, apiKey?: string) =>
  s.rest.inject({ method, url, headers: key(apiKey ?? s.adminKey), payload });

type ReportJson = Record<string, unknown> & { id: string; short_id: string; title: string };

async function post(payload: object, apiKey = agentKey): Promise<ReportJson> {
  const res = await req("POST", "/api/v1/reports", payload, apiKey);
  expect(res.statusCode, res.body).toBe(201);
  return res.json();
}

const unreadCount = async () => {
  const res = await req("GET", "/api/v1/reports/unread-count", undefined, s.readKey);
  expect(res.statusCode).toBe(200);
  expect(Object.keys(res.json())).toEqual(["count"]);
  return res.json<{ count: number }>().count;
};

async function txShortIds(n: number): Promise<string[]> {
  const em = s.orm.em.fork();
  const ids = await newTransactions(
    em,
    accountId,
    Array.from({ length: n }, () => ({})),
  );
  const rows = await query<{ id: string; short_id: string }>(em, `select id, short_id from transactions`);
  return ids.map((id) => rows.find((r) => r.id === id)!.short_id);
}

describe("reports over REST", () => {
  it("POST (201) by an agent key → the report with the key's creator fields", async () => {
    const [t1, t2] = await txShortIds(2);
    const r = await post({
      title: "Weekly spending review",
      body: "## Summary\n\nGroceries up 12%.",
      priority: "warning",
      tags: ["weekly_review"],
      author: "Claude",
      transaction_ids: [t1, t2],
    });
    expect(r).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      short_id: expect.stringMatching(/^[0-9A-Za-z]{8}$/),
      title: "Weekly spending review",
      body: "## Summary\n\nGroceries up 12%.",
      priority: "warning",
      tags: ["weekly_review"],
      author: "Claude",
      created_by_type: "agent",
      created_by_id: agentKeyShortId,
      created_by_name: "claude weekly",
      transactions: [
        { transaction_id: t1, deleted: false },
        { transaction_id: t2, deleted: false },
      ],
      read_at: null,
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
    });
  });

  it("POST by a user key → created_by_type user; left-out fields take their defaults", async () => {
    const r = await post({ title: "Note", body: "Text", priority: null, author: null }, s.adminKey);
    expect(r).toMatchObject({
      priority: "info",
      tags: [],
      author: null,
      transactions: [],
      created_by_type: "user",
      created_by_id: adminKeyShortId,
      created_by_name: "test admin",
    });
  });

  it("GET lists {reports, truncated} newest first, bodies with fields=body; GET /{id} by either id", async () => {
    const a = await post({ title: "older", body: "A" });
    const b = await post({ title: "newer", body: "B" });
    const list = await req("GET", "/api/v1/reports", undefined, s.readKey);
    expect(list.statusCode).toBe(200);
    const light = ({ body: _, ...rest }: ReportJson) => rest;
    expect(list.json()).toEqual({ reports: [light(b), light(a)], truncated: false });
    const full = await req("GET", "/api/v1/reports?fields=body", undefined, s.readKey);
    expect(full.json()).toEqual({ reports: [b, a], truncated: false });
    for (const id of [a.short_id, a.id]) {
      const one = await req("GET", `/api/v1/reports/${id}`, undefined, s.readKey);
      expect(one.statusCode).toBe(200);
      expect(one.json()).toEqual(a);
    }
  });

  it("GET filters: unread, priority, tag, since", async () => {
    const a = await post({ title: "a", body: "x", priority: "critical", tags: ["subscriptions"] });
    await post({ title: "b", body: "x", tags: ["subscriptions", "weekly"] });
    await req("PATCH", `/api/v1/reports/${a.short_id}/read`);
    const list = async (qs: string) =>
      (await req("GET", `/api/v1/reports?${qs}`, undefined, s.readKey))
        .json<{ reports: ReportJson[] }>()
        .reports.map((r) => r.title);
    expect(await list("unread=true")).toEqual(["b"]);
    expect(await list("unread=false")).toEqual(["a"]);
    expect(await list("priority=critical")).toEqual(["a"]);
    expect(await list("tag=subscriptions")).toEqual(["b", "a"]);
    expect(await list("tag=weekly&unread=true")).toEqual(["b"]);
    expect(await list("since=2000-01-01")).toEqual(["b", "a"]);
    expect(await list("since=2999-01-01T00:00:00Z")).toEqual([]);
  });

  it("bad filters → 400 INVALID_PARAMETER naming the parameter", async () => {
    for (const [qs, name] of [
      ["priority=urgent", "priority"],
      ["unread=maybe", "unread"],
      ["tag=Not%20a%20slug", "tag"],
      ["since=yesterday", "since"],
      ["since=2026-02-30", "since"],
      ["limit=5", "limit"],
      ["fields=title", "fields"],
    ]) {
      const e = expectEnvelope(await req("GET", `/api/v1/reports?${qs}`, undefined, s.readKey), "INVALID_PARAMETER");
      expect(e.message, qs).toContain(name);
    }
  });

  it("unread-count after PATCH read, PATCH unread and POST read-all", async () => {
    const [a, b] = [await post({ title: "a", body: "x" }), await post({ title: "b", body: "x" })];
    await post({ title: "c", body: "x" });
    expect(await unreadCount()).toBe(3);

    const read = await req("PATCH", `/api/v1/reports/${a.short_id}/read`);
    expect(read.statusCode).toBe(200);
    expect(read.json()).toMatchObject({ id: a.id, read_at: expect.stringMatching(/Z$/) });
    expect(await unreadCount()).toBe(2);

    const unread = await req("PATCH", `/api/v1/reports/${a.id}/unread`);
    expect(unread.statusCode).toBe(200);
    expect(unread.json()).toMatchObject({ id: a.id, read_at: null });
    expect(await unreadCount()).toBe(3);

    await req("PATCH", `/api/v1/reports/${b.short_id}/read`);
    const all = await req("POST", "/api/v1/reports/read-all");
    expect(all.statusCode).toBe(200);
    expect(all.json()).toEqual({ updated: 2 });
    expect(await unreadCount()).toBe(0);
    expect((await req("POST", "/api/v1/reports/read-all")).json()).toEqual({ updated: 0 });
  });

  it("DELETE (204) removes the report; then GET is 404", async () => {
    const r = await post({ title: "gone soon", body: "x" });
    const del = await req("DELETE", `/api/v1/reports/${r.short_id}`);
    expect(del.statusCode).toBe(204);
    expect(del.body).toBe("");
    expectEnvelope(await req("GET", `/api/v1/reports/${r.id}`), "NOT_FOUND");
  });

  it("a deleted transaction stays referenced and shows deleted: true", async () => {
    const [keep, drop] = await txShortIds(2);
    const r = await post({ title: "Odd charges", body: "See these.", transaction_ids: [keep, drop] });
    expect((await req("DELETE", `/api/v1/transactions/${drop}`)).statusCode).toBe(204);
    expect((await req("GET", `/api/v1/reports/${r.short_id}`)).json().transactions).toEqual([
      { transaction_id: keep, deleted: false },
      { transaction_id: drop, deleted: true },
    ]);
  });

  it.each([
    ["title", { title: "" }],
    ["title", { title: "t".repeat(201) }],
    ["title", { title: "bad\u0000title" }],
    ["title", { title: "two\nlines" }],
    ["body", { body: "" }],
    ["body", { body: "b".repeat(50_001) }],
    ["body", { body: "nul \u0000 here" }],
    ["body", { body: "bell \u0007" }],
    ["priority", { priority: "urgent" }],
    ["tags", { tags: Array.from({ length: 11 }, (_, i) => `tag${i}`) }],
    ["tags[0]", { tags: ["Bad Slug"] }],
    ["author", { author: "x\u001b" }],
    ["transaction_ids", { transaction_ids: Array.from({ length: 101 }, () => "AAAAAAAA") }],
    ["transaction_ids", { transaction_ids: ["ZZZZZZZZ"] }],
  ])("POST with a bad %s → 400 VALIDATION_ERROR naming it", async (field, fields) => {
    const e = expectEnvelope(
      await req("POST", "/api/v1/reports", { title: "t", body: "b", ...fields }),
      "VALIDATION_ERROR",
    );
    expect(e.message.startsWith(`${field} `) || e.message.startsWith(`${field}:`), e.message).toBe(true);
  });

  it("POST with the wrong JSON types or unknown fields → 400 INVALID_PARAMETER naming the field", async () => {
    for (const [payload, name] of [
      [{ body: "b" }, "title"],
      [{ title: "t" }, "body"],
      [{ title: 5, body: "b" }, "title"],
      [{ title: "t", body: "b", tags: "weekly" }, "tags"],
      [{ title: "t", body: "b", transaction_ids: [1] }, "transaction_ids"],
      [{ title: "t", body: "b", read: true }, "read"],
    ] as const) {
      const e = expectEnvelope(await req("POST", "/api/v1/reports", payload), "INVALID_PARAMETER");
      expect(e.message).toContain(name);
    }
    expect(await unreadCount()).toBe(0);
  });

  it.each(["ZZZZZZZZ", "00000000-0000-0000-0000-000000000000", "%27%20OR%201%3D1--", "x".repeat(300)])(
    "GET, PATCH read/unread and DELETE /api/v1/reports/%s → 404 NOT_FOUND",
    async (id) => {
      expectEnvelope(await req("GET", `/api/v1/reports/${id}`), "NOT_FOUND");
      expectEnvelope(await req("PATCH", `/api/v1/reports/${id}/read`), "NOT_FOUND");
      expectEnvelope(await req("PATCH", `/api/v1/reports/${id}/unread`), "NOT_FOUND");
      expectEnvelope(await req("DELETE", `/api/v1/reports/${id}`), "NOT_FOUND");
    },
  );

  it("other methods on known paths → 405 with Allow", async () => {
    const put = await req("PUT", "/api/v1/reports");
    expectEnvelope(put, "METHOD_NOT_ALLOWED");
    expect(put.headers.allow).toBe("GET, POST");
    expectEnvelope(await req("DELETE", "/api/v1/reports/unread-count"), "METHOD_NOT_ALLOWED");
    expectEnvelope(await req("GET", "/api/v1/reports/read-all"), "METHOD_NOT_ALLOWED");
  });

  it("reads need read_only; every write needs full_access (403 INSUFFICIENT_SCOPE)", async () => {
    const r = await post({ title: "t", body: "b" });
    for (const url of ["/api/v1/reports", "/api/v1/reports/unread-count", `/api/v1/reports/${r.short_id}`])
      expect((await req("GET", url, undefined, s.readKey)).statusCode, url).toBe(200);
    const writes: [Parameters<typeof req>[0], string, object?][] = [
      ["POST", "/api/v1/reports", { title: "t", body: "b" }],
      ["PATCH", `/api/v1/reports/${r.short_id}/read`],
      ["PATCH", `/api/v1/reports/${r.short_id}/unread`],
      ["POST", "/api/v1/reports/read-all"],
      ["DELETE", `/api/v1/reports/${r.short_id}`],
    ];
    for (const [method, url, payload] of writes)
      expectEnvelope(await req(method, url, payload, s.readKey), "INSUFFICIENT_SCOPE");
    expect(await unreadCount()).toBe(1);
    const noKey = await s.rest.inject({ method: "GET", url: "/api/v1/reports" });
    expectEnvelope(noKey, "MISSING_CREDENTIALS");
  });
});
