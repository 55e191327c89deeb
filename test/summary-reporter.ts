import type { Reporter, TestCase, TestModule, TestSuite } from "vitest/node";

/**
 * Prints the plain closing line CI reads: "N passed, N failed, N skipped".
 * A failing hook is a failure too: the tests a failed beforeAll kept from
 * running count as failed, and a suite (or file) whose hooks failed while all
 * its tests passed (an afterAll) counts as one failed.
 */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>, errors: ReadonlyArray<unknown>) {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const m of modules) {
      const hookFailed = (t: TestCase) => {
        for (let p: TestSuite | TestModule = t.parent; ; p = p.parent) {
          if (p.errors().length > 0) return true;
          if (p.type === "module") return false;
        }
      };
      const failedTests = new Set<TestCase>();
      for (const t of m.children.allTests()) {
        const state = t.result().state;
        if (state === "passed") passed++;
        else if (state === "failed" || (t.options.mode === "run" && hookFailed(t))) failedTests.add(t);
        else skipped++;
      }
      failed += failedTests.size;
      for (const s of [m, ...m.children.allSuites()]) {
        if (s.errors().length > 0 && ![...s.children.allTests()].some((t) => failedTests.has(t))) failed++;
      }
      // A file that failed to load has no tests but is still a failure.
      if (m.state() === "failed" && [...m.children.allTests()].length === 0 && m.errors().length === 0) failed++;
    }
    if (errors.length > 0 && failed === 0) failed = errors.length;
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
