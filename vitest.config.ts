import { defineConfig } from "vitest/config";

export default defineConfig({
  test: {
    globalSetup: ["./test/global-setup.ts"],
    include: ["test/**/*.test.ts"],
    testTimeout: 30_000,
    hookTimeout: 60_000,
    pool: "forks",
    // Every file builds its own stack (own database, own core) and nothing is mocked,
    // so files can share a worker's module cache. Isolating each file re-imported
    // MikroORM, Connect, fastify and the MCP SDK per file: about half the suite's CPU.
    isolate: false,
    reporters: ["default", "./test/summary-reporter.ts"],
  },
});
