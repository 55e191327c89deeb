import { runGateway } from "../shared/run-gateway.js";
import { buildRestApp } from "./app.js";
import { consoleConfigOf } from "./console.js";

export const runRest = (env: NodeJS.ProcessEnv = process.env) =>
  runGateway(
    env,
    (e) => e.restPort,
    (o) => buildRestApp({ ...o, console: { config: consoleConfigOf(o.env, o.version) } }),
  );
