import { runGateway } from "../shared/run-gateway.js";
import { buildMcpApp } from "./http.js";

export const runMcpHttp = (env: NodeJS.ProcessEnv = process.env) => runGateway(env, (e) => e.mcpPort, buildMcpApp);
