import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { withKey } from "../helpers/core-error.js";
import { newUser } from "../helpers/ledger.js";
import { startStack, type Stack } from "../helpers/stack.js";

let s: Stack;
let client: Client;
const clients: Client[] = [];

beforeAll(async () => {
  s = await startStack();
  await s.mcp.listen({ port: 0, host: "127.0.0.1" });
  client = await connect(s.readKey);
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await s?.close();
});

async function connect(apiKey: string): Promise<Client> {
  const base = `http://127.0.0.1:${(s.mcp.server.address() as AddressInfo).port}`;
  const c = new Client({ name: "coffer-test", version: "0.0.0" });
  await c.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { "X-API-Key": apiKey } } }),
  );
  clients.push(c);
  return c;
}

/** Calls a tool that must succeed; the SDK client also checks the result against the tool's output schema. */
async function call(name: string, args: Record<string, unknown> = {}) {
  const r = await client.callTool({ name, arguments: args });
  expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
  expect(JSON.parse((r.content as { text: string }[])[0].text)).toEqual(r.structuredContent);
  return r.structuredContent as Record<string, any>;
}

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe("MCP reference tools", () => {
  it("are listed as read-only tools with input and output schemas", async () => {
    const { tools } = await client.listTools();
    for (const name of ["list_accounts", "list_categories", "list_tags"]) {
      const tool = tools.find((t) => t.name === name);
      expect(tool, name).toBeDefined();
      expect(tool!.annotations?.readOnlyHint).toBe(true);
      expect(tool!.outputSchema?.type).toBe("object");
    }
    const accounts = tools.find((t) => t.name === "list_accounts")!;
    expect(Object.keys(accounts.inputSchema.properties ?? {}).sort()).toEqual(["include_hidden", "user_id"]);
  });

  it("list_accounts: REST accounts, numeric balances, owners; filtered by user_id and include_hidden", async () => {
    const admin = withKey(s.adminKey);
    const ann = await newUser(s.orm.em.fork(), "Ann");
    const ben = await newUser(s.orm.em.fork(), "Ben");
    const checking = (
      await s.core.accounts.createAccount(
        {
          userId: ann.id,
          name: "Checking",
          type: "depository",
          subtype: "checking",
          isoCurrencyCode: "USD",
          mask: "1234",
          balanceCurrent: "2500.75",
        },
        admin,
      )
    ).account!;
    const euro = (
      await s.core.accounts.createAccount(
        { userId: ben.id, name: "Euro", type: "depository", isoCurrencyCode: "EUR" },
        admin,
      )
    ).account!;
    const hidden = (
      await s.core.accounts.createAccount(
        { userId: ben.id, name: "Old card", type: "credit", isoCurrencyCode: "USD" },
        admin,
      )
    ).account!;
    await s.core.accounts.updateAccount({ id: hidden.id, hidden: true }, admin);

    const all = await call("list_accounts");
    // The REST account object: `id` the UUID, `short_id` beside it (docs/contract.md, "Identifiers").
    const restAccounts = (
      await s.rest.inject({ method: "GET", url: "/api/v1/accounts", headers: { "x-api-key": s.readKey } })
    ).json().accounts;
    expect(all.accounts).toEqual(restAccounts);
    expect(all.accounts).toMatchObject([
      {
        id: checking.id,
        short_id: checking.shortId,
        name: "Checking",
        type: "depository",
        subtype: "checking",
        mask: "1234",
        iso_currency_code: "USD",
        balance_current: 2500.75,
        user_id: ann.shortId,
        user_name: "Ann",
      },
      {
        id: euro.id,
        short_id: euro.shortId,
        name: "Euro",
        type: "depository",
        subtype: null,
        mask: null,
        iso_currency_code: "EUR",
        balance_current: null,
        user_id: ben.shortId,
        user_name: "Ben",
      },
    ]);
    expect((await call("list_accounts", { user_id: ben.shortId })).accounts.map((a: { id: string }) => a.id)).toEqual([
      euro.id,
    ]);
    // The owner named by UUID works the same.
    expect((await call("list_accounts", { user_id: ben.id })).accounts.map((a: { id: string }) => a.id)).toEqual([
      euro.id,
    ]);
    expect(
      (await call("list_accounts", { user_id: ben.shortId, include_hidden: true })).accounts.map(
        (a: { name: string }) => a.name,
      ),
    ).toEqual(["Euro", "Old card"]);
  });

  it("list_accounts with an unknown user → an error result carrying NOT_FOUND", async () => {
    const r = await client.callTool({ name: "list_accounts", arguments: { user_id: "zzzzzzzz" } });
    expect(r.isError).toBe(true);
    expect(JSON.parse((r.content as { text: string }[])[0].text)).toEqual({
      error: { code: "NOT_FOUND", message: "User not found" },
    });
    const bad = await client.callTool({ name: "list_accounts", arguments: { include_hidden: "yes" } });
    expect(bad.isError).toBe(true);
    expect(JSON.parse((bad.content as { text: string }[])[0].text).error.code).toBe("INVALID_PARAMETER");
  });

  it("list_categories: the two-level tree by slug, each category its REST object", async () => {
    const { categories } = await call("list_categories");
    const rest = (
      await s.rest.inject({ method: "GET", url: "/api/v1/categories", headers: { "x-api-key": s.readKey } })
    ).json().categories as Record<string, any>[];
    const food = categories.find((c: { slug: string }) => c.slug === "food_and_drink");
    expect(food).toMatchObject({ display_name: "Food & drink" });
    expect(food.children).toContainEqual(
      expect.objectContaining({ slug: "food_and_drink_coffee", display_name: "Coffee" }),
    );
    expect(food.id).toMatch(UUID);
    expect(food.short_id).toMatch(/^[0-9A-Za-z]{8}$/);
    // Exactly REST's objects, nested children included.
    const restFood = rest.find((c) => c.slug === "food_and_drink")!;
    expect(Object.keys(food)).toEqual(Object.keys(restFood));
    expect(food).toEqual(restFood);
    expect(categories).toEqual(rest);
    expect(categories.find((c: { slug: string }) => c.slug === "uncategorized")).toMatchObject({
      slug: "uncategorized",
      display_name: "Uncategorized",
      children: [],
    });
  });

  it("list_tags: slug, display name and color, sorted by slug", async () => {
    const admin = withKey(s.adminKey);
    await s.core.tags.createTag({ slug: "vacation", color: "#FF0000" }, admin);
    await s.core.tags.createTag({ displayName: "Reimbursable" }, admin);
    const { tags } = await call("list_tags");
    const rest = (
      await s.rest.inject({ method: "GET", url: "/api/v1/tags", headers: { "x-api-key": s.readKey } })
    ).json();
    expect({ tags }).toEqual(rest);
    for (const t of tags) expect(t.id).toMatch(UUID);
    expect({ tags }).toMatchObject({
      tags: [
        // Comes with the built-in rule that tags new transactions (migration 0009).
        { slug: "needs_review", display_name: "Needs review", color: null },
        { slug: "reimbursable", display_name: "Reimbursable", color: null },
        { slug: "vacation", display_name: "Vacation", color: "#ff0000" },
      ],
    });
  });
});
