import { Server } from "@modelcontextprotocol/sdk/server/index.js";
import {
  ListToolsRequestSchema,
  type CallToolRequest,
  type CallToolResult,
  type Tool,
} from "@modelcontextprotocol/sdk/types.js";
import { z } from "zod";
import { loneSurrogatePath } from "../../common/text.js";
import { VERSION } from "../../common/version.js";
import type { CallOptions, CoreClients } from "../shared/core-client.js";
import { envelope, mapAndLog, type FailureLog, type MappedError } from "../shared/error-map.js";
import type { ToolDef } from "./tool.js";
import { allTools } from "./tools/index.js";

function errorResult(mapped: MappedError): CallToolResult {
  return { isError: true, content: [{ type: "text", text: JSON.stringify(mapped.body) }] };
}

/**
 * The listing a client sees: zod's own JSON Schema conversion, draft-7, the
 * way the SDK's McpServer lists zod tools (arguments as the caller writes
 * them, results as the tool returns them).
 */
function listing(tool: ToolDef): Tool {
  return {
    name: tool.name,
    title: tool.title,
    description: tool.description,
    inputSchema: z.toJSONSchema(tool.input, { target: "draft-7", io: "input" }) as Tool["inputSchema"],
    outputSchema: z.toJSONSchema(tool.output, { target: "draft-7", io: "output" }) as Tool["outputSchema"],
    annotations: { title: tool.title, readOnlyHint: tool.readOnly, openWorldHint: false },
    execution: { taskSupport: "forbidden" },
  };
}

const dotPath = (path: PropertyKey[]) =>
  path.reduce<string>(
    (acc, seg, i) => (typeof seg === "number" ? `${acc}[${seg}]` : i === 0 ? String(seg) : `${acc}.${String(seg)}`),
    "",
  );

/** Names every bad argument: "id is required; limit: Too big: expected number to be <=500". */
function describeIssues(error: z.ZodError): string {
  return error.issues
    .map((i) =>
      i.path.length === 0 ? i.message : `${dotPath(i.path)}${/^(is|must) /.test(i.message) ? " " : ": "}${i.message}`,
    )
    .join("; ");
}

/**
 * tools/call as the handler is registered: params unchecked here, because the
 * SDK parses a request against this schema before its own tools/call check, and
 * a failure at that first parse was answered -32603 "internal error" carrying
 * zod's issues (arguments that are not an object). The SDK's check, which runs
 * next, answers a malformed call with -32602 invalid params instead.
 */
const ToolCallSchema = z.object({ method: z.literal("tools/call"), params: z.unknown() });

/**
 * A fresh MCP server bound to one caller's key: stateless per request over
 * HTTP, one per process over stdio. Tools only translate; the core decides.
 *
 * Built on the SDK's low-level Server so that every failure, including bad
 * arguments and unknown tools, is a tool result carrying Coffer's envelope.
 * A failure that is ours (a tool that throws, a result its output schema
 * refuses, a core that cannot be reached) is logged to `log` with its cause.
 */
export function createMcpServer(
  core: CoreClients,
  opts: CallOptions,
  log: FailureLog,
  tools: ToolDef[] = allTools,
): Server {
  const byName = new Map(tools.map((t) => [t.name, t]));
  // listChanged as the SDK's McpServer declares it; this list never changes while a server lives.
  const server = new Server({ name: "coffer", version: VERSION }, { capabilities: { tools: { listChanged: true } } });

  server.setRequestHandler(ListToolsRequestSchema, () => ({ tools: tools.map(listing) }));

  server.setRequestHandler(ToolCallSchema, async (call): Promise<CallToolResult> => {
    // The SDK has checked it against its CallToolRequestSchema by now.
    const request = call as CallToolRequest;
    const tool = byName.get(request.params.name);
    // An agent asking for a tool that does not exist is its mistake, not ours.
    if (!tool) return errorResult(envelope("NOT_FOUND", `Tool ${request.params.name} not found`));
    // As json-body.ts does for HTTP: stdio arguments never passed through it, and the core would see U+FFFD.
    const lone = loneSurrogatePath(request.params.arguments ?? {}, "");
    if (lone !== null)
      return errorResult(
        envelope("VALIDATION_ERROR", `${lone || "arguments"} must be valid Unicode text; found a lone surrogate`),
      );
    let called: Awaited<ReturnType<ToolDef["call"]>>;
    const callOpts = tool.timeoutMs === undefined ? opts : { ...opts, timeoutMs: tool.timeoutMs };
    try {
      called = await tool.call(core, callOpts, request.params.arguments ?? {});
    } catch (e) {
      return errorResult(mapAndLog(e, log));
    }
    if ("invalid" in called) return errorResult(envelope("INVALID_PARAMETER", describeIssues(called.invalid)));
    const out = called.result;
    // The result must match the advertised outputSchema (as McpServer checked, and
    // SDK clients check again); a mismatch is our bug, reported like any other.
    const checked = tool.output.safeParse(out);
    if (!checked.success) {
      // The issues name paths and expected types, not the values (which are the household's data).
      const issues = checked.error.issues.map((i) => `${dotPath(i.path)}: ${i.code}`).slice(0, 10);
      log.error({ tool: tool.name, issues }, "MCP tool result does not match its output schema");
      return errorResult(envelope("INTERNAL_ERROR", "Internal error"));
    }
    return { content: [{ type: "text", text: JSON.stringify(out) }], structuredContent: out };
  });
  return server;
}
