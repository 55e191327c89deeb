import { execFile } from "node:child_process";
import { existsSync, mkdirSync, readdirSync, rmdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { promisify } from "node:util";
import { REPO_ROOT } from "../../helpers/processes.js";

const WEB = join(REPO_ROOT, "web");
const BUILT = join(WEB, "dist", "index.html");
const LOCK = join(WEB, ".build-lock");

/** The newest modification time under `path` (files and folders). */
function newest(path: string): number {
  const st = statSync(path);
  if (!st.isDirectory()) return st.mtimeMs;
  let t = st.mtimeMs;
  for (const e of readdirSync(path)) t = Math.max(t, newest(join(path, e)));
  return t;
}

const stale = () =>
  !existsSync(BUILT) ||
  statSync(BUILT).mtimeMs <
    Math.max(newest(join(WEB, "src")), newest(join(WEB, "index.html")), newest(join(WEB, "vite.config.ts")));

/**
 * Builds the console (vite build → web/dist) when it is missing or older than its sources, so the
 * browser tests always drive the current code. Browser test files may start together: a lock folder
 * (mkdir is atomic) lets one build while the others wait.
 */
export async function ensureConsoleBuilt(): Promise<void> {
  if (!stale()) return;
  for (const deadline = Date.now() + 180_000; ;) {
    try {
      mkdirSync(LOCK);
      break;
    } catch {
      if (Date.now() > deadline) throw new Error(`${LOCK} is held for 3 minutes: remove it if no build runs`);
      await new Promise((r) => setTimeout(r, 250));
    }
  }
  try {
    if (!stale()) return;
    await promisify(execFile)(
      join(REPO_ROOT, "node_modules", ".bin", "vite"),
      ["build", "--config", "web/vite.config.ts", "--logLevel", "warn"],
      {
        cwd: REPO_ROOT,
        maxBuffer: 16 * 1024 * 1024,
      },
    );
  } finally {
    rmdirSync(LOCK);
  }
}
