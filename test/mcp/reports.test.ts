import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { insertApiKey } from "../../services/auth/api-keys.js";
import { query } from "../../services/db/sql.js";
import { newAccount, newTransactions, newUser } from "../helpers/ledger.js";
import { startStack, type Stack } from "../helpers/stack.js";
import { listedReport } from "../../gateways/shared/report-json.js";

// submit_report, list_reports and get_report through a real MCP client over Streamable HTTP.

let s: Stack;
let url: URL;
let agent: Client;
let admin: Client;
let reader: Client;
let accountId: string;

async function connect(key: string): Promise<Client> {
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { "X-API-Key": key } } }));
  return client;
}

beforeAll(async () => {
  s = await startStack();
  await s.mcp.listen({ port: 0, host: "127.0.0.1" });
  url = new URL(`http://127.0.0.1:${(s.mcp.server.address() as AddressInfo).port}/mcp`);
  const em = s.orm.em.fork();
  const agentKey = (await insertApiKey(em, { name: "claude", scope: "full_access", actorType: "agent" })).plaintext;
  accountId = (await newAccount(em, (await newUser(em)).id)).id;
  [agent, admin, reader] = await Promise.all([connect(agentKey), connect(s.adminKey), connect(s.readKey)]);
});
afterAll(async () => {
  await Promise.all([agent, admin, reader].map((c) => c?.close()));
  await s.close();
});
beforeEach(async () => {
  await query(s.orm.em.fork(), `delete from reports`);
});

type ToolResult = {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  content: { type: string; text: string }[];
};
const callTool = async (client: Client, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as ToolResult;

function errorOf(r: ToolResult): { code: string; message: string } {
  expect(r.isError).toBe(true);
  return (JSON.parse(r.content[0].text) as { error: { code: string; message: string } }).error;
}

async function ok(client: Client, name: string, args: Record<string, unknown>) {
  const r = await callTool(client, name, args);
  expect(r.isError, r.content[0]?.text).toBeFalsy();
  return r.structuredContent!;
}

async function newTxShortIds(n: number): Promise<string[]> {
  const em = s.orm.em.fork();
  const ids = await newTransactions(
    em,
    accountId,
    Array.from({ length: n }, () => ({})),
  );
  const rows = await query<{ id: string; short_id: string }>(em, `select id, short_id from transactions`);
  return ids.map((id) => rows.find((r) => r.id === id)!.short_id);
}

describe("report tools", () => {
  it("are listed: submit_report a write, list_reports and get_report reads", async () => {
    const { tools } = await reader.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    expect(byName.get("submit_report")?.annotations?.readOnlyHint).toBe(false);
    expect(byName.get("submit_report")?.inputSchema.required).toEqual(["title", "body"]);
    expect(byName.get("list_reports")?.annotations?.readOnlyHint).toBe(true);
    expect(byName.get("get_report")?.annotations?.readOnlyHint).toBe(true);
    expect(byName.get("get_report")?.inputSchema.required).toEqual(["id"]);
    // The description tells an agent when a report is the right tool, and when it is not.
    const description = byName.get("submit_report")!.description!;
    expect(description).toContain("a person should see");
    expect(description).toContain("Do not use it to answer the person you are talking with");
  });

  it("submit_report → the report without its body, signed by the agent's key", async () => {
    const [t1] = await newTxShortIds(1);
    const r = await ok(agent, "submit_report", {
      title: "Netflix went up",
      body: "Your Netflix charge rose from **$15.49** to **$17.99**.",
      priority: "warning",
      tags: ["subscriptions"],
      author: "Claude (weekly review)",
      transaction_ids: [t1],
    });
    // The REST report object: `id` the UUID, `short_id` beside it (docs/contract.md, "Identifiers").
    const report = r.report as Record<string, unknown>;
    expect(r).toMatchObject({
      report: {
        id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
        short_id: expect.stringMatching(/^[0-9A-Za-z]{8}$/),
        title: "Netflix went up",
        priority: "warning",
        tags: ["subscriptions"],
        author: "Claude (weekly review)",
        created_by_type: "agent",
        created_by_name: "claude",
        transactions: [{ transaction_id: t1, deleted: false }],
        read_at: null,
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
      },
    });
    // Exactly REST's fields, the body left out as submit_report promises.
    expect(Object.keys(report).sort()).toEqual(
      Object.keys(listedReport.shape)
        .filter((k) => k !== "body")
        .sort(),
    );
    const [row] = await query<{ created_by_type: string; body: string }>(
      s.orm.em.fork(),
      `select created_by_type, body from reports`,
    );
    expect(row).toEqual({ created_by_type: "agent", body: "Your Netflix charge rose from **$15.49** to **$17.99**." });
  });

  it("submit_report from a user's key is recorded as the user's", async () => {
    const r = await ok(admin, "submit_report", { title: "t", body: "b" });
    expect(r.report).toMatchObject({ created_by_type: "user", created_by_name: "test admin", priority: "info" });
  });

  it("list_reports: compact without bodies, with them on include_body; filters; truncated false", async () => {
    await ok(agent, "submit_report", { title: "one", body: "first body", tags: ["weekly"] });
    await ok(agent, "submit_report", { title: "two", body: "second body", priority: "critical" });
    const compact = await ok(reader, "list_reports", {});
    expect(compact.truncated).toBe(false);
    const reports = compact.reports as Record<string, unknown>[];
    expect(reports.map((r) => r.title)).toEqual(["two", "one"]);
    expect(reports.every((r) => !("body" in r))).toBe(true);
    // Each is the object GET /api/v1/reports lists.
    const rest = await s.rest.inject({ method: "GET", url: "/api/v1/reports", headers: { "x-api-key": s.readKey } });
    expect(compact.reports).toEqual(rest.json().reports);

    const full = await ok(reader, "list_reports", { include_body: true });
    expect((full.reports as { body: string }[]).map((r) => r.body)).toEqual(["second body", "first body"]);

    const titles = async (args: Record<string, unknown>) =>
      ((await ok(reader, "list_reports", args)).reports as { title: string }[]).map((r) => r.title);
    expect(await titles({ priority: "critical" })).toEqual(["two"]);
    expect(await titles({ tag: "weekly" })).toEqual(["one"]);
    expect(await titles({ unread: true, since: "2000-01-01" })).toEqual(["two", "one"]);
    expect(await titles({ unread: false })).toEqual([]);
  });

  it("get_report → the report with its body and deleted references; unknown id → NOT_FOUND", async () => {
    const [keep, drop] = await newTxShortIds(2);
    const made = (await ok(agent, "submit_report", { title: "t", body: "# Body", transaction_ids: [keep, drop] }))
      .report as { id: string; short_id: string };
    await s.core.transactions.deleteTransaction({ id: drop }, { headers: { "x-api-key": s.adminKey } });
    const got = (await ok(reader, "get_report", { id: made.id })).report as Record<string, unknown>;
    expect(got).toMatchObject({
      id: made.id,
      body: "# Body",
      transactions: [
        { transaction_id: keep, deleted: false },
        { transaction_id: drop, deleted: true },
      ],
    });
    // Exactly GET /api/v1/reports/{id}'s object; the short id names the same report.
    const rest = await s.rest.inject({
      method: "GET",
      url: `/api/v1/reports/${made.id}`,
      headers: { "x-api-key": s.readKey },
    });
    expect(got).toEqual(rest.json());
    expect((await ok(reader, "get_report", { id: made.short_id })).report).toEqual(got);
    expect(errorOf(await callTool(reader, "get_report", { id: "ZZZZZZZZ" })).code).toBe("NOT_FOUND");
  });

  it.each([
    ["title", { title: "" }],
    ["title", { title: "a\u0000b" }],
    ["body", { body: "x".repeat(50_001) }],
    ["body", { body: "\u0007" }],
    ["tags", { tags: Array.from({ length: 11 }, (_, i) => `t${i}`) }],
    ["tags[0]", { tags: ["Not A Slug"] }],
    ["transaction_ids", { transaction_ids: ["ZZZZZZZZ"] }],
    ["transaction_ids", { transaction_ids: Array.from({ length: 101 }, () => "ZZZZZZZZ") }],
  ])("submit_report with a bad %s → VALIDATION_ERROR naming it", async (field, args) => {
    const e = errorOf(await callTool(agent, "submit_report", { title: "t", body: "b", ...args }));
    expect(e.code).toBe("VALIDATION_ERROR");
    expect(e.message.startsWith(field)).toBe(true);
  });

  it("bad arguments by type → INVALID_PARAMETER naming them", async () => {
    const noTitle = errorOf(await callTool(agent, "submit_report", { body: "b" }));
    expect(noTitle).toEqual({ code: "INVALID_PARAMETER", message: "title is required" });
    const priority = errorOf(await callTool(agent, "submit_report", { title: "t", body: "b", priority: "urgent" }));
    expect(priority.code).toBe("INVALID_PARAMETER");
    expect(priority.message).toContain("priority");
    const since = errorOf(await callTool(reader, "list_reports", { since: "last week" }));
    expect(since.code).toBe("INVALID_PARAMETER");
    expect(since.message).toContain("since");
  });

  it("a read_only key lists and gets, but submit_report is INSUFFICIENT_SCOPE", async () => {
    const made = (await ok(agent, "submit_report", { title: "t", body: "b" })).report as { id: string };
    await ok(reader, "list_reports", {});
    await ok(reader, "get_report", { id: made.id });
    expect(errorOf(await callTool(reader, "submit_report", { title: "t", body: "b" })).code).toBe("INSUFFICIENT_SCOPE");
    expect(await query(s.orm.em.fork(), `select 1 from reports`)).toHaveLength(1);
  });
});
