import { create } from "@bufbuild/protobuf";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { SummarizeTransactionsResponseSchema } from "../../gen/coffer/v1/transactions_pb.js";
import { createMcpServer } from "../../gateways/mcp/server.js";
import { recordingLog } from "../helpers/log.js";
import { callOptions, type CoreClients } from "../../gateways/shared/core-client.js";
import { transactionFilterShape } from "../../gateways/shared/transaction-filter.js";

/** A core that only records what the MCP gateway asks for. */
const seen: Record<string, any>[] = [];
const core = {
  transactions: {
    async listTransactions(req: Record<string, any>) {
      seen.push(req);
      return { transactions: [], nextCursor: "", hasMore: false };
    },
    async countTransactions(req: Record<string, any>) {
      seen.push(req);
      return { count: 0n };
    },
    async summarizeTransactions(req: Record<string, any>) {
      seen.push(req);
      return create(SummarizeTransactionsResponseSchema, { groupBy: "category" });
    },
  },
} as unknown as CoreClients;

let client: Client;
beforeAll(async () => {
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await createMcpServer(core, callOptions("cf_x", "test"), recordingLog()).connect(serverSide);
  client = new Client({ name: "coffer-test", version: "0.0.0" });
  await client.connect(clientSide);
});
afterAll(async () => {
  await client?.close();
});

async function filterSent(name: string, args: Record<string, unknown>) {
  seen.length = 0;
  const r = await client.callTool({ name, arguments: args });
  expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
  expect(seen).toHaveLength(1);
  return seen[0].filter as Record<string, unknown>;
}

async function refused(args: Record<string, unknown>) {
  seen.length = 0;
  const r = await client.callTool({ name: "query_transactions", arguments: args });
  expect(r.isError).toBe(true);
  expect(seen).toHaveLength(0);
  return JSON.parse((r.content as { text: string }[])[0].text).error as { code: string; message: string };
}

describe("MCP transaction filters from the shared zod definition", () => {
  it("tools list the shared filter parameters", async () => {
    const { tools } = await client.listTools();
    for (const name of ["query_transactions", "transaction_summary"]) {
      const props = tools.find((t) => t.name === name)!.inputSchema.properties as Record<string, any>;
      for (const [key, schema] of Object.entries(
        z.toJSONSchema(z.object(transactionFilterShape.mcp), { target: "draft-7" }).properties!,
      )) {
        expect(props[key], `${name}.${key}`).toEqual(schema);
      }
      expect(props.min_amount.anyOf).toEqual([
        { type: "number" },
        { type: "string", pattern: "^-?\\d{1,10}(\\.\\d{1,2})?$" },
      ]);
    }
  });

  it("a JSON number amount becomes its decimal string (String(n)); a string is passed as written", async () => {
    expect(await filterSent("query_transactions", { min_amount: 0.1, max_amount: -2000 })).toMatchObject({
      minAmount: "0.1",
      maxAmount: "-2000",
    });
    expect(await filterSent("query_transactions", { min_amount: "0.10", max_amount: "7" })).toMatchObject({
      minAmount: "0.10",
      maxAmount: "7",
    });
    expect(await filterSent("transaction_summary", { max_amount: 0 })).toMatchObject({ maxAmount: "0" });
    expect(await filterSent("query_transactions", { count_only: true, min_amount: 1234567890.12 })).toMatchObject({
      minAmount: "1234567890.12",
    });
  });

  it("tags: one slug, comma-separated, or an array", async () => {
    expect(await filterSent("query_transactions", { tags: "trip" })).toMatchObject({ tags: ["trip"], anyTag: [] });
    expect(await filterSent("query_transactions", { tags: "trip, work" })).toMatchObject({ tags: ["trip, work"] });
    expect(await filterSent("transaction_summary", { any_tag: ["trip", "work"] })).toMatchObject({
      anyTag: ["trip", "work"],
    });
  });

  it("passes every filter to the core", async () => {
    const args = {
      start_date: "2026-01-01",
      end_date: "2026-02-01",
      account_id: "AbCdEfGh",
      user_id: "HgFeDcBa",
      category_slug: "food_and_drink",
      pending: false,
      search: "coffee",
      search_mode: "words",
    };
    expect(await filterSent("query_transactions", args)).toMatchObject({
      startDate: "2026-01-01",
      endDate: "2026-02-01",
      accountId: "AbCdEfGh",
      userId: "HgFeDcBa",
      categorySlug: "food_and_drink",
      pending: false,
      search: "coffee",
      searchMode: "words",
    });
  });

  it.each([
    [{ min_amount: 1.234 }, "min_amount must be a decimal number with at most 2 decimals"],
    [{ min_amount: 1e21 }, "min_amount must be a decimal number with at most 2 decimals"],
    [{ max_amount: "1,5" }, "max_amount must be a decimal number with at most 2 decimals"],
    [{ max_amount: true }, "max_amount must be a decimal number with at most 2 decimals, as a number or a string"],
    [{ start_date: "2026-1-1" }, "start_date must be a date written YYYY-MM-DD"],
    [{ category_slug: "Food!" }, "category_slug must be 1 to 64 characters of a-z, 0-9 and _"],
    [{ tags: "Not A Slug" }, "tags must be a slug or comma-separated slugs"],
    [{ any_tag: ["ok", "a;b"] }, "any_tag[1] must be a slug or comma-separated slugs"],
    [{ account_id: "a".repeat(65) }, "account_id: Too big: expected string to have <=64 characters"],
    [
      { limit: 0, pending: "yes" },
      "pending: Invalid input: expected boolean, received string; limit: Too small: expected number to be >=1",
    ],
  ])("%j → INVALID_PARAMETER: %s", async (args, message) => {
    expect(await refused(args)).toEqual({ code: "INVALID_PARAMETER", message });
  });
});
