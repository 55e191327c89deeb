import { timestampDate } from "@bufbuild/protobuf/wkt";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import type { MessageInitShape } from "@bufbuild/protobuf";
import type { CreateReportRequestSchema, Report } from "../../gen/coffer/v1/reports_pb.js";
import { insertApiKey } from "../../services/auth/api-keys.js";
import { query } from "../../services/db/sql.js";
import { actorOf } from "../../services/ledger/actor.js";
import { deleteTransaction } from "../../services/ledger/transactions/lifecycle.js";
import { createReport, getReport } from "../../services/reports/reports.js";
import { expectCoreError, withKey } from "../helpers/core-error.js";
import { newAccount, newTransactions, newUser } from "../helpers/ledger.js";
import { startStack, type Stack } from "../helpers/stack.js";

// ReportService over Connect against a real core and PostgreSQL.

let s: Stack;
let admin: ReturnType<typeof withKey>;
let reader: ReturnType<typeof withKey>;
let agent: ReturnType<typeof withKey>;
let adminKeyShortId: string;
let agentKeyShortId: string;
let accountId: string;

beforeAll(async () => {
  s = await startStack();
  admin = withKey(s.adminKey);
  reader = withKey(s.readKey);
  const em = s.orm.em.fork();
  const agentKey = await insertApiKey(em, { name: "weekly-bot", scope: "full_access", actorType: "agent" });
  agent = withKey(agentKey.plaintext);
  agentKeyShortId = agentKey.key.shortId;
  adminKeyShortId = (await s.core.apiKeys.getCurrentKey({}, admin)).apiKey!.shortId;
  accountId = (await newAccount(em, (await newUser(em, "Reporter")).id)).id;
});
afterAll(async () => {
  await s?.close();
});
// Each test starts from no reports, so lists and counts are exact.
beforeEach(async () => {
  await query(s.orm.em.fork(), `delete from reports`);
});

async function newTxs(n: number): Promise<{ id: string; shortId: string }[]> {
  const em = s.orm.em.fork();
  const ids = await newTransactions(
    em,
    accountId,
    Array.from({ length: n }, () => ({})),
  );
  const rows = await query<{ id: string; short_id: string }>(em, `select id, short_id from transactions`);
  const short = new Map(rows.map((r) => [r.id, r.short_id]));
  return ids.map((id) => ({ id, shortId: short.get(id)! }));
}

type CreateFields = Partial<Omit<MessageInitShape<typeof CreateReportRequestSchema>, "$typeName">>;
const create = (fields: CreateFields = {}, key = agent) =>
  s.core.reports.createReport({ title: "Weekly review", body: "All quiet.", ...fields }, key);

const unreadCount = async () => Number((await s.core.reports.countUnreadReports({}, reader)).count);
const titles = (reports: Report[]) => reports.map((r) => r.title);

describe("creating a report", () => {
  it("an agent key: created_by_type agent, the key's short id and name; defaults info, unread", async () => {
    const r = (await create({ title: "  Weekly review  ", tags: ["weekly", "Spending"], author: " Claude " })).report!;
    expect(r).toMatchObject({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      shortId: expect.stringMatching(/^[0-9A-Za-z]{8}$/),
      title: "Weekly review",
      body: "All quiet.",
      priority: "info",
      tags: ["weekly", "spending"],
      author: "Claude",
      createdByType: "agent",
      createdById: agentKeyShortId,
      createdByName: "weekly-bot",
      transactions: [],
    });
    expect(r.readAt).toBeUndefined();
    expect(Date.now() - timestampDate(r.createdAt!).getTime()).toBeLessThan(60_000);
  });

  it("a user key: created_by_type user, with that key's short id and name", async () => {
    const r = (await create({ priority: "warning" }, admin)).report!;
    expect(r).toMatchObject({
      createdByType: "user",
      createdById: adminKeyShortId,
      createdByName: "test admin",
      priority: "warning",
    });
    expect(r.author).toBeUndefined();
  });

  it("the operator on the server (no key): created_by_type system, no key id", async () => {
    const em = s.orm.em.fork();
    const r = await createReport(em, actorOf({ kind: "system", name: "cli" }), { title: "t", body: "b" });
    expect(r).toMatchObject({ createdByType: "system", createdById: null, createdByName: "cli" });
    expect((await s.core.reports.getReport({ id: r.shortId }, reader)).report).toMatchObject({
      createdByType: "system",
      createdByName: "cli",
    });
  });

  it("keeps the Markdown body: CRLF becomes LF, the first line's indentation stays, trailing space goes", async () => {
    const body = "\r\n    code first\r\n\r\n| a | b |\r\n|---|---|\r\n\t- item  \r\n\r\n";
    const r = (await create({ body })).report!;
    expect(r.body).toBe("    code first\n\n| a | b |\n|---|---|\n\t- item");
  });

  it("resolves transaction ids (UUID or short id) in order, duplicates folded, output as short ids", async () => {
    const [a, b, c] = await newTxs(3);
    const r = (await create({ transactionIds: [b.id, a.shortId, c.shortId, b.shortId] })).report!;
    expect(r.transactions.map((t) => ({ transactionId: t.transactionId, deleted: t.deleted }))).toEqual([
      { transactionId: b.shortId, deleted: false },
      { transactionId: a.shortId, deleted: false },
      { transactionId: c.shortId, deleted: false },
    ]);
    const notes = await query<{ action: string; entity_type: string; actor_type: string; details: object }>(
      s.orm.em.fork(),
      `select action, entity_type, actor_type, details from annotations where entity_id = ?`,
      [r.id],
    );
    expect(notes).toEqual([
      {
        action: "created",
        entity_type: "report",
        actor_type: "agent",
        details: { title: "Weekly review", priority: "info", transaction_ids: [b.shortId, a.shortId, c.shortId] },
      },
    ]);
  });

  it("an unknown, malformed or deleted transaction id → VALIDATION_ERROR naming it; nothing is written", async () => {
    const [live, gone] = await newTxs(2);
    await deleteTransaction(s.orm.em.fork(), actorOf({ kind: "system", name: "test" }), gone.id);
    for (const bad of ["ZZZZZZZZ", "not-an-id", gone.shortId, "00000000-0000-0000-0000-000000000000"]) {
      const f = await expectCoreError(create({ transactionIds: [live.shortId, bad] }), "VALIDATION_ERROR");
      expect(f.message).toBe(`transaction_ids: 1 transaction not found: "${bad}"`);
    }
    const f = await expectCoreError(create({ transactionIds: ["AAAAAAAA", "BBBBBBBB"] }), "VALIDATION_ERROR");
    expect(f.message).toBe('transaction_ids: 2 transactions not found: "AAAAAAAA", "BBBBBBBB"');
    expect((await s.core.reports.listReports({}, reader)).reports).toEqual([]);
  });

  it.each([
    ["an empty title", { title: "" }, "title is required"],
    ["a blank title", { title: "   " }, "title is required"],
    ["a title of 201 characters", { title: "x".repeat(201) }, "title must be at most 200 characters (got 201)"],
    ["a title on two lines", { title: "a\nb" }, "title must not contain control characters"],
    ["a NUL in the title", { title: "a\u0000b" }, "title must not contain control characters"],
    ["an empty body", { body: "" }, "body is required"],
    ["a blank body", { body: " \n\n " }, "body is required"],
    ["a body of 50,001 characters", { body: "y".repeat(50_001) }, "body must be at most 50000 characters (got 50001)"],
    ["a NUL in the body", { body: "ok\u0000" }, "body must not contain control characters"],
    ["an escape in the body", { body: "\u001b[31mred" }, "body must not contain control characters"],
    ["an unknown priority", { priority: "urgent" }, "priority must be one of info, warning, critical"],
    ["a priority in capitals", { priority: "INFO" }, "priority must be one of info, warning, critical"],
    ["11 tags", { tags: Array.from({ length: 11 }, (_, i) => `t${i}`) }, "tags may list at most 10 slugs (got 11)"],
    ["a bad tag slug", { tags: ["ok", "not a slug"] }, "tags[1] must be 1 to 64 characters of a-z, 0-9 and _"],
    ["an author on two lines", { author: "a\r\nb" }, "author must not contain control characters"],
    ["an author of 101 characters", { author: "z".repeat(101) }, "author must be at most 100 characters (got 101)"],
    [
      "101 transaction ids",
      { transactionIds: Array.from({ length: 101 }, () => "AAAAAAAA") },
      "transaction_ids may list at most 100 transactions (got 101)",
    ],
  ])("%s → VALIDATION_ERROR naming the field", async (_what, fields, message) => {
    const f = await expectCoreError(create(fields), "VALIDATION_ERROR");
    expect(f.message.startsWith(message)).toBe(true);
  });

  it("accepts the limits: 200-character title, 50,000-character body, 10 tags, 100 transaction ids", async () => {
    const txs = await newTxs(100);
    const r = (
      await create({
        title: "é".repeat(200),
        body: "😀".repeat(50_000),
        tags: Array.from({ length: 10 }, (_, i) => `t${i}`),
        transactionIds: txs.map((t) => t.id),
      })
    ).report!;
    expect([...r.title].length).toBe(200);
    expect([...r.body].length).toBe(50_000);
    expect(r.tags).toHaveLength(10);
    expect(r.transactions.map((t) => t.transactionId)).toEqual(txs.map((t) => t.shortId));
  });
});

describe("reading reports", () => {
  it("lists newest first, without bodies unless include_body; truncated false", async () => {
    for (const title of ["first", "second", "third"]) await create({ title });
    const plain = await s.core.reports.listReports({}, reader);
    expect(titles(plain.reports)).toEqual(["third", "second", "first"]);
    expect(plain.reports.every((r) => r.body === "")).toBe(true);
    expect(plain.truncated).toBe(false);
    const full = await s.core.reports.listReports({ includeBody: true }, reader);
    expect(full.reports.every((r) => r.body === "All quiet.")).toBe(true);
  });

  it("filters by unread, priority, tag and since, combined with and", async () => {
    const a = (await create({ title: "a", priority: "critical", tags: ["subscriptions"] })).report!;
    await create({ title: "b", priority: "warning", tags: ["weekly", "subscriptions"] });
    await create({ title: "c", tags: ["weekly"] });
    await s.core.reports.markReportRead({ id: a.shortId }, admin);
    const list = async (filter: Parameters<typeof s.core.reports.listReports>[0]) =>
      titles((await s.core.reports.listReports(filter, reader)).reports);
    expect(await list({ unread: true })).toEqual(["c", "b"]);
    expect(await list({ unread: false })).toEqual(["a"]);
    expect(await list({ priority: "critical" })).toEqual(["a"]);
    expect(await list({ priority: "info" })).toEqual(["c"]);
    expect(await list({ tag: "subscriptions" })).toEqual(["b", "a"]);
    expect(await list({ tag: "weekly", unread: true, priority: "warning" })).toEqual(["b"]);
    expect(await list({ tag: "nothing_here" })).toEqual([]);

    // since: at or after the instant, in any zone; a date means midnight UTC.
    const [{ created_at: bAt }] = await query<{ created_at: string }>(
      s.orm.em.fork(),
      `select to_char(created_at at time zone 'UTC', 'YYYY-MM-DD"T"HH24:MI:SS.US"Z"') as created_at
       from reports where title = 'b'`,
    );
    expect(await list({ since: bAt })).toEqual(["c", "b"]);
    await query(s.orm.em.fork(), `update reports set created_at = '2026-01-10T23:30:00Z' where title = 'a'`);
    expect(await list({ since: "2026-01-11" })).toEqual(["c", "b"]);
    expect(await list({ since: "2026-01-11T01:00:00+02:00" })).toEqual(["c", "b", "a"]);
  });

  it.each([
    ["priority", { priority: "urgent" }],
    ["tag", { tag: "Not A Slug!" }],
    ["since", { since: "last week" }],
    ["since", { since: "2026-02-30" }],
  ])("a bad %s filter → INVALID_PARAMETER naming it", async (field, filter) => {
    const f = await expectCoreError(s.core.reports.listReports(filter, reader), "INVALID_PARAMETER");
    expect(f.message.startsWith(field)).toBe(true);
  });

  it("GetReport by UUID or short id; anything else → NOT_FOUND", async () => {
    const r = (await create()).report!;
    for (const id of [r.id, r.shortId, r.id.toUpperCase()])
      expect((await s.core.reports.getReport({ id }, reader)).report).toEqual(r);
    for (const id of ["ZZZZZZZZ", "", "nope", "00000000-0000-0000-0000-000000000000", "a\u0000b"])
      await expectCoreError(s.core.reports.getReport({ id }, reader), "NOT_FOUND");
  });
});

describe("read state", () => {
  it("unread count follows read, unread and read-all; read keeps its first read_at", async () => {
    const [a, b, c] = [(await create()).report!, (await create()).report!, (await create()).report!];
    expect(await unreadCount()).toBe(3);

    const read = (await s.core.reports.markReportRead({ id: a.shortId }, admin)).report!;
    expect(read.readAt).toBeDefined();
    expect(await unreadCount()).toBe(2);
    const again = (await s.core.reports.markReportRead({ id: a.id }, admin)).report!;
    expect(again.readAt).toEqual(read.readAt);
    expect(await unreadCount()).toBe(2);

    expect((await s.core.reports.markReportUnread({ id: a.shortId }, admin)).report!.readAt).toBeUndefined();
    expect(await unreadCount()).toBe(3);
    await s.core.reports.markReportUnread({ id: b.shortId }, admin); // already unread: no change
    expect(await unreadCount()).toBe(3);

    await s.core.reports.markReportRead({ id: c.shortId }, admin);
    expect(Number((await s.core.reports.markAllReportsRead({}, admin)).updated)).toBe(2);
    expect(await unreadCount()).toBe(0);
    expect(Number((await s.core.reports.markAllReportsRead({}, admin)).updated)).toBe(0);
    // read-all leaves an earlier read_at alone.
    expect((await s.core.reports.getReport({ id: c.shortId }, reader)).report!.readAt).toBeDefined();
  });

  it("mark read or unread of an unknown report → NOT_FOUND", async () => {
    await expectCoreError(s.core.reports.markReportRead({ id: "ZZZZZZZZ" }, admin), "NOT_FOUND");
    await expectCoreError(s.core.reports.markReportUnread({ id: "bad id" }, admin), "NOT_FOUND");
  });
});

describe("deleting", () => {
  it("DeleteReport removes it and its references, annotated with who did it", async () => {
    const [t] = await newTxs(1);
    const r = (await create({ transactionIds: [t.id] })).report!;
    await s.core.reports.deleteReport({ id: r.shortId }, admin);
    await expectCoreError(s.core.reports.getReport({ id: r.id }, reader), "NOT_FOUND");
    await expectCoreError(s.core.reports.deleteReport({ id: r.id }, admin), "NOT_FOUND");
    const refs = await query(s.orm.em.fork(), `select * from report_transactions where report_id = ?`, [r.id]);
    expect(refs).toEqual([]);
    const notes = await query<{ action: string; actor_type: string; actor_id: string; details: object }>(
      s.orm.em.fork(),
      `select action, actor_type, actor_id, details from annotations where entity_id = ? order by created_at`,
      [r.id],
    );
    expect(notes.map((n) => n.action)).toEqual(["created", "deleted"]);
    expect(notes[1]).toEqual({
      action: "deleted",
      actor_type: "user",
      actor_id: adminKeyShortId,
      details: { report_id: r.shortId, title: "Weekly review", created_by_name: "weekly-bot" },
    });
  });

  it("a referenced transaction deleted: the report stays, the reference shows deleted; live on restore", async () => {
    const [keep, drop] = await newTxs(2);
    const r = (await create({ transactionIds: [keep.shortId, drop.shortId] })).report!;
    await s.core.transactions.deleteTransaction({ id: drop.shortId }, admin);
    const after = (await s.core.reports.getReport({ id: r.shortId }, reader)).report!;
    expect(after.transactions.map((t) => [t.transactionId, t.deleted])).toEqual([
      [keep.shortId, false],
      [drop.shortId, true],
    ]);
    const listed = (await s.core.reports.listReports({}, reader)).reports[0];
    expect(listed.transactions.map((t) => t.deleted)).toEqual([false, true]);
    await s.core.transactions.restoreTransaction({ id: drop.shortId }, admin);
    const restored = await getReport(s.orm.em.fork(), r.id);
    expect(restored.transactions).toEqual([
      { transactionId: keep.shortId, deleted: false },
      { transactionId: drop.shortId, deleted: false },
    ]);
  });
});

describe("scopes", () => {
  it("a read_only key reads (list, count, get) and every write is INSUFFICIENT_SCOPE", async () => {
    const r = (await create()).report!;
    await s.core.reports.listReports({}, reader);
    await s.core.reports.countUnreadReports({}, reader);
    await s.core.reports.getReport({ id: r.id }, reader);
    await expectCoreError(create({}, reader), "INSUFFICIENT_SCOPE");
    await expectCoreError(s.core.reports.markReportRead({ id: r.id }, reader), "INSUFFICIENT_SCOPE");
    await expectCoreError(s.core.reports.markReportUnread({ id: r.id }, reader), "INSUFFICIENT_SCOPE");
    await expectCoreError(s.core.reports.markAllReportsRead({}, reader), "INSUFFICIENT_SCOPE");
    await expectCoreError(s.core.reports.deleteReport({ id: r.id }, reader), "INSUFFICIENT_SCOPE");
    expect(await unreadCount()).toBe(1);
  });

  it("no key → MISSING_CREDENTIALS, even for reads", async () => {
    await expectCoreError(s.core.reports.listReports({}), "MISSING_CREDENTIALS");
    await expectCoreError(s.core.reports.countUnreadReports({}), "MISSING_CREDENTIALS");
  });
});
