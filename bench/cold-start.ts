/**
 * Cold start of Coffer with no DATABASE_URL (the embedded PostgreSQL).
 *
 * 1. `coffer start` from an empty COFFER_DATA_DIR (initdb + migrations), then
 *    from the existing one: time from spawn until GET /health/ready answers
 *    200 on the REST gateway ("ready"), and until the summary banner is on
 *    stdout ("banner"). Each run is stopped with SIGINT (Ctrl-C) and must exit
 *    0 and leave the embedded server stopped.
 * 2. Each process alone (`coffer core`, `coffer rest`, `coffer mcp`), from
 *    spawn until its port accepts a connection ("listening"); the core runs on
 *    the data dir of step 1, already migrated.
 *
 * Every figure is the median of --runs runs (default 5). With several --bin (say, a checkout of the
 * previous release's bin/coffer.js and this one), their runs take turns, so a busy machine slows each
 * the same, and the figures compare.
 * Run: npm run bench:cold-start [-- --runs N] [--only start|alone] [--bin path/to/coffer.js ...]
 */
import { rmSync } from "node:fs";
import { connect } from "node:net";
import { tmpdir } from "node:os";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import pg from "pg";
import { startEmbeddedPostgres } from "../cli/embedded-postgres.js";
import {
  COFFER_BIN,
  cofferEnv,
  freePort,
  killAll,
  spawnCoffer,
  type CofferProcess,
} from "../test/helpers/processes.js";
import { summarize } from "./stats.js";

// Under /tmp (world-traversable): the embedded server runs as the `postgres` user when we are root.
const DATA_DIR = join(tmpdir(), "coffer-bench-cold-start");

const { values: args } = parseArgs({
  options: {
    runs: { type: "string", default: "5" },
    only: { type: "string" },
    bin: { type: "string", multiple: true, default: [COFFER_BIN] },
  },
});
const RUNS = Number(args.runs);
if (!Number.isInteger(RUNS) || RUNS < 1) throw new Error("--runs takes a positive whole number");
const BINS = args.bin.map((b) => resolve(b));

async function until(what: () => Promise<boolean> | boolean, p: CofferProcess, t0: number, timeoutMs = 120_000) {
  for (;;) {
    if (await what()) return performance.now() - t0;
    if (p.child.exitCode !== null)
      throw new Error(`coffer ${p.name} exited (${p.child.exitCode}):\n${p.lines.join("\n")}`);
    if (performance.now() - t0 > timeoutMs) throw new Error(`not there after ${timeoutMs} ms:\n${p.lines.join("\n")}`);
    await new Promise((r) => setTimeout(r, 10));
  }
}

const answers200 = (url: string) => async () => {
  try {
    return (await fetch(url)).status === 200;
  } catch {
    return false;
  }
};

const accepts = (port: number) => () =>
  new Promise<boolean>((r) => {
    const s = connect(port, "127.0.0.1");
    s.once("connect", () => (s.destroy(), r(true)));
    s.once("error", () => r(false));
  });

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

/** Ctrl-C; `coffer start` must exit 0, a process alone may also be stopped by the signal itself. */
async function stop(p: CofferProcess, label: string, signalled = false): Promise<number> {
  const t0 = performance.now();
  p.child.kill("SIGINT");
  const exit = await Promise.race([p.exited, new Promise<"timeout">((r) => setTimeout(() => r("timeout"), 30_000))]);
  if (exit === "timeout" || (exit.code !== 0 && !(signalled && exit.signal === "SIGINT")))
    throw new Error(`${label}: Ctrl-C did not stop cleanly (${JSON.stringify(exit)}):\n${p.lines.join("\n")}`);
  return performance.now() - t0;
}

/** One `coffer start`: ready and banner times, then a clean Ctrl-C. */
async function startOnce(bin: string, label: string): Promise<{ ready: number; banner: number; stop: number }> {
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
  const p = spawnCoffer("start", ["start"], env, bin);
  try {
    const ready = await until(answers200(`http://127.0.0.1:${restPort}/health/ready`), p, t0);
    const banner = await until(() => p.stdoutLines.some((l) => l.startsWith("Coffer is running")), p, t0);
    const stopMs = await stop(p, label);
    if (await pgAnswers(pgPort)) throw new Error(`${label}: the embedded PostgreSQL is still running after Ctrl-C`);
    return { ready, banner, stop: stopMs };
  } finally {
    await killAll([p]);
  }
}

/** One process alone, from spawn until its port accepts connections. */
async function aloneOnce(bin: string, command: "core" | "rest" | "mcp", databaseUrl: string): Promise<number> {
  const port = await freePort();
  const env = cofferEnv({
    DATABASE_URL: databaseUrl,
    COFFER_CORE_PORT: String(port),
    COFFER_REST_PORT: String(port),
    COFFER_MCP_PORT: String(port),
    COFFER_LOG_LEVEL: "warn",
  });
  const t0 = performance.now();
  const p = spawnCoffer(command, [command], env, bin);
  try {
    const listening = await until(accepts(port), p, t0);
    // Just listening, it may not have its signal handlers yet (the previous releases set them after listen()).
    await stop(p, `coffer ${command}`, true);
    return listening;
  } finally {
    await killAll([p]);
  }
}

const s = (x: number) => `${(x / 1000).toFixed(2)} s`;
const range = (xs: number[]) => {
  const m = summarize(xs);
  return `median ${s(m.median)} (min ${s(m.min)}, max ${s(m.max)})`;
};

const perBin = () => new Map(BINS.map((b) => [b, [] as number[]]));
const binLabel = (bin: string) => (BINS.length > 1 ? ` [${bin}]` : "");

async function startSeries(label: string, fresh: boolean) {
  const ready = perBin();
  const gap = perBin();
  const stops = perBin();
  for (let i = 0; i < RUNS; i++) {
    for (const bin of BINS) {
      if (fresh) rmSync(DATA_DIR, { recursive: true, force: true });
      const r = await startOnce(bin, `${label}, run ${i + 1}`);
      ready.get(bin)!.push(r.ready);
      gap.get(bin)!.push(r.banner - r.ready);
      stops.get(bin)!.push(r.stop);
    }
  }
  for (const bin of BINS) {
    console.log(`  ${label}${binLabel(bin)}: ready ${range(ready.get(bin)!)}`);
    console.log(`    banner after ready ${range(gap.get(bin)!)}; Ctrl-C to exit 0 ${range(stops.get(bin)!)}`);
  }
}

async function aloneSeries(databaseUrl: string) {
  for (const command of ["core", "rest", "mcp"] as const) {
    const xs = perBin();
    for (let i = 0; i < RUNS; i++)
      for (const bin of BINS) xs.get(bin)!.push(await aloneOnce(bin, command, databaseUrl));
    for (const bin of BINS)
      console.log(`  coffer ${command} alone to listening${binLabel(bin)}: ${range(xs.get(bin)!)}`);
  }
}

async function main() {
  rmSync(DATA_DIR, { recursive: true, force: true });
  console.log(`cold start, ${RUNS} runs each, ${BINS.join(" and ")}; embedded PostgreSQL in ${DATA_DIR}`);
  try {
    if (args.only !== "alone") {
      console.log("coffer start (DATABASE_URL unset), until GET /health/ready = 200:");
      await startSeries("empty data dir (initdb + migrations)", true);
      await startSeries("existing data dir", false);
    }
    if (args.only !== "start") {
      const db = await startEmbeddedPostgres(DATA_DIR, await freePort());
      try {
        // One untimed core start migrates the database, so each timed one finds it current.
        if (args.only === "alone") for (const bin of BINS) await aloneOnce(bin, "core", db.url);
        console.log("each process alone (core on the migrated database), until its port accepts:");
        await aloneSeries(db.url);
      } finally {
        await db.stop();
      }
    }
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
