import { execFile } from "node:child_process";
import { fileURLToPath } from "node:url";
import { promisify } from "node:util";
import { describe, expect, it } from "vitest";

const root = fileURLToPath(new URL("../fixtures/reporter/", import.meta.url));
const vitest = fileURLToPath(new URL("../../node_modules/vitest/vitest.mjs", import.meta.url));

describe("the summary reporter", () => {
  it("counts tests kept from running by a failed beforeAll, and a failed afterAll, as failed", async () => {
    const run = await promisify(execFile)(process.execPath, [vitest, "run", "--root", root], { cwd: root }).then(
      (r) => ({ stdout: r.stdout, code: 0 }),
      (e: { stdout: string; code: number }) => ({ stdout: e.stdout, code: e.code }),
    );
    // hooks.fixture.ts: a beforeAll that fails (2 tests), an afterAll that fails (1 test passes), 1 passing, 1 skipped.
    expect(run.stdout.trim().split("\n").at(-1)).toBe("2 passed, 3 failed, 1 skipped");
    expect(run.code).not.toBe(0);
  }, 30_000);
});
