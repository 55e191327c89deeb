import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMcpServer } from "../../gateways/mcp/server.js";
import { recordingLog } from "../helpers/log.js";
import { callOptions } from "../../gateways/shared/core-client.js";
import { query } from "../../services/db/sql.js";
import { newShortId } from "../../services/ids/short-id.js";
import { categoryId, newAccount, newTransactions, newUser } from "../helpers/ledger.js";
import { startStack, type Stack } from "../helpers/stack.js";

let s: Stack;
let client: Client;
let account: { id: string; shortId: string };
let ids: string[];
let shortIds: string[];

beforeAll(async () => {
  s = await startStack();
  const em = s.orm.em.fork();
  const user = await newUser(em, "Ann");
  account = await newAccount(em, user.id, { name: "Checking" });
  const eur = await newAccount(em, user.id, { name: "Giro", currency: "EUR" });
  const tag = crypto.randomUUID();
  await query(em, `insert into tags (id, short_id, slug, display_name) values (?, ?, 'trip', 'Trip')`, [
    tag,
    newShortId(),
  ]);
  const coffee = { categoryId: await categoryId(em, "food_and_drink_coffee"), categorySource: "agent" as const };
  ids = await newTransactions(em, account.id, [
    {
      providerName: "STARBUCKS 1",
      providerMerchantName: "Starbucks",
      amount: "4.10",
      date: "2026-01-01",
      ...coffee,
      tagIds: [tag],
    },
    { providerName: "Espresso Bar", amount: "3.20", date: "2026-01-02", ...coffee },
    { providerName: "SALARY", amount: "-2000.00", date: "2026-01-03", pending: true },
  ]);
  await newTransactions(em, eur.id, [
    { providerName: "Bäckerei", amount: "2.35", date: "2026-01-04", isoCurrencyCode: "EUR", tagIds: [tag] },
  ]);
  const rows = await query<{ id: string; short_id: string }>(em, `select id, short_id from transactions`);
  const shortOf = new Map(rows.map((r) => [r.id, r.short_id]));
  shortIds = ids.map((id) => shortOf.get(id)!);

  // An MCP server bound to the read_only key, as over stdio.
  const server = createMcpServer(s.core, callOptions(s.readKey, "test"), recordingLog());
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  client = new Client({ name: "coffer-test", version: "0.0.0" });
  await client.connect(clientSide);
});
afterAll(async () => {
  await client?.close();
  await s?.close();
});

async function call(name: string, args: Record<string, unknown>) {
  const r = await client.callTool({ name, arguments: args });
  expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
  expect(JSON.parse((r.content as { text: string }[])[0].text)).toEqual(r.structuredContent);
  return r.structuredContent as Record<string, any>;
}

async function callError(name: string, args: Record<string, unknown>) {
  const r = await client.callTool({ name, arguments: args });
  expect(r.isError).toBe(true);
  return JSON.parse((r.content as { text: string }[])[0].text).error as { code: string; message: string };
}

describe("MCP transaction read tools", () => {
  it("are listed as read-only tools with input and output schemas", async () => {
    const { tools } = await client.listTools();
    for (const name of ["query_transactions", "get_transaction", "transaction_summary"]) {
      const tool = tools.find((t) => t.name === name);
      expect(tool, name).toBeDefined();
      expect(tool!.annotations?.readOnlyHint).toBe(true);
      expect(tool!.outputSchema?.type).toBe("object");
    }
    const q = tools.find((t) => t.name === "query_transactions")!;
    expect(Object.keys(q.inputSchema.properties!)).toEqual(
      expect.arrayContaining([
        "start_date",
        "end_date",
        "account_id",
        "user_id",
        "category_slug",
        "min_amount",
        "max_amount",
        "pending",
        "search",
        "search_mode",
        "tags",
        "any_tag",
        "limit",
        "cursor",
        "sort_by",
        "sort_order",
        "fields",
        "count_only",
      ]),
    );
  });

  it("query_transactions: compact rows by default, REST fields by REST names, amounts as numbers", async () => {
    const out = await call("query_transactions", {});
    expect(out.has_more).toBe(false);
    expect(out.next_cursor).toBe("");
    expect(out.transactions).toHaveLength(4);
    expect(out.transactions[3]).toEqual({
      id: ids[0],
      short_id: shortIds[0],
      date: "2026-01-01",
      amount: 4.1,
      iso_currency_code: "USD",
      name: "Starbucks",
      category_slug: "food_and_drink_coffee",
      account_name: "Checking",
      tags: ["trip"],
      pending: false,
    });
  });

  it("query_transactions: fields picks what to show; all shows everything; unknown → INVALID_PARAMETER", async () => {
    const picked = await call("query_transactions", { fields: "short_id, amount", limit: 1 });
    expect(picked.transactions).toEqual([{ short_id: expect.stringMatching(/^[0-9A-Za-z]{8}$/), amount: 2.35 }]);
    const all = await call("query_transactions", { fields: "all", search: "espresso" });
    expect(all.transactions[0]).toMatchObject({
      id: ids[1],
      short_id: shortIds[1],
      account_id: account.shortId,
      category_source: "agent",
      provider_name: "Espresso Bar",
      metadata: {},
    });
    // "all" is the REST page, transaction for transaction.
    const rest = await s.rest.inject({
      method: "GET",
      url: "/api/v1/transactions?search=espresso",
      headers: { "x-api-key": s.readKey },
    });
    expect(all.transactions).toEqual(rest.json().transactions);
    const e = await callError("query_transactions", { fields: "id,colour" });
    expect(e.code).toBe("INVALID_PARAMETER");
    expect(e.message).toMatch(/fields/);
  });

  it("query_transactions: filters, count_only, and pages by cursor", async () => {
    expect(await call("query_transactions", { count_only: true })).toEqual({ count: 4 });
    expect(await call("query_transactions", { count_only: true, tags: "trip", max_amount: 3 })).toEqual({ count: 1 });
    expect(await call("query_transactions", { count_only: true, any_tag: ["trip", "nope"] })).toEqual({ count: 2 });
    const names = async (args: Record<string, unknown>) =>
      (await call("query_transactions", args)).transactions.map((t: { name: string }) => t.name);
    expect(await names({ min_amount: "-2000", max_amount: -1 })).toEqual(["SALARY"]);
    expect(await names({ category_slug: "food_and_drink", start_date: "2026-01-02", end_date: "2026-01-05" })).toEqual([
      "Espresso Bar",
    ]);
    expect(await names({ search: "starbuks", search_mode: "fuzzy", account_id: account.shortId })).toEqual([
      "Starbucks",
    ]);
    expect(await names({ pending: true })).toEqual(["SALARY"]);
    expect(await names({ sort_by: "amount", sort_order: "asc" })).toEqual([
      "SALARY",
      "Bäckerei",
      "Espresso Bar",
      "Starbucks",
    ]);

    const seen: string[] = [];
    let cursor: string | undefined;
    let pages = 0;
    do {
      const page = await call("query_transactions", { limit: 3, fields: "id", ...(cursor ? { cursor } : {}) });
      expect(page.transactions.every((t: object) => Object.keys(t).join() === "id")).toBe(true);
      seen.push(...page.transactions.map((t: { id: string }) => t.id));
      cursor = page.next_cursor;
      pages++;
      expect(page.has_more).toBe(cursor !== "");
    } while (cursor);
    expect(pages).toBe(2);
    expect(new Set(seen).size).toBe(4);
  });

  it("query_transactions: errors carry the stable codes", async () => {
    expect((await callError("query_transactions", { limit: 501 })).code).toBe("INVALID_PARAMETER");
    expect((await callError("query_transactions", { min_amount: "1.234" })).code).toBe("INVALID_PARAMETER");
    expect((await callError("query_transactions", { cursor: "garbage" })).code).toBe("INVALID_CURSOR");
    const first = await call("query_transactions", { limit: 1 });
    expect((await callError("query_transactions", { cursor: first.next_cursor, sort_by: "name" })).code).toBe(
      "INVALID_CURSOR",
    );
    expect((await callError("query_transactions", { account_id: "ZZZZZZZZ" })).code).toBe("NOT_FOUND");
  });

  it("get_transaction: GET /transactions/{id}'s object, by short id or UUID; unknown → NOT_FOUND", async () => {
    const t = await call("get_transaction", { id: shortIds[0] });
    expect(t).toMatchObject({
      id: ids[0],
      short_id: shortIds[0],
      amount: 4.1,
      name: "Starbucks",
      provider_merchant_name: "Starbucks",
      tags: ["trip"],
      category_parent_slug: "food_and_drink",
    });
    const rest = await s.rest.inject({
      method: "GET",
      url: `/api/v1/transactions/${shortIds[0]}`,
      headers: { "x-api-key": s.readKey },
    });
    expect(t).toEqual(rest.json());
    expect(await call("get_transaction", { id: ids[0] })).toEqual(t);
    expect((await callError("get_transaction", { id: "ZZZZZZZZ" })).code).toBe("NOT_FOUND");
    expect((await callError("get_transaction", { id: "bad id" })).code).toBe("NOT_FOUND");
  });

  it("transaction_summary: groups and per-currency totals", async () => {
    const out = await call("transaction_summary", {});
    expect(out.group_by).toBe("category");
    expect(out.groups[0]).toEqual({
      key: "food_and_drink_coffee",
      label: "Coffee",
      totals: [{ iso_currency_code: "USD", money_out: 7.3, money_in: 0, net: 7.3, count: 2 }],
    });
    expect(out.totals).toEqual([
      { iso_currency_code: "EUR", money_out: 2.35, money_in: 0, net: 2.35, count: 1 },
      { iso_currency_code: "USD", money_out: 7.3, money_in: 2000, net: -1992.7, count: 3 },
    ]);
    const rest = await s.rest.inject({
      method: "GET",
      url: "/api/v1/transactions/summary",
      headers: { "x-api-key": s.readKey },
    });
    expect(out).toEqual(rest.json());
    const byMonth = await call("transaction_summary", { group_by: "month", tags: ["trip"] });
    expect(byMonth.groups.map((g: { key: string }) => g.key)).toEqual(["2026-01"]);
    expect((await callError("transaction_summary", { group_by: "year" })).code).toBe("INVALID_PARAMETER");
  });
});
