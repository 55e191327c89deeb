import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMcpServer } from "../../gateways/mcp/server.js";
import { callOptions } from "../../gateways/shared/core-client.js";
import { newAccount, newTransactions, newUser } from "../helpers/ledger.js";
import { recordingLog } from "../helpers/log.js";
import { rawRequest } from "../helpers/raw-http.js";
import { startStack, type Stack } from "../helpers/stack.js";
import { databaseChecksum } from "../helpers/state.js";

// The hardening issue's MCP reproducers: control characters reached PostgreSQL (a 500) or were
// stored through update_series, assign_series {create_if_missing} and create_transaction_rule;
// a lone surrogate was stored as U+FFFD; POST /mcp over HTTP/1.0 without Host got a bare 400.

let s: Stack;
let port: number;
let http: Client;
let inProcess: Client;
let tx: string;
let seriesId: string;

beforeAll(async () => {
  s = await startStack();
  await s.mcp.listen({ port: 0, host: "127.0.0.1" });
  port = (s.mcp.server.address() as AddressInfo).port;
  const em = s.orm.em.fork();
  const ann = await newUser(em, "Ann");
  const account = await newAccount(em, ann.id, { name: "Joint" });
  [tx] = await newTransactions(em, account.id, [{ providerName: "GYM", date: "2026-01-10" }]);
  const series = await s.rest.inject({
    method: "POST",
    url: "/api/v1/series",
    headers: { "x-api-key": s.adminKey },
    payload: { name: "Gym", iso_currency_code: "USD", expected_amount: 30 },
  });
  seriesId = series.json<{ id: string }>().id;

  http = new Client({ name: "coffer-test", version: "0.0.0" });
  await http.connect(
    new StreamableHTTPClientTransport(new URL(`http://127.0.0.1:${port}/mcp`), {
      requestInit: { headers: { "X-API-Key": s.adminKey } },
    }),
  );
  // The same server over an in-process pair, as `coffer mcp --stdio` runs it (no HTTP body parser in front).
  const server = createMcpServer(s.core, callOptions(s.adminKey, "test"), recordingLog());
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  inProcess = new Client({ name: "coffer-test", version: "0.0.0" });
  await inProcess.connect(clientSide);
});
afterAll(async () => {
  await http?.close();
  await inProcess?.close();
  await s?.close();
});

async function toolError(client: Client, name: string, args: Record<string, unknown>) {
  const r = await client.callTool({ name, arguments: args });
  expect(r.isError, JSON.stringify(r.content)).toBe(true);
  return JSON.parse((r.content as { text: string }[])[0].text).error as { code: string; message: string };
}

const HOSTILE = [
  ["NUL", "a\u0000b", "U+0000"],
  ["BEL", "a\u0007b", "U+0007"],
  ["ESC", "a\u001bb", "U+001B"],
] as const;

const rule = (over: { name?: string; value?: string; metadata?: string; series?: string }) => ({
  name: over.name ?? "Gym rule",
  conditions: { field: "provider_name", op: "contains", value: over.value ?? "gym" },
  actions: [
    { type: "set_metadata", key: "kind", value: over.metadata ?? "sport" },
    { type: "assign_series", series_name: over.series ?? "Sport", create_if_missing: true },
  ],
});

describe("MCP tools refuse control characters in every text they store", () => {
  const cases = HOSTILE.flatMap(([what, value, codePoint]) => [
    [`update_series name ← ${what}`, "update_series", () => ({ id: seriesId, name: value }), "name", codePoint],
    [
      `assign_series series_name ← ${what}`,
      "assign_series",
      () => ({ transaction_ids: [tx], series_name: value, create_if_missing: true }),
      "series_name",
      codePoint,
    ],
    [
      `create_transaction_rule name ← ${what}`,
      "create_transaction_rule",
      () => rule({ name: value }),
      "name",
      codePoint,
    ],
    [
      `create_transaction_rule condition value ← ${what}`,
      "create_transaction_rule",
      () => rule({ value }),
      "value",
      codePoint,
    ],
    [
      `create_transaction_rule set_metadata value ← ${what}`,
      "create_transaction_rule",
      () => rule({ metadata: value }),
      "value",
      codePoint,
    ],
    [
      `create_transaction_rule assign_series series_name ← ${what}`,
      "create_transaction_rule",
      () => rule({ series: value }),
      "series_name",
      codePoint,
    ],
  ]) as [string, string, () => Record<string, unknown>, string, string][];

  it.each(cases)("%s → VALIDATION_ERROR naming the field, nothing stored", async (_t, tool, args, field, codePoint) => {
    const before = await databaseChecksum(s.orm.em.fork());
    const error = await toolError(http, tool, args());
    expect(error.code).toBe("VALIDATION_ERROR");
    expect(error.message).toContain(field);
    expect(error.message).toContain(codePoint);
    expect(await databaseChecksum(s.orm.em.fork())).toBe(before);
  });

  it("the same tools with clean text succeed (so the refusals above are about the one value)", async () => {
    for (const [tool, args] of [
      ["update_series", { id: seriesId, name: "Gym\tclub" }],
      ["create_transaction_rule", rule({})],
    ] as const) {
      const r = await http.callTool({ name: tool, arguments: args });
      expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
    }
  });
});

describe("a lone surrogate is refused, not stored as U+FFFD", () => {
  const body = (name: string) =>
    `{"jsonrpc":"2.0","id":7,"method":"tools/call","params":{"name":"update_series",` +
    `"arguments":{"id":"${seriesId}","name":"${name}"}}}`;

  it('over HTTP: a body with "x\\ud800y" → 400 VALIDATION_ERROR naming the argument', async () => {
    const before = await databaseChecksum(s.orm.em.fork());
    const res = await fetch(`http://127.0.0.1:${port}/mcp`, {
      method: "POST",
      headers: {
        "content-type": "application/json",
        accept: "application/json, text/event-stream",
        "x-api-key": s.adminKey,
      },
      body: body("x\\ud800y"),
    });
    expect(res.status).toBe(400);
    const { error } = (await res.json()) as { error: { code: string; message: string } };
    expect(error.code).toBe("VALIDATION_ERROR");
    expect(error.message).toBe("params.arguments.name must be valid Unicode text; found a lone surrogate");
    expect(await databaseChecksum(s.orm.em.fork())).toBe(before);
  });

  it("in process (stdio): the tool answers VALIDATION_ERROR naming the argument", async () => {
    const error = await toolError(inProcess, "update_series", { id: seriesId, name: "x\ud800y" });
    expect(error).toEqual({
      code: "VALIDATION_ERROR",
      message: "name must be valid Unicode text; found a lone surrogate",
    });
  });

  it("a valid pair (an emoji) is text like any other", async () => {
    const r = await inProcess.callTool({
      name: "update_series",
      arguments: { id: seriesId, name: "Gym \ud83c\udfcb" },
    });
    expect(r.isError, JSON.stringify(r.content)).toBeFalsy();
    expect((r.structuredContent as { series: { name: string } }).series.name).toBe("Gym 🏋");
  });
});

describe("POST /mcp over HTTP/1.0 without Host", () => {
  it("answers 400 INVALID_REQUEST in the error envelope", async () => {
    const payload = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    const r = await rawRequest(
      port,
      "POST /mcp HTTP/1.0\r\nContent-Type: application/json\r\nAccept: application/json, text/event-stream\r\n" +
        `X-API-Key: ${s.adminKey}\r\nContent-Length: ${payload.length}\r\n\r\n${payload}`,
    );
    expect(r.status).toBe(400);
    expect(r.headers["content-type"]).toMatch(/^application\/json/);
    expect(JSON.parse(r.body)).toEqual({
      error: { code: "INVALID_REQUEST", message: "A request to /mcp needs a Host header" },
    });
  });

  it("with a Host it is served", async () => {
    const payload = JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" });
    const r = await rawRequest(
      port,
      "POST /mcp HTTP/1.0\r\nHost: localhost\r\nContent-Type: application/json\r\n" +
        "Accept: application/json, text/event-stream\r\n" +
        `X-API-Key: ${s.adminKey}\r\nContent-Length: ${payload.length}\r\n\r\n${payload}`,
    );
    expect(r.status).toBe(200);
    expect(JSON.parse(r.body)).toMatchObject({ jsonrpc: "2.0", id: 1, result: { tools: expect.any(Array) } });
  });
});
