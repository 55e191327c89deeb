import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertApiKey } from "../../services/auth/api-keys.js";
import { query } from "../../services/db/sql.js";
import { newAccount, newTransactions, newUser } from "../helpers/ledger.js";
import { startStack, type Stack } from "../helpers/stack.js";

// The write tools through a real MCP client over Streamable HTTP.

let s: Stack;
let url: URL;
let admin: Client;
let agent: Client;
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
  [admin, agent, reader] = await Promise.all([connect(s.adminKey), connect(agentKey), connect(s.readKey)]);
});
afterAll(async () => {
  await Promise.all([admin, agent, reader].map((c) => c?.close()));
  await s.close();
});

async function newTx(): Promise<{ id: string; shortId: string }> {
  const em = s.orm.em.fork();
  const [id] = await newTransactions(em, accountId, [{}]);
  const [row] = await query<{ short_id: string }>(em, `select short_id from transactions where id = ?`, [id]);
  return { id, shortId: row.short_id };
}

type ToolResult = {
  isError?: boolean;
  structuredContent?: Record<string, unknown>;
  content: { type: string; text: string }[];
};
const callTool = async (client: Client, name: string, args: Record<string, unknown>) =>
  (await client.callTool({ name, arguments: args })) as ToolResult;

function errorCode(r: ToolResult): string {
  expect(r.isError).toBe(true);
  return (JSON.parse(r.content[0].text) as { error: { code: string } }).error.code;
}

const annotations = async (id: string) =>
  query<{ action: string; actor_type: string; actor_name: string }>(
    s.orm.em.fork(),
    `select action, actor_type, actor_name from annotations where transaction_id = ? order by created_at, id`,
    [id],
  );

/** GET /api/v1/transactions/{id} through the REST gateway. */
const restTransaction = async (id: string) =>
  (
    await s.rest.inject({ method: "GET", url: `/api/v1/transactions/${id}`, headers: { "x-api-key": s.readKey } })
  ).json();

describe("transaction write tools", () => {
  it("are listed as not read-only, with their input schemas", async () => {
    const { tools } = await admin.listTools();
    for (const name of ["categorize_transaction", "tag_transaction", "add_comment"]) {
      const tool = tools.find((t) => t.name === name);
      expect(tool?.annotations?.readOnlyHint, name).toBe(false);
      expect(tool?.inputSchema.required).toContain("id");
    }
  });

  it("categorize_transaction → {transaction: the REST transaction}, recorded as agent's choice", async () => {
    const t = await newTx();
    const r = await callTool(agent, "categorize_transaction", {
      id: t.shortId,
      category_slug: "food_and_drink_coffee",
    });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toEqual({ transaction: await restTransaction(t.id) });
    expect((r.structuredContent as { transaction: object }).transaction).toMatchObject({
      id: t.id,
      short_id: t.shortId,
      category_slug: "food_and_drink_coffee",
      category_source: "agent",
    });
    expect(await annotations(t.id)).toEqual([{ action: "category_set", actor_type: "agent", actor_name: "claude" }]);
  });

  it("categorize_transaction with an unknown slug → VALIDATION_ERROR; an unknown id → NOT_FOUND", async () => {
    const t = await newTx();
    expect(
      errorCode(await callTool(agent, "categorize_transaction", { id: t.id, category_slug: "not_a_category" })),
    ).toBe("VALIDATION_ERROR");
    expect(
      errorCode(await callTool(agent, "categorize_transaction", { id: "ZZZZZZZZ", category_slug: "travel" })),
    ).toBe("NOT_FOUND");
    expect(errorCode(await callTool(agent, "categorize_transaction", { id: t.id, category_slug: "Not A Slug" }))).toBe(
      "INVALID_PARAMETER",
    );
  });

  it("tag_transaction adds then removes in one change → {transaction: the REST transaction}", async () => {
    const t = await newTx();
    const first = await callTool(agent, "tag_transaction", { id: t.id, add: ["groceries_run", "shared"] });
    expect(first.structuredContent).toMatchObject({
      transaction: { id: t.id, short_id: t.shortId, tags: ["groceries_run", "shared"] },
    });
    const second = await callTool(agent, "tag_transaction", { id: t.shortId, add: ["weekly"], remove: ["shared"] });
    expect(second.structuredContent).toMatchObject({
      transaction: { id: t.id, short_id: t.shortId, tags: ["groceries_run", "weekly"] },
    });
    expect(second.structuredContent).toEqual({ transaction: await restTransaction(t.shortId) });
    expect((await annotations(t.id)).map((a) => a.action)).toEqual([
      "tag_added",
      "tag_added",
      "tag_added",
      "tag_removed",
    ]);
  });

  it("tag_transaction removing an absent tag fails and adds nothing; no tags at all → VALIDATION_ERROR", async () => {
    const t = await newTx();
    expect(
      errorCode(await callTool(agent, "tag_transaction", { id: t.id, add: ["never_added"], remove: ["absent"] })),
    ).toBe("NOT_FOUND");
    expect(await annotations(t.id)).toEqual([]);
    expect(await query(s.orm.em.fork(), `select 1 from tags where slug = 'never_added'`)).toEqual([]);
    expect(errorCode(await callTool(agent, "tag_transaction", { id: t.id }))).toBe("VALIDATION_ERROR");
    expect(errorCode(await callTool(agent, "tag_transaction", { id: t.id, add: ["Bad Slug"] }))).toBe(
      "INVALID_PARAMETER",
    );
  });

  it("add_comment → {comment: the REST comment}", async () => {
    const t = await newTx();
    const r = await callTool(agent, "add_comment", {
      id: t.shortId,
      body: "Looks like a duplicate of last week's charge",
    });
    expect(r.structuredContent).toEqual({
      comment: {
        id: expect.stringMatching(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/),
        short_id: expect.stringMatching(/^[0-9A-Za-z]{8}$/),
        transaction_id: t.shortId,
        body: "Looks like a duplicate of last week's charge",
        author_type: "agent",
        author_name: "claude",
        created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
        updated_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
      },
    });
    // The comment as GET /api/v1/transactions/{id}/comments lists it.
    const listed = await s.rest.inject({
      method: "GET",
      url: `/api/v1/transactions/${t.id}/comments`,
      headers: { "x-api-key": s.readKey },
    });
    expect(listed.json().comments).toEqual([(r.structuredContent as { comment: object }).comment]);
    expect(await annotations(t.id)).toEqual([{ action: "comment_added", actor_type: "agent", actor_name: "claude" }]);
    expect(errorCode(await callTool(agent, "add_comment", { id: t.id, body: "   " }))).toBe("VALIDATION_ERROR");
    expect(errorCode(await callTool(agent, "add_comment", { id: t.id, body: "x".repeat(10_001) }))).toBe(
      "VALIDATION_ERROR",
    );
    expect(errorCode(await callTool(agent, "add_comment", { id: "ZZZZZZZZ", body: "hi" }))).toBe("NOT_FOUND");
  });

  it("a read_only key gets INSUFFICIENT_SCOPE from every write tool, and nothing changes", async () => {
    const t = await newTx();
    expect(errorCode(await callTool(reader, "categorize_transaction", { id: t.id, category_slug: "travel" }))).toBe(
      "INSUFFICIENT_SCOPE",
    );
    expect(errorCode(await callTool(reader, "tag_transaction", { id: t.id, add: ["x"] }))).toBe("INSUFFICIENT_SCOPE");
    expect(errorCode(await callTool(reader, "add_comment", { id: t.id, body: "hi" }))).toBe("INSUFFICIENT_SCOPE");
    expect(await annotations(t.id)).toEqual([]);
  });
});
