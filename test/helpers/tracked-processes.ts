import {
  spawn,
  type ChildProcess,
  type ChildProcessByStdio,
  type SpawnOptions,
  type SpawnOptionsWithStdioTuple,
  type StdioNull,
  type StdioPipe,
} from "node:child_process";
import { writeFileSync } from "node:fs";
import { join, relative } from "node:path";
import type { Readable } from "node:stream";
import { expect, inject } from "vitest";
import {
  TEST_PROCESS_VAR,
  describeProcess,
  descendantsOf,
  killPids,
  processTable,
  type ProcEntry,
} from "./proc-table.js";

/**
 * Every process a test starts goes through here, so that none outlives its test file:
 *
 * - each spawn gets its own value of COFFER_TEST_PROCESS in its environment, which its children inherit
 *   (`coffer start`'s core, REST and MCP processes, their esbuild services, a Chromium), so they are found
 *   even after their parent died and they were handed to init;
 * - `killTree` kills a spawn and everything below it, found by that mark and by parent links (PostgreSQL
 *   overwrites its environment with its process titles, so the mark alone would miss it);
 * - test/setup/processes.ts's afterAll (`sweep`) fails a file that left something running, and kills it;
 * - each spawn is recorded in the run's process directory (a file per spawn), so the global teardown
 *   (test/global-setup.ts) can name the test that started a process still alive at the end of the run.
 */

interface Tracked {
  mark: string;
  label: string;
  file: string;
  /** The process spawned here, for the record; undefined for one another library starts (Playwright's Chromium). */
  rootPid?: number;
}

const tracked = new Map<string, Tracked>();
let seq = 0;

/** How long a sweep lets a file's processes end on their own (a tsx esbuild service outlives its parent a little). */
const SWEEP_GRACE_MS = 5_000;

function currentFile(): string {
  const path = expect.getState().testPath;
  return path ? relative(process.cwd(), path) : "(outside a test file)";
}

/** The test run's id; null outside a vitest worker (a benchmark using these helpers), where nothing is tracked. */
function testRunId(): string | null {
  try {
    return inject("runId");
  } catch {
    return null;
  }
}

/** Registers a new spawn; returns the environment to give it (`env` plus its mark, inside a test run). */
export function trackedEnv(
  label: string,
  env: NodeJS.ProcessEnv = process.env,
): { env: NodeJS.ProcessEnv; mark: string | null } {
  const runId = testRunId();
  if (runId === null) return { env, mark: null };
  const mark = `${runId}:${process.pid}:${++seq}`;
  const entry: Tracked = { mark, label, file: currentFile() };
  tracked.set(mark, entry);
  record(entry);
  return { env: { ...env, [TEST_PROCESS_VAR]: mark }, mark };
}

function record(entry: Tracked): void {
  writeFileSync(join(inject("processDir"), `${entry.mark.replaceAll(":", "-")}.json`), JSON.stringify(entry));
}

/** `spawn` for tests: the child and its descendants are tracked (see above). */
export function spawnTracked(
  label: string,
  command: string,
  args: string[],
  options: SpawnOptionsWithStdioTuple<StdioNull, StdioPipe, StdioPipe>,
): ChildProcessByStdio<null, Readable, Readable>;
export function spawnTracked(label: string, command: string, args: string[], options: SpawnOptions): ChildProcess;
export function spawnTracked(label: string, command: string, args: string[], options: SpawnOptions): ChildProcess {
  const { env, mark } = trackedEnv(label, options.env);
  const child = spawn(command, args, { ...options, env });
  if (mark === null) return child;
  const entry = tracked.get(mark)!;
  entry.rootPid = child.pid;
  record(entry);
  markOfChild.set(child, mark);
  return child;
}

const markOfChild = new WeakMap<ChildProcess, string>();

/** The live processes of one spawn: those carrying its mark, and those below them by parent links. */
function processesOf(entry: Tracked, table: ProcEntry[]): ProcEntry[] {
  const found = new Map<number, ProcEntry>();
  // Parent links only below a marked process (never below a bare pid, which the OS may have given to
  // another program since): a PostgreSQL below a `coffer start` carries no readable mark.
  for (const p of table) if (p.mark === entry.mark) for (const d of descendantsOf(table, p.pid)) found.set(d.pid, d);
  return [...found.values()];
}

async function until(done: () => boolean, timeoutMs: number): Promise<boolean> {
  for (const deadline = Date.now() + timeoutMs; ;) {
    if (done()) return true;
    if (Date.now() > deadline) return false;
    await new Promise((r) => setTimeout(r, 50));
  }
}

/** SIGKILLs what is left of the marked spawns and waits until it is gone. */
async function killMarked(entries: Tracked[]): Promise<ProcEntry[]> {
  const table = processTable();
  const victims = entries.flatMap((e) => processesOf(e, table));
  killPids(victims.map((p) => p.pid));
  const pids = new Set(victims.map((p) => p.pid));
  const gone = await until(() => !processTable().some((p) => pids.has(p.pid)), 10_000);
  if (!gone) throw new Error(`could not kill: ${victims.map(describeProcess).join("; ")}`);
  return victims;
}

/** Kills a spawned process and every process below it (SIGKILL), and waits until they are gone. */
export async function killTree(child: ChildProcess): Promise<void> {
  const mark = markOfChild.get(child);
  const entry = mark === undefined ? undefined : tracked.get(mark);
  if (entry) await killMarked([entry]);
  else if (child.pid !== undefined && child.exitCode === null && child.signalCode === null) {
    // Untracked (outside a test run): by parent links, while the child is alive so its pid is still its own.
    killPids(descendantsOf(processTable(), child.pid).map((p) => p.pid));
  }
  // Without /proc (not Linux) at least the process itself goes.
  if (child.exitCode === null && child.signalCode === null) child.kill("SIGKILL");
  if (child.exitCode === null && child.signalCode === null) await new Promise((r) => child.once("exit", r));
}

/**
 * After each test file: waits briefly for everything this worker started to end, then kills what is
 * left and fails with the list, naming the file that started each.
 */
export async function sweep(): Promise<void> {
  if (tracked.size === 0) return;
  const alive = () => {
    const table = processTable();
    return [...tracked.values()].filter((e) => processesOf(e, table).length > 0);
  };
  await until(() => alive().length === 0, SWEEP_GRACE_MS);
  const left = alive();
  const killed = await killMarked(left);
  tracked.clear();
  if (killed.length > 0) {
    const started = left.map((e) => `${e.label} (started by ${e.file})`).join(", ");
    throw new Error(
      `processes were still running after the test file ended; killed them:\n` +
        `${killed.map(describeProcess).join("\n")}\nfrom: ${started}`,
    );
  }
}
