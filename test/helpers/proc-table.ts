import { readdirSync, readFileSync } from "node:fs";

/**
 * Every process a test starts carries this variable, and its children inherit it:
 * `<runId>:<worker pid>:<n>`, one value per spawn (see tracked-processes.ts).
 */
export const TEST_PROCESS_VAR = "COFFER_TEST_PROCESS";

export interface ProcEntry {
  pid: number;
  ppid: number;
  /** The value of TEST_PROCESS_VAR in its environment, or null (none, or not ours to read). */
  mark: string | null;
  cmd: string;
}

/**
 * The live processes, read from Linux's /proc (zombies, which only wait for their parent to reap them,
 * are left out). Elsewhere the list is empty, and the leak checks find nothing.
 */
export function processTable(): ProcEntry[] {
  let pids: string[];
  try {
    pids = readdirSync("/proc").filter((d) => /^\d+$/.test(d));
  } catch {
    return [];
  }
  const table: ProcEntry[] = [];
  for (const dir of pids) {
    try {
      const stat = readFileSync(`/proc/${dir}/stat`, "utf8");
      // "pid (comm) state ppid …": comm may hold spaces and parentheses, so read after the last ")".
      const [state, ppid] = stat.slice(stat.lastIndexOf(")") + 2).split(" ");
      if (state === "Z" || state === "X") continue;
      table.push({ pid: Number(dir), ppid: Number(ppid), mark: markOf(dir), cmd: cmdOf(dir) });
    } catch {
      // it exited while we read
    }
  }
  return table;
}

function markOf(pid: string): string | null {
  try {
    const prefix = `${TEST_PROCESS_VAR}=`;
    const entry = readFileSync(`/proc/${pid}/environ`, "utf8")
      .split("\0")
      .find((e) => e.startsWith(prefix));
    return entry ? entry.slice(prefix.length) : null;
  } catch {
    return null; // another user's process
  }
}

function cmdOf(pid: string): string {
  try {
    return readFileSync(`/proc/${pid}/cmdline`, "utf8").split("\0").join(" ").trim().slice(0, 200);
  } catch {
    return "";
  }
}

/** `root` and everything below it by parent links (found before anything is killed, while the links hold). */
export function descendantsOf(table: ProcEntry[], root: number): ProcEntry[] {
  const found = table.filter((p) => p.pid === root);
  for (let i = 0; i < found.length; i++) {
    for (const p of table) if (p.ppid === found[i].pid && !found.includes(p)) found.push(p);
  }
  return found;
}

/** SIGKILL to each pid; one that is gone already is skipped. */
export function killPids(pids: number[]): void {
  for (const pid of pids) {
    try {
      process.kill(pid, "SIGKILL");
    } catch {
      // it exited
    }
  }
}

export function describeProcess(p: ProcEntry): string {
  return `pid ${p.pid} (parent ${p.ppid}): ${p.cmd}`;
}
