import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { createMcpServer } from "../../gateways/mcp/server.js";
import { recordingLog } from "../helpers/log.js";
import { defineTool, type ToolDef } from "../../gateways/mcp/tool.js";
import { allTools } from "../../gateways/mcp/tools/index.js";
import { callOptions } from "../../gateways/shared/core-client.js";
import { withKey } from "../helpers/core-error.js";
import { startStack, type Stack } from "../helpers/stack.js";

let s: Stack;
beforeAll(async () => {
  s = await startStack();
});
afterAll(async () => {
  await s?.close();
});

/** Tools that exist only here: one with typed input, one that crashes. */
const testTools: ToolDef[] = [
  defineTool({
    name: "typed",
    title: "Typed",
    description: "echoes a limit",
    readOnly: true,
    inputSchema: { limit: z.number().int().min(1).max(500) },
    outputSchema: { limit: z.number() },
    async handler(_core, _opts, args) {
      return { limit: args.limit };
    },
  }),
  defineTool({
    name: "crash",
    title: "Crash",
    description: "throws a plain Error",
    readOnly: true,
    inputSchema: {},
    outputSchema: { ok: z.boolean() },
    async handler() {
      throw new Error("secret internals at /work/main/x.ts:1 select * from api_keys");
    },
  }),
];

/** An MCP server bound to one key (as over stdio), reached through an in-memory pair. */
async function connect(apiKey: string, tools: ToolDef[] = [...allTools, ...testTools], log = recordingLog()) {
  const server = createMcpServer(s.core, callOptions(apiKey, "test"), log, tools);
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  const client = new Client({ name: "coffer-test", version: "0.0.0" });
  await client.connect(clientSide);
  return client;
}

const errorOf = (r: Awaited<ReturnType<Client["callTool"]>>) => {
  expect(r.isError).toBe(true);
  expect(r.structuredContent).toBeUndefined();
  return JSON.parse((r.content as { text: string }[])[0].text) as { error: { code: string; message: string } };
};

describe("MCP tool errors carry the stable code", () => {
  it.each([
    ["a string", { limit: "ten" }],
    ["too small", { limit: 0 }],
    ["missing", {}],
    ["not an integer", { limit: 1.5 }],
  ])("invalid arguments (%s) → isError INVALID_PARAMETER", async (_what, args) => {
    const client = await connect(s.readKey);
    const body = errorOf(await client.callTool({ name: "typed", arguments: args }));
    expect(body.error.code).toBe("INVALID_PARAMETER");
    expect(body.error.message).toContain("limit");
    expect(body.error.message).not.toMatch(/^MCP error/);
    await client.close();
  });

  it("valid arguments pass", async () => {
    const client = await connect(s.readKey);
    expect((await client.callTool({ name: "typed", arguments: { limit: 5 } })).structuredContent).toEqual({ limit: 5 });
    await client.close();
  });

  it("an exception inside a tool → isError INTERNAL_ERROR with no internals", async () => {
    const client = await connect(s.readKey);
    const r = await client.callTool({ name: "crash", arguments: {} });
    expect(errorOf(r)).toEqual({ error: { code: "INTERNAL_ERROR", message: "Internal error" } });
    expect(JSON.stringify(r)).not.toMatch(/secret|select|\.ts:/);
    await client.close();
  });

  it("an exception inside a tool is logged as an error with its cause", async () => {
    const log = recordingLog();
    const client = await connect(s.readKey, testTools, log);
    await client.callTool({ name: "crash", arguments: {} });
    expect(log.entries).toHaveLength(1);
    expect(log.entries[0]).toMatchObject({ level: "error", obj: { code: "INTERNAL_ERROR" } });
    expect(String(log.entries[0].obj.err)).toContain("secret internals");
    await client.close();
  });

  it("a core error is the core's verdict: nothing is logged here", async () => {
    const log = recordingLog();
    const client = await connect(s.readKey, allTools, log);
    expect(errorOf(await client.callTool({ name: "get_transaction", arguments: { id: "zzzzzzzz" } })).error.code).toBe(
      "NOT_FOUND",
    );
    expect(log.entries).toEqual([]);
    await client.close();
  });

  it("a core error (key revoked mid-session, as over stdio) → isError REVOKED_API_KEY", async () => {
    const created = await s.core.apiKeys.createApiKey({ name: "stdio-like", scope: "read_only" }, withKey(s.adminKey));
    const client = await connect(created.key);
    expect((await client.callTool({ name: "list_users", arguments: {} })).isError).toBeFalsy();
    await s.core.apiKeys.revokeApiKey({ id: created.apiKey!.id }, withKey(s.adminKey));
    for (const name of ["list_users", "whoami"]) {
      const body = errorOf(await client.callTool({ name, arguments: {} }));
      expect(body.error).toEqual({ code: "REVOKED_API_KEY", message: "The API key has been revoked" });
    }
    await client.close();
  });

  it("an unknown tool → isError NOT_FOUND", async () => {
    const client = await connect(s.readKey);
    expect(errorOf(await client.callTool({ name: "nope", arguments: {} })).error.code).toBe("NOT_FOUND");
    await client.close();
  });
});
