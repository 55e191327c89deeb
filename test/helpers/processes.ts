import { type ChildProcess } from "node:child_process";
import { createServer } from "node:net";
import { fileURLToPath } from "node:url";
import { killTree, spawnTracked } from "./tracked-processes.js";

export const COFFER_BIN = fileURLToPath(new URL("../../bin/coffer.js", import.meta.url));
export const REPO_ROOT = fileURLToPath(new URL("../../", import.meta.url));

/** A port nobody listens on right now (the OS picks it; we release it for the child). */
export function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

/** The environment for a child: ours minus anything Coffer reads, plus `extra`. */
export function cofferEnv(extra: Record<string, string>): NodeJS.ProcessEnv {
  const env: NodeJS.ProcessEnv = {};
  for (const [k, v] of Object.entries(process.env)) {
    if (!k.startsWith("COFFER_") && k !== "DATABASE_URL" && !k.startsWith("VITEST") && k !== "NODE_OPTIONS") env[k] = v;
  }
  return { ...env, ...extra };
}

export interface CofferProcess {
  name: string;
  child: ChildProcess;
  /** Every line the process wrote to stdout or stderr so far. */
  lines: string[];
  stdoutLines: string[];
  exited: Promise<{ code: number | null; signal: NodeJS.Signals | null }>;
}

/**
 * Starts `node bin/coffer.js <args>` (a benchmark may name another checkout's bin, and give Node options
 * such as --cpu-prof) and collects its output by line.
 */
export function spawnCoffer(
  name: string,
  args: string[],
  env: NodeJS.ProcessEnv,
  bin = COFFER_BIN,
  nodeArgs: string[] = [],
): CofferProcess {
  const child = spawnTracked(`coffer ${args.join(" ")}`, process.execPath, [...nodeArgs, bin, ...args], {
    env,
    cwd: REPO_ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  const lines: string[] = [];
  const stdoutLines: string[] = [];
  const collect = (into: string[][]) => {
    let rest = "";
    return (chunk: Buffer) => {
      const parts = (rest + chunk.toString("utf8")).split("\n");
      rest = parts.pop() ?? "";
      for (const l of parts) for (const arr of into) arr.push(l);
    };
  };
  child.stdout.on("data", collect([lines, stdoutLines]));
  child.stderr.on("data", collect([lines]));
  const exited = new Promise<{ code: number | null; signal: NodeJS.Signals | null }>((resolve) =>
    child.once("exit", (code, signal) => resolve({ code, signal })),
  );
  return { name, child, lines, stdoutLines, exited };
}

/** Runs a one-shot CLI command to completion. */
export async function runCoffer(
  args: string[],
  env: NodeJS.ProcessEnv,
): Promise<{ code: number | null; stdout: string; stderr: string }> {
  const child = spawnTracked(`coffer ${args.join(" ")}`, process.execPath, [COFFER_BIN, ...args], {
    env,
    cwd: REPO_ROOT,
    stdio: ["ignore", "pipe", "pipe"],
  });
  let stdout = "";
  let stderr = "";
  child.stdout.on("data", (c) => (stdout += c));
  child.stderr.on("data", (c) => (stderr += c));
  const code = await new Promise<number | null>((resolve) => child.once("exit", (c) => resolve(c)));
  return { code, stdout, stderr };
}

/** Polls `url` until it answers 200, or fails after `timeoutMs` (naming what the processes said). */
export async function waitForOk(url: string, timeoutMs: number, watch: CofferProcess[] = []): Promise<void> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    try {
      const res = await fetch(url);
      if (res.status === 200) return;
    } catch {
      // not listening yet
    }
    const dead = watch.find((p) => p.child.exitCode !== null);
    if (dead) throw new Error(`coffer ${dead.name} exited (${dead.child.exitCode}):\n${dead.lines.join("\n")}`);
    if (Date.now() > deadline)
      throw new Error(
        `timed out waiting for ${url}\n${watch.map((p) => `${p.name}: ${p.lines.slice(-5).join("\n")}`).join("\n")}`,
      );
    await new Promise((r) => setTimeout(r, 100));
  }
}

/**
 * SIGKILL whatever is still running, children included (afterAll safety net): a `coffer start` killed
 * alone would leave its core, REST and MCP processes to init.
 */
export async function killAll(procs: CofferProcess[]): Promise<void> {
  await Promise.all(procs.map((p) => killTree(p.child)));
}
