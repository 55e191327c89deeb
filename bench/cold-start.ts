/**
 * Cold start of `coffer start` with no DATABASE_URL (the embedded PostgreSQL):
 * time from spawn until GET /health/ready answers 200 on the REST gateway.
 * Run 1 starts from an empty COFFER_DATA_DIR (initdb + migrations), run 2
 * reuses it. Each run is stopped with SIGINT (Ctrl-C) and must exit 0 and
 * leave the embedded server stopped. Run: npm run bench:cold-start
 */
import { rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import { cofferEnv, freePort, killAll, spawnCoffer, type CofferProcess } from "../test/helpers/processes.js";

// Under /tmp (world-traversable): the embedded server runs as the `postgres` user when we are root.
const DATA_DIR = join(tmpdir(), "coffer-bench-cold-start");

async function readyAfter(url: string, p: CofferProcess, t0: number, timeoutMs = 120_000): Promise<number> {
  for (;;) {
    try {
      const res = await fetch(url);
      if (res.status === 200) return performance.now() - t0;
    } catch {
      // not listening yet
    }
    if (p.child.exitCode !== null) throw new Error(`coffer start exited (${p.child.exitCode}):\n${p.lines.join("\n")}`);
    if (performance.now() - t0 > timeoutMs) throw new Error(`not ready after ${timeoutMs} ms:\n${p.lines.join("\n")}`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

async function pgAnswers(port: number): Promise<boolean> {
  const c = new pg.Client({
    connectionString: `postgres://postgres:coffer@127.0.0.1:${port}/postgres`,
    connectionTimeoutMillis: 1000,
  });
  try {
    await c.connect();
    return true;
  } catch {
    return false;
  } finally {
    await c.end().catch(() => undefined);
  }
}

async function run(label: string): Promise<number> {
  const [pgPort, corePort, restPort, mcpPort] = await Promise.all([freePort(), freePort(), freePort(), freePort()]);
  const env = cofferEnv({
    COFFER_DATA_DIR: DATA_DIR,
    COFFER_EMBEDDED_PG_PORT: String(pgPort),
    COFFER_CORE_PORT: String(corePort),
    COFFER_REST_PORT: String(restPort),
    COFFER_MCP_PORT: String(mcpPort),
    COFFER_LOG_LEVEL: "warn",
  });
  const t0 = performance.now();
  const p = spawnCoffer("start", ["start"], env);
  try {
    const elapsed = await readyAfter(`http://127.0.0.1:${restPort}/health/ready`, p, t0);
    const stopT0 = performance.now();
    p.child.kill("SIGINT");
    const exit = await Promise.race([p.exited, new Promise<"timeout">((r) => setTimeout(() => r("timeout"), 30_000))]);
    const stopMs = performance.now() - stopT0;
    if (exit === "timeout" || exit.code !== 0)
      throw new Error(`${label}: Ctrl-C did not stop cleanly (${JSON.stringify(exit)}):\n${p.lines.join("\n")}`);
    if (await pgAnswers(pgPort)) throw new Error(`${label}: the embedded PostgreSQL is still running after Ctrl-C`);
    console.log(
      `  ${label}: ready in ${(elapsed / 1000).toFixed(2)} s; ` +
        `Ctrl-C stopped everything (exit 0) in ${(stopMs / 1000).toFixed(2)} s`,
    );
    return elapsed;
  } finally {
    await killAll([p]);
  }
}

async function main() {
  rmSync(DATA_DIR, { recursive: true, force: true });
  console.log(`coffer start, embedded PostgreSQL in ${DATA_DIR} (DATABASE_URL unset), until GET /health/ready = 200`);
  try {
    await run("run 1, empty data dir (initdb + migrations)");
    await run("run 2, warm data dir");
  } finally {
    rmSync(DATA_DIR, { recursive: true, force: true });
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
