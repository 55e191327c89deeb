import { afterAll, describe, expect, it } from "vitest";
import { createTestDatabase } from "../helpers/db.js";
import { cofferEnv, freePort, killAll, spawnCoffer, waitForOk, type CofferProcess } from "../helpers/processes.js";

const procs: CofferProcess[] = [];
afterAll(async () => {
  await killAll(procs);
});

describe("coffer start (the README's npm start)", () => {
  it("runs core, REST and MCP under one supervisor, prints the URLs, and stops cleanly on Ctrl-C", async () => {
    const [databaseUrl, corePort, restPort, mcpPort] = await Promise.all([
      createTestDatabase(),
      freePort(),
      freePort(),
      freePort(),
    ]);
    const env = cofferEnv({
      DATABASE_URL: databaseUrl,
      COFFER_CORE_PORT: String(corePort),
      COFFER_REST_PORT: String(restPort),
      COFFER_MCP_PORT: String(mcpPort),
      COFFER_LOG_LEVEL: "warn",
    });
    const start = spawnCoffer("start", ["start"], env);
    procs.push(start);
    await waitForOk(`http://127.0.0.1:${restPort}/health/ready`, 45_000, [start]);
    await waitForOk(`http://127.0.0.1:${mcpPort}/health`, 10_000, [start]);
    const deadline = Date.now() + 10_000;
    while (!start.stdoutLines.some((l) => l.startsWith("Coffer is running")) && Date.now() < deadline) {
      await new Promise((r) => setTimeout(r, 50));
    }
    expect(start.stdoutLines.join("\n")).toContain(`REST API   http://127.0.0.1:${restPort}/api/v1`);
    expect(start.stdoutLines.join("\n")).toContain(`MCP        http://127.0.0.1:${mcpPort}/mcp`);

    start.child.kill("SIGINT");
    expect(await start.exited).toEqual({ code: 0, signal: null });
    await expect(fetch(`http://127.0.0.1:${restPort}/health`)).rejects.toThrow();
  });
});
