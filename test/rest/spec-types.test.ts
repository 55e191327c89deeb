import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newAccount, newTransactions, newUser } from "../helpers/ledger.js";
import { key } from "../helpers/rest.js";
import { startStack, type Stack } from "../helpers/stack.js";

// Fields the interface specification types as string are strings over REST and MCP, "" when there is
// nothing: a CSV connection's institution_id (its import key), the built-in rule's created_by_id and
// category fields, a preview sample's category_primary_raw for a row without a provider category.

let s: Stack;
let mcp: Client;

const rest = async (method: "GET" | "POST", url: string, payload?: object) => {
  const res = await s.rest.inject({ method, url, headers: key(s.adminKey), payload });
  expect(res.statusCode, res.body).toBeLessThan(300);
  return res.json();
};

async function tool(name: string, args: Record<string, unknown> = {}) {
  const r = await mcp.callTool({ name, arguments: args });
  expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
  return r.structuredContent as Record<string, unknown>;
}

beforeAll(async () => {
  s = await startStack();
  await s.mcp.listen({ port: 0, host: "127.0.0.1" });
  mcp = new Client({ name: "test", version: "1.0.0" });
  const url = new URL(`http://127.0.0.1:${(s.mcp.server.address() as AddressInfo).port}/mcp`);
  await mcp.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { "X-API-Key": s.adminKey } } }));
});
afterAll(async () => {
  await mcp?.close();
  await s?.close();
});

describe("fields the specification types as strings are strings", () => {
  it("a CSV connection's institution_id is its import key, the same on every import of that account", async () => {
    const ann = await newUser(s.orm.em.fork(), "Ann");
    const credentials = (csv: string, accountName: string) => ({
      csv,
      column_mapping: { date: "Date", amount: "Amount", description: "Description" },
      account_name: accountName,
      iso_currency_code: "USD",
    });
    const first = await rest("POST", "/api/v1/connections", {
      provider: "csv",
      user_id: ann.shortId,
      credentials: credentials("Date,Amount,Description\n2026-02-01,12.50,Bakery\n", "Joint Checking"),
    });
    expect(first).toMatchObject({ institution_name: "Joint Checking", institution_id: "joint checking" });
    const again = await rest("POST", "/api/v1/connections", {
      provider: "csv",
      user_id: ann.shortId,
      credentials: credentials("Date,Amount,Description\n2026-02-02,3.10,Coffee\n", " joint   CHECKING "),
    });
    expect(again).toMatchObject({ id: first.id, institution_id: "joint checking" });

    const listed = (await rest("GET", "/api/v1/connections")) as Record<string, unknown>[];
    expect(listed.find((c) => c.id === first.id)).toMatchObject({ institution_id: "joint checking" });
    const { connections } = (await tool("get_sync_status")) as { connections: Record<string, unknown>[] };
    // The name is the latest import's spelling; the id stays the import key.
    expect(connections.find((c) => c.short_id === first.short_id)).toMatchObject({
      institution_name: "joint   CHECKING",
      institution_id: "joint checking",
    });
  });

  it('the built-in rule has created_by_id, category_slug and category_display_name "" (REST and MCP)', async () => {
    const { rules } = (await rest("GET", "/api/v1/rules?creator_type=system")) as { rules: Record<string, unknown>[] };
    expect(rules).toHaveLength(1);
    expect(rules[0]).toMatchObject({
      created_by_type: "system",
      created_by_id: "",
      category_slug: "",
      category_display_name: "",
    });
    const listed = (await tool("list_transaction_rules")) as { rules: Record<string, unknown>[] };
    const builtIn = listed.rules.find((r) => r.created_by_type === "system");
    expect(builtIn).toMatchObject({ created_by_id: "", category_slug: "", category_display_name: "" });
    const queried = (await tool("query_transaction_rules", { creator_type: "system", fields: "all" })) as {
      rules: Record<string, unknown>[];
    };
    expect(queried.rules[0]).toMatchObject({ created_by_id: "", category_slug: "", category_display_name: "" });
  });

  it('preview_rule samples carry category_primary_raw "" for a row without a provider category', async () => {
    const user = await newUser(s.orm.em.fork(), "Bo");
    const account = await newAccount(s.orm.em.fork(), user.id, { name: "Types checking" });
    await newTransactions(s.orm.em.fork(), account.id, [
      { providerName: "TYPES NO CATEGORY", amount: "4.50", date: "2026-03-01" },
      { providerName: "TYPES WITH CATEGORY", amount: "9.00", date: "2026-03-02", providerCategoryPrimary: "FOOD" },
    ]);
    const conditions = { field: "provider_name", op: "contains", value: "TYPES " };
    const viaRest = (await rest("POST", "/api/v1/rules/preview", { conditions })) as {
      sample_matches: Record<string, unknown>[];
    };
    const viaMcp = (await tool("preview_rule", { conditions })) as { sample_matches: Record<string, unknown>[] };
    for (const samples of [viaRest.sample_matches, viaMcp.sample_matches]) {
      expect(samples.map((m) => [m.name, m.category_primary_raw]).sort()).toEqual([
        ["TYPES NO CATEGORY", ""],
        ["TYPES WITH CATEGORY", "FOOD"],
      ]);
    }
  });
});
