import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { query } from "../../services/db/sql.js";
import { CsvProvider } from "../../services/sync/providers/csv/provider.js";
import { ProviderError } from "../../services/sync/providers/provider.js";
import { ProviderRegistry } from "../../services/sync/registry.js";
import { newUser } from "../helpers/ledger.js";
import { key } from "../helpers/rest.js";
import { ScriptedProvider, tx } from "../helpers/scripted-provider.js";
import { startStack, type Stack } from "../helpers/stack.js";
import { waitFor } from "../helpers/wait.js";

// get_sync_status, list_connections and trigger_sync through a real MCP client.

const plaid = new ScriptedProvider("plaid");
let s: Stack;
let url: URL;
let admin: Client;
let reader: Client;
let healthy: { id: string; short_id: string };
let broken: { id: string; short_id: string };

async function connect(apiKey: string): Promise<Client> {
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { "X-API-Key": apiKey } } }));
  return client;
}

const logsOf = (id: string) =>
  query<{ trigger: string }>(
    s.orm.em.fork(),
    `select trigger from sync_logs where connection_id = ? and status <> 'running'`,
    [id],
  );

beforeAll(async () => {
  s = await startStack(
    {},
    {
      sync: { registry: new ProviderRegistry([plaid, new CsvProvider()]), scheduler: { pollingIntervalSeconds: 0.5 } },
    },
  );
  await s.mcp.listen({ port: 0, host: "127.0.0.1" });
  url = new URL(`http://127.0.0.1:${(s.mcp.server.address() as AddressInfo).port}/mcp`);
  const ann = await newUser(s.orm.em.fork(), "Ann");
  const create = async (item: string) =>
    (
      await s.rest.inject({
        method: "POST",
        url: "/api/v1/connections",
        headers: key(s.adminKey),
        payload: { provider: "plaid", user_id: ann.shortId, credentials: { token: "t", item } },
      })
    ).json();
  plaid.push({ added: [tx("m1")] });
  healthy = await create("item-ok");
  await waitFor(async () => (await logsOf(healthy.id)).length === 1, "the first sync");
  plaid.failNext = {
    method: "sync",
    error: new ProviderError("reauth_required", "ITEM_LOGIN_REQUIRED", "The bank needs the person to log in again"),
  };
  broken = await create("item-broken");
  await waitFor(async () => (await logsOf(broken.id)).length === 1, "the failing sync");
  [admin, reader] = await Promise.all([connect(s.adminKey), connect(s.readKey)]);
});
afterAll(async () => {
  await Promise.all([admin, reader].map((c) => c?.close()));
  await s?.close();
});

type ToolResult = { isError?: boolean; structuredContent?: Record<string, unknown>; content: { text: string }[] };
const call = async (client: Client, name: string, args: Record<string, unknown> = {}) =>
  (await client.callTool({ name, arguments: args })) as ToolResult;

describe("sync tools", () => {
  it("get_sync_status (read, no parameters) returns exactly what GET /connections lists", async () => {
    const r = await call(reader, "get_sync_status");
    expect(r.isError).toBeFalsy();
    const rest = (await s.rest.inject({ method: "GET", url: "/api/v1/connections", headers: key(s.readKey) })).json();
    const tool = (r.structuredContent as { connections: Record<string, unknown>[] }).connections;
    expect(tool).toEqual(rest);
    expect(tool.map((c) => c.id).sort()).toEqual([healthy.id, broken.id].sort());
    expect(tool.find((c) => c.short_id === broken.short_id)).toMatchObject({
      provider: "plaid",
      status: "pending_reauth",
      error_code: "ITEM_LOGIN_REQUIRED",
      error_message: "The bank needs the person to log in again",
      last_synced_at: null,
    });
    expect(tool.find((c) => c.short_id === healthy.short_id)).toMatchObject({
      status: "active",
      error_code: null,
      last_synced_at: expect.stringMatching(/Z$/),
    });
  });

  it("list_connections adds whether each connection's schedule is paused", async () => {
    const r = await call(reader, "list_connections");
    const list = (r.structuredContent as { connections: { id: string; paused: boolean }[] }).connections;
    expect(list.map((c) => c.id).sort()).toEqual([healthy.id, broken.id].sort());
    expect(list.every((c) => c.paused === false)).toBe(true);
    // Each is GET /api/v1/connections/{id}'s object.
    for (const c of list) {
      const rest = await s.rest.inject({ method: "GET", url: `/api/v1/connections/${c.id}`, headers: key(s.readKey) });
      expect(c).toEqual(rest.json());
    }
  });

  it("trigger_sync queues a sync (full_access only) and it runs", async () => {
    const before = (await logsOf(healthy.id)).length;
    const r = await call(admin, "trigger_sync", { id: healthy.short_id });
    expect(r.structuredContent).toMatchObject({
      status: "queued",
      connection: { id: healthy.id, short_id: healthy.short_id },
    });
    await waitFor(async () => (await logsOf(healthy.id)).length > before, "the triggered sync");
    const refused = await call(reader, "trigger_sync", { id: healthy.short_id });
    expect(refused.isError).toBe(true);
    expect(JSON.parse(refused.content[0].text)).toMatchObject({ error: { code: "INSUFFICIENT_SCOPE" } });
    const unknown = await call(admin, "trigger_sync", { id: "nothing0" });
    expect(JSON.parse(unknown.content[0].text)).toMatchObject({ error: { code: "NOT_FOUND" } });
  });
});
