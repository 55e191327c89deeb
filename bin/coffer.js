#!/usr/bin/env node
// Coffer runs the JavaScript that bin/build.js compiles into dist/ (`npm run build`, and every `npm ci`
// through `prepare`): loading TypeScript through a loader at run time doubled the start. In a development
// tree (the devDependencies installed) `coffer start` first brings dist/ and the console up to date, in
// one step; any other command, when dist/ is older than the sources, runs the sources through tsx instead,
// so a one-shot command or a single process never waits for a compile.
import process from "node:process";
import { canBuild, ensureBuilt, serverBuildState } from "./build.js";

const argv = process.argv.slice(2);
const say = (m) => process.stderr.write(`${m}\n`);
const dev = canBuild();
let entry = "../dist/cli/main.js";

if (dev && argv[0] === "start") {
  try {
    await ensureBuilt({ say });
  } catch (e) {
    say(`coffer: the build failed, so Coffer does not start.\n${e.message}`);
    process.exit(1);
  }
} else {
  const state = serverBuildState();
  if ((state === "missing" || state === "stale") && dev) {
    const { register } = await import("tsx/esm/api");
    register();
    entry = "../cli/main.ts";
  } else if (state === "missing") {
    say(
      "coffer: dist/ is missing and the build tools are not installed: run `npm ci && npm run build` " +
        "(the build needs the devDependencies; see docs/deployment.md)",
    );
    process.exit(1);
  } else if (state === "stale") {
    say("coffer: dist/ is older than the sources; run `npm run build` where the devDependencies are installed");
  }
}
const { main } = await import(entry);
await main(argv);
