import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, rmdirSync, statSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";

/** The console's sources (web/src, web/index.html, web/vite.config.ts) and its build (web/dist). */
export const WEB_DIR = fileURLToPath(new URL("../web", import.meta.url));
const VITE = fileURLToPath(new URL("../node_modules/vite/bin/vite.js", import.meta.url));

export type BuildState = "no-sources" | "missing" | "stale" | "fresh";

/** The newest modification time under `path` (files and folders); 0 when it does not exist. */
function newest(path: string): number {
  if (!existsSync(path)) return 0;
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let t = st.mtimeMs;
  for (const e of readdirSync(path)) t = Math.max(t, newest(join(path, e)));
  return t;
}

/** Whether web/dist is the build of the current sources. */
export function buildState(webDir = WEB_DIR): BuildState {
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

/**
 * Builds the console (`vite build --config web/vite.config.ts`) when web/dist
 * is missing or older than its sources; answers what it found ("fresh": no
 * build needed) or "built". Several processes may ask at once (test files,
 * `coffer start`): a lock folder, web/.build-lock (mkdir is atomic), lets one
 * build while the others wait, then find it fresh. A failed build rejects
 * with vite's output.
 */
export async function ensureConsoleBuilt(
  opts: { webDir?: string; say?: (m: string) => void; lockTimeoutMs?: number } = {},
): Promise<BuildState | "built"> {
  const webDir = opts.webDir ?? WEB_DIR;
  const first = buildState(webDir);
  if (first === "fresh" || first === "no-sources") return first;
  if (!existsSync(VITE)) throw new Error("vite is not installed: run `npm ci` (the build needs the devDependencies)");
  const lock = join(webDir, ".build-lock");
  for (const deadline = Date.now() + (opts.lockTimeoutMs ?? 180_000); ;) {
    try {
      mkdirSync(lock);
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`${lock} is held too long: remove it if no build runs`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  try {
    const state = buildState(webDir);
    if (state === "fresh" || state === "no-sources") return state;
    opts.say?.(`building the web console (${state === "missing" ? "web/dist is missing" : "web/src changed"})…`);
    const began = Date.now();
    try {
      await promisify(execFile)(
        process.execPath,
        [VITE, "build", "--mode", "production", "--config", join(webDir, "vite.config.ts"), "--logLevel", "warn"],
        // Always the production build: under vitest NODE_ENV is "test", which would give React's development
        // bundle (larger and slower), and `coffer start` would then serve that build as fresh.
        { cwd: dirname(webDir), maxBuffer: 16 * 1024 * 1024, env: { ...process.env, NODE_ENV: "production" } },
      );
    } catch (e) {
      const { stdout, stderr } = e as { stdout?: string; stderr?: string };
      throw new Error(`vite build failed:\n${[stdout, stderr].filter(Boolean).join("\n").trim()}`, { cause: e });
    }
    opts.say?.(`built the web console in ${((Date.now() - began) / 1000).toFixed(1)} s`);
    return "built";
  } finally {
    rmdirSync(lock);
  }
}
