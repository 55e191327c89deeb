// Coffer's build, one step: the server's JavaScript (`tsc -p tsconfig.build.json` → dist/) and the web
// console (`vite build` → web/dist). Plain JavaScript with only Node's own modules, because bin/coffer.js
// asks it whether dist/ is current before anything else is loaded, and a production install (no
// devDependencies) must be able to ask too. Run as a script it builds what is missing or stale:
//   node bin/build.js            npm run build; fails when the build fails
//   node bin/build.js --prepare  npm's `prepare` (every `npm ci`): without the devDependencies
//                                (`npm ci --omit=dev`) it keeps the build output that is there
import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, rmdirSync, statSync, utimesSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import process from "node:process";
import { setTimeout as sleep } from "node:timers/promises";
import { URL, fileURLToPath } from "node:url";
import { promisify } from "node:util";

export const ROOT = fileURLToPath(new URL("..", import.meta.url));
/** The console's sources (web/src, web/index.html, web/vite.config.ts) and its build (web/dist). */
export const WEB_DIR = join(ROOT, "web");
/** What tsconfig.build.json compiles, and the settings that change its output. */
const SERVER_SOURCES = [
  "common",
  "services",
  "gateways",
  "cli",
  "gen",
  "fixtures",
  "tsconfig.json",
  "tsconfig.build.json",
];
/** Written after a successful compile, with the time the compile began as its modification time. */
const STAMP = join("dist", ".build-stamp");

const tool = (root, path) => join(root, "node_modules", path);

/** The newest modification time under `path` (files and folders); 0 when it does not exist. */
function newest(path) {
  if (!existsSync(path)) return 0;
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let t = st.mtimeMs;
  for (const e of readdirSync(path)) t = Math.max(t, newest(join(path, e)));
  return t;
}

/** Whether dist/ holds a compile (of whatever sources). */
export const serverBuildPresent = (root = ROOT) =>
  existsSync(join(root, STAMP)) && existsSync(join(root, "dist", "cli", "main.js"));

/** Whether dist/ holds the compile of the current server sources. */
export function serverBuildState(root = ROOT) {
  if (!existsSync(join(root, "tsconfig.build.json"))) return "no-sources";
  if (!serverBuildPresent(root)) return "missing";
  const stamp = join(root, STAMP);
  const sources = Math.max(...SERVER_SOURCES.map((s) => newest(join(root, s))));
  return statSync(stamp).mtimeMs < sources ? "stale" : "fresh";
}

/** Whether web/dist is the build of the current console sources. */
export function buildState(webDir = WEB_DIR) {
  if (!existsSync(join(webDir, "vite.config.ts"))) return "no-sources";
  const index = join(webDir, "dist", "index.html");
  if (!existsSync(index)) return "missing";
  const sources = Math.max(
    newest(join(webDir, "src")),
    newest(join(webDir, "index.html")),
    newest(join(webDir, "vite.config.ts")),
  );
  return statSync(index).mtimeMs < sources ? "stale" : "fresh";
}

/** Whether the build tools (devDependencies) are installed. */
export const canBuild = (root = ROOT) =>
  existsSync(tool(root, "typescript/bin/tsc")) && existsSync(tool(root, "vite/bin/vite.js"));

/**
 * Runs `fn` holding the lock folder `lock` (mkdir is atomic): several processes may ask for the same
 * build at once (test files, `coffer start`); one builds while the others wait, then find it fresh.
 */
async function withLock(lock, timeoutMs, fn) {
  for (const deadline = Date.now() + timeoutMs; ;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`${lock} is held too long: remove it if no build runs`);
      await sleep(250);
    }
  }
  try {
    return await fn();
  } finally {
    rmdirSync(lock);
  }
}

const seconds = (since) => `${((Date.now() - since) / 1000).toFixed(1)} s`;

/** Runs a build tool with node; a failure rejects with the tool's output. */
async function run(what, args, options) {
  try {
    await promisify(execFile)(process.execPath, args, { maxBuffer: 16 * 1024 * 1024, ...options });
  } catch (e) {
    const output = [e.stdout, e.stderr].filter(Boolean).join("\n").trim();
    throw Object.assign(new Error(`${what} failed:\n${output || e.message}`, { cause: e }), { code: e.code });
  }
}

/**
 * Compiles the server (tsc -p tsconfig.build.json, incremental) when dist/ is missing or older than its
 * sources; answers what it found ("fresh": nothing to do) or "built". A type error does not stop the
 * build: tsc still writes the JavaScript (its exit code 2), and `say` passes the errors on.
 */
export async function ensureServerBuilt(opts = {}) {
  const root = opts.root ?? ROOT;
  const first = serverBuildState(root);
  if (first === "fresh" || first === "no-sources") return first;
  const tsc = tool(root, "typescript/bin/tsc");
  if (!existsSync(tsc))
    throw new Error("typescript is not installed: run `npm ci` (the build needs the devDependencies)");
  return withLock(join(root, ".build-lock"), opts.lockTimeoutMs ?? 180_000, async () => {
    const state = serverBuildState(root);
    if (state === "fresh" || state === "no-sources") return state;
    opts.say?.(`compiling Coffer to JavaScript (${state === "missing" ? "dist/ is missing" : "the sources changed"})…`);
    const began = Date.now();
    try {
      await run("tsc", [tsc, "-p", join(root, "tsconfig.build.json")], { cwd: root });
    } catch (e) {
      if (e.code !== 2) throw e;
      opts.say?.(`${e.message.replace("tsc failed", "tsc reported type errors (the JavaScript was written)")}`);
    }
    writeFileSync(join(root, STAMP), "");
    // The stamp carries the time the compile began: a source saved during the compile leaves dist/ stale.
    utimesSync(join(root, STAMP), new Date(began), new Date(began));
    opts.say?.(`compiled Coffer in ${seconds(began)}`);
    return "built";
  });
}

/**
 * Builds the console (`vite build --config web/vite.config.ts`) when web/dist is missing or older than its
 * sources; answers what it found ("fresh": no build needed) or "built". A failed build rejects with vite's
 * output.
 */
export async function ensureConsoleBuilt(opts = {}) {
  const webDir = opts.webDir ?? WEB_DIR;
  const first = buildState(webDir);
  if (first === "fresh" || first === "no-sources") return first;
  const vite = tool(ROOT, "vite/bin/vite.js");
  if (!existsSync(vite)) throw new Error("vite is not installed: run `npm ci` (the build needs the devDependencies)");
  return withLock(join(webDir, ".build-lock"), opts.lockTimeoutMs ?? 180_000, async () => {
    const state = buildState(webDir);
    if (state === "fresh" || state === "no-sources") return state;
    opts.say?.(`building the web console (${state === "missing" ? "web/dist is missing" : "web/src changed"})…`);
    const began = Date.now();
    await run(
      "vite build",
      [vite, "build", "--mode", "production", "--config", join(webDir, "vite.config.ts"), "--logLevel", "warn"],
      // Always the production build: under vitest NODE_ENV is "test", which would give React's development
      // bundle (larger and slower), and `coffer start` would then serve that build as fresh.
      { cwd: dirname(webDir), env: { ...process.env, NODE_ENV: "production" } },
    );
    opts.say?.(`built the web console in ${seconds(began)}`);
    return "built";
  });
}

/** The whole build, the server and the console side by side; answers what each one did. */
export async function ensureBuilt(opts = {}) {
  const [server, webConsole] = await Promise.all([ensureServerBuilt(opts), ensureConsoleBuilt({ say: opts.say })]);
  return { server, console: webConsole };
}

async function main(args) {
  const say = (m) => process.stderr.write(`${m}\n`);
  if (args.includes("--prepare") && !canBuild()) {
    const present = serverBuildPresent() && buildState() !== "missing";
    say(
      present
        ? "coffer: no build tools (installed without devDependencies); using the build output that is here"
        : "coffer: no build output and no build tools: build where the devDependencies are installed " +
            "(`npm ci && npm run build`), then copy dist/ and web/dist/ here (docs/build.md)",
    );
    return;
  }
  await ensureBuilt({ say });
}

if (process.argv[1] && fileURLToPath(import.meta.url) === process.argv[1]) {
  main(process.argv.slice(2)).catch((e) => {
    process.stderr.write(`coffer: ${e.message}\n`);
    process.exit(1);
  });
}
