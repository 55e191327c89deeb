import { readEnv } from "../../common/env.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { callOptions, coreClients, coreTransport } from "../shared/core-client.js";
import { mapError } from "../shared/error-map.js";
import { createMcpServer } from "./server.js";

/** `coffer mcp --stdio`: one MCP server on stdin/stdout, key from COFFER_API_KEY. Logs go to stderr only. */
export async function runMcpStdio(env: NodeJS.ProcessEnv = process.env) {
  const e = readEnv(env);
  const core = coreClients(coreTransport(e.coreUrl));
  const opts = callOptions(e.apiKey, `stdio-${process.pid}`);
  try {
    await core.apiKeys.getCurrentKey({}, opts);
  } catch (e) {
    const { body } = mapError(e);
    process.stderr.write(`coffer mcp: ${body.error.code}: ${body.error.message} (set COFFER_API_KEY to a valid key)\n`);
    process.exit(1);
  }
  const server = createMcpServer(core, opts);
  await server.connect(new StdioServerTransport());
  process.stdin.on("close", () => void server.close().then(() => process.exit(0)));
}
