/**
 * GET /api/v1/keys/me through the REST gateway vs. the same RPC
 * (coffer.v1.ApiKeyService/GetCurrentKey) straight on the core over
 * @grpc/grpc-js: what the gateway hop costs. Run: npm run bench:keys-me
 *
 * Uses DATABASE_URL's server (default: the local one on 5432), in a database
 * of its own that is dropped at the end.
 */
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
// Per run, so two runs on one server (other checkouts) never drop each other's database.
const DB = `coffer_bench_keys_${process.pid}`;

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
    for (const name of ["core", "rest", "mcp"]) procs.push(spawnCoffer(name, [name], env));
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

    const rest = summarize(await measure(viaRest, N, WARMUP));
    const direct = summarize(await measure(viaGrpc, N, WARMUP));
    grpc.close();

    console.log(
      `GET /api/v1/keys/me: ${N} sequential requests after ${WARMUP} warm-up, one keep-alive connection each`,
    );
    console.log(
      `  REST gateway (fetch -> REST -> Connect h2c -> core):  median ${ms(rest.median)}  ` +
        `p99 ${ms(rest.p99)}  mean ${ms(rest.mean)}`,
    );
    console.log(
      `  core direct (@grpc/grpc-js GetCurrentKey):            median ${ms(direct.median)}  ` +
        `p99 ${ms(direct.p99)}  mean ${ms(direct.mean)}`,
    );
    console.log(
      `  ratio REST/gRPC: median ${(rest.median / direct.median).toFixed(2)}x  ` +
        `p99 ${(rest.p99 / direct.p99).toFixed(2)}x`,
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
