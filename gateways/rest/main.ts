import { runGateway } from "../shared/run-gateway.js";
import { buildRestApp } from "./app.js";

export const runRest = (env: NodeJS.ProcessEnv = process.env) => runGateway(env, (e) => e.restPort, buildRestApp);
