import { afterAll, describe, expect, it } from "vitest";
import { createTestDatabase } from "../helpers/db.js";
import { cofferEnv, freePort, killAll, spawnCoffer, waitForOk, type CofferProcess } from "../helpers/processes.js";

const procs: CofferProcess[] = [];
afterAll(async () => {
  await killAll(procs);
});

/** `coffer start` on its own database and ports; restarts wait backoffMs (doubling) instead of 0.5 s. */
async function startCoffer(backoffMs: number) {
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
    COFFER_RESTART_BACKOFF_MS: String(backoffMs),
  });
  const start = spawnCoffer("start", ["start"], env);
  procs.push(start);
  const rest = `http://127.0.0.1:${restPort}`;
  const mcp = `http://127.0.0.1:${mcpPort}`;
  await waitForOk(`${rest}/health/ready`, 45_000, [start]);
  await waitForOk(`${mcp}/health`, 10_000, [start]);
  return { start, rest, mcp, corePort };
}

/** The pids the supervisor reported for a child, in order ("coffer rest started (pid 123)"). */
function pidsOf(start: CofferProcess, name: string): number[] {
  const re = new RegExp(`^coffer ${name} started \\(pid (\\d+)\\)$`);
  return start.lines.flatMap((l) => {
    const m = re.exec(l);
    return m ? [Number(m[1])] : [];
  });
}

async function until<T>(what: string, probe: () => T | undefined, timeoutMs = 20_000): Promise<T> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const v = probe();
    if (v !== undefined) return v;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}`);
    await new Promise((r) => setTimeout(r, 50));
  }
}

describe("coffer start restarts a child that dies", () => {
  it("a core killed mid-call: 503 for the call and readiness, then the core alone restarts", async () => {
    const { start, rest } = await startCoffer(300);
    const [corePid] = pidsOf(start, "core");
    const [restPid] = pidsOf(start, "rest");
    const [mcpPid] = pidsOf(start, "mcp");
    expect([corePid, restPid, mcpPid].every((p) => p > 0)).toBe(true);

    // Freeze the core so the call is surely in flight, then kill it (reproducer H).
    process.kill(corePid, "SIGSTOP");
    const inFlight = fetch(`${rest}/api/v1/version`);
    await new Promise((r) => setTimeout(r, 300));
    process.kill(corePid, "SIGKILL");
    const answer = await inFlight;
    expect(answer.status).toBe(503);
    expect(await answer.json()).toEqual({
      error: { code: "UNAVAILABLE", message: "The Coffer core is not reachable" },
    });

    const ready = await fetch(`${rest}/health/ready`);
    expect(ready.status).toBe(503);
    expect((await ready.json()).error.code).toBe("UNAVAILABLE");

    const restarted = await until("the supervisor's restart line", () =>
      start.lines.find((l) => l.startsWith("coffer core was killed by SIGKILL after")),
    );
    expect(restarted).toMatch(/restarting it in 300 ms \(1 crash in 60 s; 5 stop Coffer\)$/);
    await waitForOk(`${rest}/health/ready`, 30_000, [start]);
    expect((await fetch(`${rest}/api/v1/version`)).status).toBe(200);
    const cores = pidsOf(start, "core");
    expect(cores).toHaveLength(2);
    expect(cores[1]).not.toBe(corePid);
    expect(pidsOf(start, "rest")).toEqual([restPid]);
    expect(pidsOf(start, "mcp")).toEqual([mcpPid]);

    // Ctrl-C still stops everything cleanly.
    start.child.kill("SIGINT");
    expect(await start.exited).toEqual({ code: 0, signal: null });
    await expect(fetch(`${rest}/health`)).rejects.toThrow();
  }, 90_000);

  it("a child that crashes 5 times in 60 s stops the whole service with exit code 1", async () => {
    const { start, rest, mcp } = await startCoffer(50);
    // A crash loop: each new REST process is killed as soon as it is started, as one failing at boot would die.
    for (let crash = 1; crash <= 5; crash++) {
      const pid = pidsOf(start, "rest").at(-1)!;
      process.kill(pid, "SIGKILL");
      if (crash < 5) await until(`restart ${crash}`, () => (pidsOf(start, "rest").length > crash ? true : undefined));
    }
    expect(await start.exited).toEqual({ code: 1, signal: null });
    const said = start.lines.join("\n");
    expect(said).toMatch(/coffer rest was killed by SIGKILL; 5 crashes in 60 s \(the limit is 5\), so Coffer stops/);
    for (const delay of ["50 ms", "100 ms", "200 ms", "400 ms"]) expect(said).toContain(`restarting it in ${delay}`);
    // The others were stopped with it.
    await expect(fetch(`${mcp}/health`)).rejects.toThrow();
    await expect(fetch(`${rest}/health`)).rejects.toThrow();
  }, 90_000);
});
