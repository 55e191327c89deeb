import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { describeProcess, killPids, processTable, type ProcEntry } from "./proc-table.js";

/**
 * The run's end check (test/global-setup.ts's teardown): every process the run's tests started, and their
 * children, must be gone by now: each test file stops its own, and test/setup/processes.ts kills what a
 * file left. Anything of this run still alive is killed here, and the message returned lists it with the
 * test files that started it (from `processDir`, where tracked-processes.ts records each spawn); null
 * when nothing is left.
 */
export function leftoverProcesses(runId: string, processDir: string): string | null {
  const left = processTable().filter((p) => p.mark?.startsWith(`${runId}:`));
  if (left.length === 0) return null;
  killPids(left.map((p) => p.pid));
  const starters = new Map<string, string>();
  for (const name of readdirSync(processDir)) {
    const spawn = JSON.parse(readFileSync(join(processDir, name), "utf8")) as {
      mark: string;
      label: string;
      file: string;
    };
    starters.set(spawn.mark, `${spawn.label}, started by ${spawn.file}`);
  }
  const line = (p: ProcEntry) => `  ${describeProcess(p)} [${starters.get(p.mark!) ?? "unrecorded spawn"}]`;
  return (
    `${left.length} process(es) started by the tests were still running at the end of the run (now killed):\n` +
    left.map(line).join("\n")
  );
}
