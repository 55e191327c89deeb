import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";
import { processTable } from "../helpers/proc-table.js";

const root = fileURLToPath(new URL("../fixtures/process-leaks/", import.meta.url));
const vitest = fileURLToPath(new URL("../../node_modules/vitest/vitest.mjs", import.meta.url));

describe("processes a test leaves running", () => {
  it("fail the file that left them, or the run at its end, and are killed", async () => {
    // A duration no other process on the machine has, to find the fixture's sleepers by.
    const sleep = `${600 + (process.pid % 1000)}.${Date.now() % 1000}`;
    const sleepers = () => processTable().filter((p) => p.cmd === `sleep ${sleep}`);
    const run = await promisify(execFile)(process.execPath, [vitest, "run", "--root", root], {
      cwd: root,
      env: { ...process.env, LEAK_SLEEP: sleep },
    }).then(
      (r) => ({ out: r.stdout + r.stderr, code: 0 }),
      (e: { stdout: string; stderr: string; code: number }) => ({ out: e.stdout + e.stderr, code: e.code }),
    );
    // The file that stopped its process passes; the one that left it fails, naming it; the run fails at the
    // end for the process no file knew of.
    expect(run.out).toMatch(/processes were still running after the test file ended; killed them:\n.*sleep /);
    expect(run.out).toContain("shell that leaves a sleeper (started by leaves-its-process.fixture.ts)");
    expect(run.out).toMatch(/1 process\(es\) started by the tests were still running at the end of the run/);
    expect(run.out).toContain(`sleep ${sleep} [unrecorded spawn]`);
    expect(run.out).toContain("3 passed, 1 failed, 0 skipped");
    expect(run.code).not.toBe(0);
    expect(sleepers()).toEqual([]);
  }, 60_000);
});
