import type { Reporter, TestModule } from "vitest/node";

/** Prints the plain closing line CI reads: "N passed, N failed, N skipped". */
export default class SummaryReporter implements Reporter {
  onTestRunEnd(modules: ReadonlyArray<TestModule>, errors: ReadonlyArray<unknown>) {
    let passed = 0;
    let failed = 0;
    let skipped = 0;
    for (const m of modules) {
      for (const t of m.children.allTests()) {
        const state = t.result().state;
        if (state === "passed") passed++;
        else if (state === "failed") failed++;
        else skipped++;
      }
      // A file that failed to load has no tests but is still a failure.
      if (m.state() === "failed" && [...m.children.allTests()].length === 0) failed++;
    }
    if (errors.length > 0 && failed === 0) failed = errors.length;
    process.stdout.write(`\n${passed} passed, ${failed} failed, ${skipped} skipped\n`);
  }
}
