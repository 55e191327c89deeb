import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { generateApiKey } from "../../services/auth/key-hash.js";
import { withKey } from "../helpers/core-error.js";
import { startStack, type Stack } from "../helpers/stack.js";

let s: Stack;
let base: string;
const clients: Client[] = [];

beforeAll(async () => {
  s = await startStack();
  await s.mcp.listen({ port: 0, host: "127.0.0.1" });
  base = `http://127.0.0.1:${(s.mcp.server.address() as AddressInfo).port}`;
});
afterAll(async () => {
  await Promise.all(clients.map((c) => c.close().catch(() => undefined)));
  await s?.close();
});

async function connect(apiKey: string): Promise<Client> {
  const client = new Client({ name: "coffer-test", version: "0.0.0" });
  await client.connect(
    new StreamableHTTPClientTransport(new URL(`${base}/mcp`), { requestInit: { headers: { "X-API-Key": apiKey } } }),
  );
  clients.push(client);
  return client;
}

const initialize = {
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "curl", version: "0" } },
};
const postMcp = (headers: Record<string, string>) =>
  fetch(`${base}/mcp`, {
    method: "POST",
    headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
    body: JSON.stringify(initialize),
  });

const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/;

describe("MCP gateway over Streamable HTTP", () => {
  it("lists whoami and list_users as read-only tools with output schemas", async () => {
    const client = await connect(s.readKey);
    const { tools } = await client.listTools();
    const byName = new Map(tools.map((t) => [t.name, t]));
    for (const name of ["whoami", "list_users"]) {
      const tool = byName.get(name);
      expect(tool, name).toBeDefined();
      expect(tool!.annotations?.readOnlyHint).toBe(true);
      expect(tool!.description).toBeTruthy();
      expect(tool!.inputSchema.type).toBe("object");
      expect(tool!.outputSchema?.type).toBe("object");
      expect(Object.keys(tool!.outputSchema?.properties ?? {}).length).toBeGreaterThan(0);
    }
    expect(Object.keys(byName.get("list_users")!.outputSchema!.properties!)).toEqual(["users"]);
  });

  it("whoami returns structuredContent and the same JSON as text", async () => {
    const client = await connect(s.readKey);
    const r = await client.callTool({ name: "whoami", arguments: {} });
    expect(r.isError).toBeFalsy();
    expect(r.structuredContent).toMatchObject({
      name: "test reader",
      scope: "read_only",
      actor_type: "user",
      user_id: null,
    });
    expect((r.structuredContent as { id: string }).id).toMatch(UUID);
    // GET /api/v1/keys/me's object, field for field (last_used_at moves with every call).
    const rest = await s.rest.inject({ method: "GET", url: "/api/v1/keys/me", headers: { "x-api-key": s.readKey } });
    const lastUsed = (r.structuredContent as { last_used_at: string | null }).last_used_at;
    expect(r.structuredContent).toEqual({ ...rest.json(), last_used_at: lastUsed });
    expect(Object.keys(r.structuredContent!)).toEqual(Object.keys(rest.json()));
    const content = r.content as { type: string; text: string }[];
    expect(content).toHaveLength(1);
    expect(content[0].type).toBe("text");
    expect(JSON.parse(content[0].text)).toEqual(r.structuredContent);
  });

  it("list_users returns the household: GET /api/v1/users's objects (id UUID, short_id)", async () => {
    const u = (await s.core.users.createUser({ name: "Mia", email: "mia@example.com" }, withKey(s.adminKey))).user!;
    const client = await connect(s.readKey);
    const r = await client.callTool({ name: "list_users", arguments: {} });
    expect(r.isError).toBeFalsy();
    const out = r.structuredContent as { users: { id: string; name: string; email: string | null }[] };
    // The REST user object: `id` the UUID, `short_id` beside it (docs/contract.md, "Identifiers").
    expect(out.users).toContainEqual(
      expect.objectContaining({ id: u.id, short_id: u.shortId, name: "Mia", email: "mia@example.com" }),
    );
    const rest = await s.rest.inject({ method: "GET", url: "/api/v1/users", headers: { "x-api-key": s.readKey } });
    expect(out).toEqual(rest.json());
    expect(JSON.parse((r.content as { text: string }[])[0].text)).toEqual(out);
  });

  it("an unknown tool gives an isError result with NOT_FOUND", async () => {
    const client = await connect(s.readKey);
    const r = await client.callTool({ name: "drop_tables", arguments: {} });
    expect(r.isError).toBe(true);
    expect(JSON.parse((r.content as { text: string }[])[0].text)).toEqual({
      error: { code: "NOT_FOUND", message: expect.stringContaining("drop_tables") },
    });
  });

  it.each([
    ["no key", () => ({}), "MISSING_CREDENTIALS"],
    ["a malformed key", () => ({ "x-api-key": "hunter2" }), "INVALID_API_KEY"],
    ["an unknown key", () => ({ "x-api-key": generateApiKey() }), "INVALID_API_KEY"],
  ])("%s: POST /mcp is refused with 401 and the envelope before any MCP handling", async (_what, headers, code) => {
    const res = await postMcp(headers());
    expect(res.status).toBe(401);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    const body = await res.json();
    expect(body).toEqual({ error: { code, message: expect.any(String) } });
    expect(body).not.toHaveProperty("jsonrpc");
  });

  it("a revoked key is refused with 401 REVOKED_API_KEY, and the SDK client cannot connect", async () => {
    const created = await s.core.apiKeys.createApiKey({ name: "mcp temp", scope: "read_only" }, withKey(s.adminKey));
    const client = await connect(created.key);
    expect((await client.callTool({ name: "whoami", arguments: {} })).isError).toBeFalsy();
    await s.core.apiKeys.revokeApiKey({ id: created.apiKey!.id }, withKey(s.adminKey));
    // Stateless HTTP: every request is judged again, so the same session is now refused.
    await expect(client.callTool({ name: "whoami", arguments: {} })).rejects.toThrow(/401|REVOKED_API_KEY/);
    const res = await postMcp({ "x-api-key": created.key });
    expect(res.status).toBe(401);
    expect((await res.json()).error.code).toBe("REVOKED_API_KEY");
    await expect(connect(created.key)).rejects.toThrow(/REVOKED_API_KEY/);
  });

  it("with a valid key the same raw request is answered as MCP", async () => {
    const res = await postMcp({ "x-api-key": s.readKey });
    expect(res.status).toBe(200);
    const body = await res.json();
    expect(body).toMatchObject({ jsonrpc: "2.0", id: 1, result: { serverInfo: { name: "coffer" } } });
  });

  it("GET /mcp → 405 with the envelope; /health → 200", async () => {
    const get = await fetch(`${base}/mcp`, { headers: { "x-api-key": s.readKey } });
    expect(get.status).toBe(405);
    expect(get.headers.get("allow")).toBe("POST");
    expect((await get.json()).error.code).toBe("METHOD_NOT_ALLOWED");
    const health = await fetch(`${base}/health`);
    expect(health.status).toBe(200);
    expect((await fetch(`${base}/nope`)).status).toBe(404);
  });
});

// Found by the fuzz test (test/fuzz): malformed JSON-RPC answered outside the envelope, or as an internal error.
describe("malformed MCP messages", () => {
  const post = (body: unknown) =>
    fetch(`${base}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "x-api-key": s.readKey,
      },
      body: JSON.stringify(body),
    });

  it.each([
    ["an object that is no JSON-RPC message", { jsonrpc: "2.0" }],
    ["a request whose params are null", { jsonrpc: "2.0", id: 1, method: "tools/call", params: null }],
    ["a request whose params are an array", { jsonrpc: "2.0", id: 1, method: "tools/call", params: [] }],
    ["a request with a null id", { jsonrpc: "2.0", id: null, method: "tools/call", params: { name: "whoami" } }],
    ["an empty batch", []],
    ["a batch of 101", Array.from({ length: 101 }, (_, i) => ({ jsonrpc: "2.0", id: i, method: "ping" }))],
  ])("%s → 400 INVALID_BODY with the envelope", async (_what, body) => {
    const res = await post(body);
    expect(res.status).toBe(400);
    expect(res.headers.get("content-type")).toMatch(/^application\/json/);
    expect(await res.json()).toEqual({ error: { code: "INVALID_BODY", message: expect.any(String) } });
  });

  it.each([[1], ["x"], [[]], [null]])(
    "tools/call with arguments %j → JSON-RPC -32602 invalid params, not -32603",
    async (args) => {
      const res = await post({
        jsonrpc: "2.0",
        id: 7,
        method: "tools/call",
        params: { name: "whoami", arguments: args },
      });
      expect(res.status).toBe(200);
      const body = (await res.json()) as { id: number; error: { code: number; message: string } };
      expect(body).toMatchObject({ id: 7, error: { code: -32602 } });
      expect(body.error.message).toMatch(/Invalid tools\/call request/);
    },
  );

  it("a batch of two valid requests is still answered as MCP", async () => {
    const res = await post([
      { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "whoami", arguments: {} } },
      { jsonrpc: "2.0", id: 2, method: "tools/list" },
    ]);
    expect(res.status).toBe(200);
    const body = (await res.json()) as { id: number; result: unknown }[];
    expect(body.map((m) => m.id).sort()).toEqual([1, 2]);
  });
});

describe("MCP transport refusals carry the envelope", () => {
  const post = (headers: Record<string, string>) =>
    fetch(`${base}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", "x-api-key": s.readKey, ...headers },
      body: JSON.stringify(initialize),
    });
  const both = "application/json, text/event-stream";

  it.each([[{}], [{ accept: "*/*" }], [{ accept: "application/json" }], [{ accept: "text/event-stream" }]])(
    "Accept %j → 406 NOT_ACCEPTABLE",
    async (headers) => {
      const res = await post(headers);
      expect(res.status).toBe(406);
      expect(await res.json()).toEqual({ error: { code: "NOT_ACCEPTABLE", message: expect.any(String) } });
    },
  );

  it("an MCP-Protocol-Version the SDK does not speak → 400 INVALID_REQUEST", async () => {
    const res = await post({ accept: both, "mcp-protocol-version": "1999-01-01" });
    expect(res.status).toBe(400);
    expect(await res.json()).toEqual({ error: { code: "INVALID_REQUEST", message: expect.any(String) } });
  });

  it("a supported MCP-Protocol-Version is answered as MCP", async () => {
    const res = await post({ accept: both, "mcp-protocol-version": "2025-06-18" });
    expect(res.status).toBe(200);
  });

  it("without a key, 401 comes first whatever the Accept", async () => {
    const res = await fetch(`${base}/mcp`, {
      method: "POST",
      headers: { "content-type": "application/json", accept: "text/html" },
      body: JSON.stringify({ jsonrpc: "2.0" }),
    });
    expect(res.status).toBe(401);
  });
});
