import { runGateway } from "../shared/run-gateway.js";
import { buildMcpApp } from "./http.js";

export const runMcpHttp = (env: NodeJS.ProcessEnv = process.env) => runGateway(env, "COFFER_MCP_PORT", 8090, buildMcpApp);
