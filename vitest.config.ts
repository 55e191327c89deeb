import { configDefaults, defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    globalSetup: ["./test/global-setup.ts"],
    // After each file: fails it if a process it started is still running (test/helpers/tracked-processes.ts).
    setupFiles: ["./test/setup/processes.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Every file builds its own stack (own database, own core) and nothing is mocked,
    // so files can share a worker's module cache. Isolating each file re-imported
    // MikroORM, Connect, fastify and the MCP SDK per file: about half the suite's CPU.
    isolate: false,
    reporters: ["default", "./test/summary-reporter.ts"],
    projects: [
      {
        extends: true,
        test: { name: "node", include: ["test/**/*.test.ts"], exclude: [...configDefaults.exclude, "test/browser/**"] },
      },
      {
        // Each browser test file runs `coffer start` (three processes) and a Chromium: one file at a time,
        // after the other tests, with time for real syncs.
        extends: true,
        test: {
          name: "browser",
          include: ["test/browser/**/*.test.ts"],
          fileParallelism: false,
          testTimeout: 90_000,
          hookTimeout: 180_000,
          sequence: { groupOrder: 1 },
        },
      },
    ],
  },
});
