import { fastify } from "fastify";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";
import { readEnv } from "../../common/env.js";
import { loggerOptions } from "../../common/logging.js";
import { callOptions, coreClients, coreTransport } from "../shared/core-client.js";
import { awaitWrites } from "../shared/write-deadline.js";
import { mapError } from "../shared/error-map.js";
import { createMcpServer } from "./server.js";

/** `coffer mcp --stdio`: one MCP server on stdin/stdout, key from COFFER_API_KEY. Logs go to stderr only. */
export async function runMcpStdio(env: NodeJS.ProcessEnv = process.env) {
  const e = readEnv(env);
  const core = coreClients(
    awaitWrites(coreTransport(e.coreUrl, e.coreTimeoutMs), e.coreTimeoutMs, e.coreWriteTimeoutMs),
  );
  const requestId = `stdio-${process.pid}`;
  const opts = callOptions(e.apiKey, requestId);
  try {
    await core.apiKeys.getCurrentKey({}, opts);
  } catch (e) {
    const { body } = mapError(e);
    process.stderr.write(`coffer mcp: ${body.error.code}: ${body.error.message} (set COFFER_API_KEY to a valid key)\n`);
    process.exit(1);
  }
  // The gateways' logger (same format, same redaction), writing to stderr: stdout carries the protocol.
  const log = fastify({ logger: loggerOptions("mcp", e.logLevel, process.stderr) as object }).log.child({
    reqId: requestId,
  });
  const server = createMcpServer(core, opts, log);
  await server.connect(new StdioServerTransport());
  process.stdin.on("close", () => void server.close().then(() => process.exit(0)));
}
