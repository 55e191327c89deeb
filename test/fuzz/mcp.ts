import fc from "fast-check";
import { z } from "zod";
import type { JsonSchema } from "../../gateways/rest/route.js";
import type { ToolDef } from "../../gateways/mcp/tool.js";
import type { KeyKind } from "./rest.js";
import { httpProblems, leaksIn, type Problem } from "./oracle.js";
import { anyJson, deepJson, fromSchema, nastyText } from "./values.js";

/** One MCP request: a JSON-RPC message POSTed to /mcp (mostly tools/call with fuzzed arguments). */
export interface McpCase {
  surface: "mcp";
  tool: string;
  key: KeyKind;
  /** The JSON-RPC body as UTF-8 text (deep nesting and broken JSON included). */
  body: string;
  contentType: string;
  /** Headers besides Host, Connection, Content-Type, Content-Length and the key (Accept among them, or not). */
  headers: [string, string][];
  /** One-leaf mode: the one value that was made hostile (one-leaf.ts). */
  leaf?: string;
}

const ACCEPT_BOTH: [string, string] = ["accept", "application/json, text/event-stream"];

function inputSchemaOf(tool: ToolDef): JsonSchema | undefined {
  try {
    return z.toJSONSchema(tool.input, { target: "draft-7", io: "input" });
  } catch {
    return undefined;
  }
}

const rpc = (params: unknown, method = "tools/call", id: unknown = 1) =>
  JSON.stringify({ jsonrpc: "2.0", id, method, params });

export function mcpCase(tools: ToolDef[]): fc.Arbitrary<McpCase> {
  return fc.integer({ min: 0, max: tools.length - 1 }).chain((n) => {
    const tool = tools[n];
    const args = fromSchema(inputSchemaOf(tool));
    const body = fc.oneof(
      { weight: 12, arbitrary: args.map((a) => rpc({ name: tool.name, arguments: a })) },
      { weight: 1, arbitrary: anyJson.map((a) => rpc({ name: tool.name, arguments: a })) },
      { weight: 1, arbitrary: nastyText.map((name) => rpc({ name, arguments: {} })) },
      {
        weight: 1,
        arbitrary: deepJson.map(
          (d) =>
            `{"jsonrpc":"2.0","id":1,"method":"tools/call","params":{"name":"${tool.name}","arguments":{"x":${d}}}}`,
        ),
      },
      {
        weight: 1,
        arbitrary: fc.constantFrom(
          "",
          "null",
          "[]",
          "{",
          '{"jsonrpc":"2.0"}',
          '{"jsonrpc":"1.0","id":1,"method":"tools/list"}',
          rpc({}, "tools/list"),
          rpc({ name: tool.name }, "tools/call", null),
          rpc({ name: tool.name }, "tools/call", { a: 1 }),
          rpc(null),
          rpc([]),
          rpc({}, "no/such/method"),
          `[${rpc({ name: tool.name, arguments: {} })},${rpc({ name: tool.name, arguments: {} }, "tools/call", 2)}]`,
        ),
      },
    );
    return fc.record({
      surface: fc.constant("mcp" as const),
      tool: fc.constant(tool.name),
      key: fc.constantFrom<KeyKind>("none", "read", "read", "read", "full", "full", "full", "full", "bogus"),
      body,
      headers: fc.oneof(
        { weight: 12, arbitrary: fc.constant<[string, string][]>([ACCEPT_BOTH]) },
        {
          weight: 1,
          arbitrary: fc.constantFrom<[string, string][]>(
            [],
            [["accept", "application/json"]],
            [["accept", "text/event-stream"]],
            [["accept", "*/*"]],
            [["accept", "text/html"]],
            [ACCEPT_BOTH, ["mcp-protocol-version", "2025-06-18"]],
            [ACCEPT_BOTH, ["mcp-protocol-version", "1999-01-01"]],
            [ACCEPT_BOTH, ["mcp-protocol-version", "\u00ff"]],
            [ACCEPT_BOTH, ["mcp-session-id", "no-such-session"]],
            [ACCEPT_BOTH, ["last-event-id", "1"]],
          ),
        },
      ),
      contentType: fc.oneof(
        { weight: 15, arbitrary: fc.constant("application/json") },
        { weight: 1, arbitrary: fc.constantFrom("text/plain", "application/json; charset=latin1", "") },
      ),
    });
  });
}

export function mcpBytes(c: McpCase, port: number, keys: { read: string; full: string }): Buffer {
  const body = Buffer.from(c.body, "utf8");
  const key = { none: null, read: keys.read, full: keys.full, bogus: "cf_notakey000000", twice: keys.read }[c.key];
  const head = [
    "POST /mcp HTTP/1.1",
    `host: 127.0.0.1:${port}`,
    "connection: close",
    `content-type: ${c.contentType}`,
    ...c.headers.map(([k, v]) => `${k}: ${v}`),
    ...(key ? [`x-api-key: ${key}`] : []),
    `content-length: ${body.length}`,
  ];
  return Buffer.concat([Buffer.from(`${head.join("\r\n")}\r\n\r\n`, "latin1"), body]);
}

export interface McpOutcome {
  label: string;
  problems: Problem[];
  /** A tool ran and succeeded (the only MCP answer that may change state). */
  succeeded: boolean;
}

/**
 * An MCP answer: a gateway error (status < 500, the envelope), or JSON-RPC
 * whose results are tool successes or tool errors carrying the envelope with
 * a code that is not INTERNAL_ERROR, and whose errors are not "internal error".
 */
export function judgeMcp(status: number, contentType: string | undefined, body: Buffer): McpOutcome {
  const problems = httpProblems(status, contentType, body, "POST");
  if (status !== 200) return { label: `mcp ${status}`, problems, succeeded: false };
  const text = body.toString("utf8");
  let messages: unknown;
  try {
    messages = JSON.parse(text);
  } catch {
    return {
      label: "mcp 200 not JSON",
      problems: [{ kind: "non-envelope", detail: text.slice(0, 200) }],
      succeeded: false,
    };
  }
  let label = "mcp 200";
  let succeeded = false;
  for (const m of Array.isArray(messages) ? messages : [messages]) {
    const msg = m as {
      result?: { isError?: boolean; content?: { text?: string }[] };
      error?: { code?: number; message?: string };
    };
    if (msg.error) {
      label = `mcp jsonrpc ${msg.error.code}`;
      if (msg.error.code === -32603)
        problems.push({ kind: "internal-code", detail: `JSON-RPC internal error: ${msg.error.message}` });
      const leak = leaksIn(String(msg.error.message));
      if (leak) problems.push({ kind: "leak", detail: leak });
    } else if (msg.result?.isError) {
      let code = "?";
      try {
        const env = JSON.parse(msg.result.content?.[0]?.text ?? "") as { error: { code: string; message: string } };
        code = env.error.code;
        if (typeof env.error.message !== "string" || !env.error.message) throw new Error("no message");
        const leak = leaksIn(env.error.message);
        if (leak) problems.push({ kind: "leak", detail: leak });
      } catch {
        problems.push({ kind: "non-envelope", detail: `tool error without the envelope: ${text.slice(0, 200)}` });
      }
      label = `mcp tool error ${code}`;
      if (code === "INTERNAL_ERROR")
        problems.push({ kind: "internal-code", detail: `tool error INTERNAL_ERROR: ${text.slice(0, 300)}` });
    } else if (msg.result) {
      label = "mcp tool ok";
      succeeded = true;
    }
  }
  return { label, problems, succeeded };
}

export function describeMcp(c: McpCase): string {
  const body = c.body.length > 600 ? `${c.body.slice(0, 600)}… (${c.body.length} chars)` : c.body;
  return (
    `MCP POST /mcp key=${c.key} tool=${c.tool} content-type=${c.contentType} headers=${JSON.stringify(c.headers)}` +
    `\n  body: ${JSON.stringify(body)}`
  );
}
