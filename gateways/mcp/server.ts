import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import type { CallToolResult } from "@modelcontextprotocol/sdk/types.js";
import { VERSION } from "../../common/version.js";
import type { CallOptions, CoreClients } from "../shared/core-client.js";
import { envelope, mapError, type MappedError } from "../shared/error-map.js";
import type { ToolDef } from "./tool.js";
import { allTools } from "./tools/index.js";

function errorResult(mapped: MappedError): CallToolResult {
  return { isError: true, content: [{ type: "text", text: JSON.stringify(mapped.body) }] };
}

/**
 * Errors the SDK raises itself (arguments that fail the input schema) get our
 * envelope and code too. The SDK builds them in createToolError, which its
 * typings mark private, hence the cast.
 */
function sdkToolError(message: string): CallToolResult {
  const code = /Input validation error|Invalid arguments/.test(message)
    ? "INVALID_PARAMETER"
    : /^(MCP error -?\d+: )?Tool \S+ (not found|disabled)$/.test(message)
      ? "NOT_FOUND" // an agent asking for a tool that does not exist is its mistake, not ours
      : "INTERNAL_ERROR";
  return errorResult(envelope(code, code === "INTERNAL_ERROR" ? "Internal error" : message.replace(/^MCP error -?\d+: /, "")));
}

/**
 * A fresh MCP server bound to one caller's key: stateless per request over
 * HTTP, one per process over stdio. Tools only translate; the core decides.
 */
export function createMcpServer(core: CoreClients, opts: CallOptions, tools: ToolDef[] = allTools): McpServer {
  const server = new McpServer({ name: "coffer", version: VERSION });
  (server as unknown as { createToolError: typeof sdkToolError }).createToolError = sdkToolError;
  for (const tool of tools) {
    server.registerTool(
      tool.name,
      {
        title: tool.title,
        description: tool.description,
        inputSchema: tool.inputSchema,
        outputSchema: tool.outputSchema,
        annotations: { title: tool.title, readOnlyHint: tool.readOnly, openWorldHint: false },
      },
      async (args: Record<string, unknown>): Promise<CallToolResult> => {
        try {
          const out = await tool.handler(core, opts, args);
          return { content: [{ type: "text", text: JSON.stringify(out) }], structuredContent: out };
        } catch (e) {
          return errorResult(mapError(e));
        }
      },
    );
  }
  return server;
}
