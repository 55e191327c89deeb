import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createMcpServer } from "../../gateways/mcp/server.js";
import { allTools } from "../../gateways/mcp/tools/index.js";
import { allRoutes } from "../../gateways/rest/routes/index.js";
import { callOptions } from "../../gateways/shared/core-client.js";
import { recordingLog } from "../helpers/log.js";
import { expectEnvelope, key } from "../helpers/rest.js";
import { startStack, type Stack } from "../helpers/stack.js";

/**
 * Every number a REST query string or an MCP tool takes, found from the route
 * and tool tables (so a new one is covered without editing this file), fed
 * what is not a plain finite number. Reproducer B: limit=Infinity was a 500.
 */
let s: Stack;
beforeAll(async () => {
  s = await startStack();
});
afterAll(async () => {
  await s?.close();
});

const numericQueryParams = allRoutes.flatMap((r) =>
  Object.entries(r.doc?.querystring?.properties ?? {})
    .filter(([, p]) => typeof p === "object" && ["integer", "number"].some((t) => [p.type].flat().includes(t as never)))
    .map(([name]) => [`${r.method} ${r.url}`, name] as const),
);

const NOT_NUMBERS = ["Infinity", "-Infinity", "NaN", "1e400", "-1e400", "1e3", "0x10", " 5", "+5", "5.0", "", "1,5"];

describe("REST: numbers in query strings", () => {
  it("the route table has numeric query parameters to check (limit, at least)", () => {
    expect(numericQueryParams).toContainEqual(["GET /api/v1/transactions", "limit"]);
  });

  describe.each(numericQueryParams)("%s ?%s=", (route, name) => {
    const path = route.split(" ")[1].replace(/:[a-z_]+/g, "abcdefgh");
    const get = (qs: string) =>
      s.rest.inject({ method: route.split(" ")[0] as "GET", url: `${path}?${qs}`, headers: key(s.adminKey) });

    it.each(NOT_NUMBERS)("%j → 400 INVALID_PARAMETER naming it", async (v) => {
      expectEnvelope(await get(`${name}=${encodeURIComponent(v)}`), "INVALID_PARAMETER", new RegExp(`^${name} `));
    });

    it("a value past 15 digits, or given twice → 400 INVALID_PARAMETER", async () => {
      expectEnvelope(await get(`${name}=${"9".repeat(16)}`), "INVALID_PARAMETER", new RegExp(`^${name} `));
      expectEnvelope(await get(`${name}=5&${name}=6`), "INVALID_PARAMETER", new RegExp(`^${name} `));
    });
  });

  it("limit=5 still works", async () => {
    const res = await s.rest.inject({ method: "GET", url: "/api/v1/transactions?limit=5", headers: key(s.adminKey) });
    expect(res.statusCode).toBe(200);
  });
});

/** The top-level tool arguments that are numbers (zod's JSON Schema says integer or number). */
const numericToolArgs = allTools.flatMap((t) => {
  const props = (z.toJSONSchema(t.input, { io: "input" }) as { properties?: Record<string, { type?: unknown }> })
    .properties;
  return Object.entries(props ?? {})
    .filter(([, p]) => ["integer", "number"].some((k) => [p.type].flat().includes(k)))
    .map(([name]) => [t.name, name] as const);
});

describe("MCP: numbers in tool arguments", () => {
  it("the tool table has numeric arguments to check (query_transactions limit, at least)", () => {
    expect(numericToolArgs).toContainEqual(["query_transactions", "limit"]);
  });

  it.each(numericToolArgs)("%s %s: Infinity, -Infinity, NaN → isError INVALID_PARAMETER", async (tool, name) => {
    const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
    await createMcpServer(s.core, callOptions(s.readKey, "test"), recordingLog()).connect(serverSide);
    const client = new Client({ name: "t", version: "0" });
    await client.connect(clientSide);
    for (const v of [Infinity, -Infinity, NaN]) {
      const r = await client.callTool({ name: tool, arguments: { [name]: v } });
      expect(r.isError).toBe(true);
      const { error } = JSON.parse((r.content as { text: string }[])[0].text);
      expect(error.code).toBe("INVALID_PARAMETER");
      expect(error.message).toContain(name);
    }
    await client.close();
  });
});
