#!/usr/bin/env node
// Coffer runs the JavaScript that bin/build.js compiles into dist/ (`npm run build`, and every `npm ci`
// through `prepare`): loading TypeScript through a loader at run time doubled the start. In a development
// tree (the devDependencies installed) `coffer start` first brings dist/ and the console up to date, in
// one step; any other command, when dist/ is older than the sources, runs the sources through tsx instead,
// so a one-shot command or a single process never waits for a compile. Without the devDependencies
// (a production install) dist/ is what runs.
import process from "node:process";
import { canBuild, ensureConsoleBuilt, ensureServerBuilt, serverBuildPresent, serverBuildState } from "./build.js";

const argv = process.argv.slice(2);
const say = (m) => process.stderr.write(`${m}\n`);
const dev = canBuild();
let entry = "../dist/cli/main.js";

if (dev && argv[0] === "start") {
  const [server, webConsole] = await Promise.allSettled([ensureServerBuilt({ say }), ensureConsoleBuilt({ say })]);
  // Without the console the API still runs, and `/` says how to build it.
  if (webConsole.status === "rejected") say(`the web console was not built: ${webConsole.reason.message}`);
  if (server.status === "rejected") {
    say(`coffer: the build failed, so Coffer does not start.\n${server.reason.message}`);
    process.exit(1);
  }
} else if (dev) {
  const state = serverBuildState();
  if (state === "missing" || state === "stale") {
    const { register } = await import("tsx/esm/api");
    register();
    entry = "../cli/main.ts";
  }
} else if (!serverBuildPresent()) {
  // Without the build tools there is nothing to compare: modification times say little about a copied build.
  say(
    "coffer: dist/ is missing and the build tools are not installed: run `npm ci && npm run build` " +
      "(the build needs the devDependencies; see docs/build.md)",
  );
  process.exit(1);
}
const { main } = await import(entry);
await main(argv);
