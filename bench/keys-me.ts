/**
 * GET /api/v1/keys/me through the REST gateway vs. the same RPC
 * (coffer.v1.ApiKeyService/GetCurrentKey) straight on the core over
 * @grpc/grpc-js: what the gateway hop costs. Run: npm run bench:keys-me
 * [-- --profile DIR] (a V8 CPU profile of the core and the gateway into
 * DIR/core and DIR/rest) [-- --bin PATH] (the core and gateways of another
 * checkout, e.g. .../bin/coffer.js of main, to compare two builds in one session).
 *
 * The two paths are measured in alternating rounds (the machine is shared and
 * its load drifts); beside the latency, the CPU each process spent per call
 * is read from /proc, which other load disturbs less.
 *
 * Uses DATABASE_URL's server (default: the local one on 5432), in a database
 * of its own that is dropped at the end.
 */
import { readFileSync } from "node:fs";
import { cpus, loadavg } from "node:os";
import { resolve } from "node:path";
import pg from "pg";
import { ApiKeyService } from "../gen/coffer/v1/auth_pb.js";
import { grpcJsClient, metadata } from "../test/helpers/grpc-js.js";
import {
  cofferEnv,
  freePort,
  killAll,
  runCoffer,
  spawnCoffer,
  waitForOk,
  type CofferProcess,
} from "../test/helpers/processes.js";
import { measure, ms, summarize } from "./stats.js";

const N = 2000;
const WARMUP = 200;
const ROUNDS = 4;
// Per run, so two runs on one server (other checkouts) never drop each other's database.
const DB = `coffer_bench_keys_${process.pid}`;

/** `--name value` from argv, or undefined. */
function arg(name: string): string | undefined {
  const i = process.argv.indexOf(`--${name}`);
  return i >= 0 ? process.argv[i + 1] : undefined;
}

/** CPU time (user + system, ms) a process has used so far, from /proc; 0 where there is no /proc. */
function cpuMs(pid: number | undefined): number {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, in USER_HZ (100 on Linux)
  } catch {
    return 0;
  }
}

function withDatabase(url: string, db: string): string {
  const u = new URL(url);
  u.pathname = `/${db}`;
  return u.toString();
}

async function admin<T>(url: string, fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

async function main() {
  const adminUrl = process.env.DATABASE_URL ?? "postgres://postgres@127.0.0.1:5432/postgres";
  await admin(adminUrl, async (c) => {
    await c.query(`drop database if exists ${DB} with (force)`);
    await c.query(`create database ${DB}`);
  });
  const procs: CofferProcess[] = [];
  try {
    const [corePort, restPort, mcpPort] = await Promise.all([freePort(), freePort(), freePort()]);
    const env = cofferEnv({
      DATABASE_URL: withDatabase(adminUrl, DB),
      COFFER_CORE_PORT: String(corePort),
      COFFER_REST_PORT: String(restPort),
      COFFER_MCP_PORT: String(mcpPort),
      COFFER_CORE_URL: `http://127.0.0.1:${corePort}`,
    });
    const profile = arg("profile");
    const nodeArgs = (name: string) => (profile ? ["--cpu-prof", `--cpu-prof-dir=${resolve(profile, name)}`] : []);
    const bin = arg("bin");
    for (const name of ["core", "rest", "mcp"]) procs.push(spawnCoffer(name, [name], env, bin, nodeArgs(name)));
    const [core, rest] = procs;
    // `keys create` migrates too (under the same advisory lock as the core), so it may run alongside.
    const [made] = await Promise.all([
      runCoffer(["keys", "create", "--name", "bench", "--scope", "read_only"], env),
      waitForOk(`http://127.0.0.1:${restPort}/health/ready`, 60_000, procs),
      waitForOk(`http://127.0.0.1:${mcpPort}/health`, 60_000, procs),
    ]);
    if (made.code !== 0) throw new Error(`keys create failed: ${made.stderr}`);
    const key = made.stdout.trim();

    const restUrl = `http://127.0.0.1:${restPort}/api/v1/keys/me`;
    const viaRest = async () => {
      const res = await fetch(restUrl, { headers: { "x-api-key": key } });
      if (res.status !== 200) throw new Error(`REST answered ${res.status}`);
      await res.arrayBuffer();
    };
    const grpc = grpcJsClient(`127.0.0.1:${corePort}`, ApiKeyService);
    const md = metadata({ "x-api-key": key });
    const getCurrentKey = grpc.call("GetCurrentKey");
    const viaGrpc = () => getCurrentKey({}, md);

    // Both paths warmed, then measured in alternating rounds, with the CPU of the core and the gateway.
    await measure(viaRest, WARMUP, 0);
    await measure(viaGrpc, WARMUP, 0);
    const paths = [
      { name: "rest", fn: viaRest, samples: [] as number[], cpu: [0, 0] },
      { name: "direct", fn: viaGrpc, samples: [] as number[], cpu: [0, 0] },
    ];
    for (let round = 0; round < ROUNDS; round++) {
      for (const path of paths) {
        const before = [cpuMs(core.child.pid), cpuMs(rest.child.pid)];
        path.samples.push(...(await measure(path.fn, N / ROUNDS, 0)));
        path.cpu[0] += cpuMs(core.child.pid) - before[0];
        path.cpu[1] += cpuMs(rest.child.pid) - before[1];
      }
    }
    grpc.close();
    const [viaGateway, direct] = paths.map((p) => summarize(p.samples));
    const cpuOf = (i: number) =>
      `CPU ms/call core ${(paths[i].cpu[0] / N).toFixed(3)}, REST ${(paths[i].cpu[1] / N).toFixed(3)}`;

    console.log(
      `GET /api/v1/keys/me: ${N} sequential requests per path after ${WARMUP} warm-up, ` +
        `in ${ROUNDS} alternating rounds, one keep-alive connection each`,
    );
    console.log(
      `  REST gateway (fetch -> REST -> Connect h2c -> core):  median ${ms(viaGateway.median)}  ` +
        `p99 ${ms(viaGateway.p99)}  mean ${ms(viaGateway.mean)}  ${cpuOf(0)}`,
    );
    console.log(
      `  core direct (@grpc/grpc-js GetCurrentKey):            median ${ms(direct.median)}  ` +
        `p99 ${ms(direct.p99)}  mean ${ms(direct.mean)}  ${cpuOf(1)}`,
    );
    console.log(
      `  ratio REST/gRPC: median ${(viaGateway.median / direct.median).toFixed(2)}x  ` +
        `p99 ${(viaGateway.p99 / direct.p99).toFixed(2)}x`,
    );
    console.log(
      `  load average at the end: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")} on ${cpus().length} CPUs`,
    );
  } finally {
    await Promise.all(
      procs.map(async (p) => {
        p.child.kill("SIGTERM");
        await Promise.race([p.exited, new Promise((r) => setTimeout(r, 5000))]);
      }),
    );
    await killAll(procs);
    await admin(adminUrl, (c) => c.query(`drop database if exists ${DB} with (force)`));
  }
}

main().then(
  () => process.exit(0),
  (e) => {
    console.error(e);
    process.exit(1);
  },
);
