/**
 * Latency of GET /api/v1/transactions?limit=100 through the real REST gateway
 * and core processes, beside the same page read by bare SQL from Node (the
 * floors: see floorQueries below).
 *
 *   npm run bench:generate -- --n 1000000     # once
 *   npm run bench:transactions [-- --iterations 300 --depth 50 --search coffee --bin ../main/bin/coffer.js]
 *
 * Scenarios: the first page, and a deep page (the page after following
 * `--depth` cursors, fetched again and again with the same cursor), each
 * without and with a `search` filter. Reported: median and p99 of each, and
 * the REST/SQL ratio. Target: p50 under 25 ms, at most 3x the floor.
 */
import { spawn, type ChildProcess } from "node:child_process";
import { readFileSync } from "node:fs";
import { createServer } from "node:net";
import { cpus, loadavg } from "node:os";
import { fileURLToPath } from "node:url";
import pg from "pg";
import { viewSql } from "../../services/db/queries/transaction-view.js";
import { arg, benchDatabaseUrl } from "./bench-db.js";

const BIN = fileURLToPath(new URL("../../bin/coffer.js", import.meta.url));
const STACK_FLOOR = fileURLToPath(new URL("./stack-floor.ts", import.meta.url));
const ROOT = fileURLToPath(new URL("../../", import.meta.url));
const LIMIT = 100;

function freePort(): Promise<number> {
  return new Promise((resolve, reject) => {
    const srv = createServer();
    srv.once("error", reject);
    srv.listen(0, "127.0.0.1", () => {
      const { port } = srv.address() as { port: number };
      srv.close(() => resolve(port));
    });
  });
}

interface Proc {
  name: string;
  child: ChildProcess;
  tail: string[];
}

/** `--profile DIR` writes a V8 CPU profile of the core and the gateway there (open it in Chrome DevTools). */
const profileDir = arg("profile", "");

/** `--bin PATH`: the core and gateways of another checkout (its bin/coffer.js), to compare builds in one session. */
const coffer = arg("bin", BIN);

/** `coffer <args>`, or with `script` another Node program (the stack floor, through tsx). */
function start(name: string, args: string[], env: NodeJS.ProcessEnv, script = coffer): Proc {
  const nodeArgs = profileDir ? ["--cpu-prof", `--cpu-prof-dir=${profileDir}/${name}`] : [];
  if (script !== coffer) nodeArgs.push("--import", "tsx");
  // stdout (the JSON request log) is discarded; stderr is kept for a failure report.
  const child = spawn(process.execPath, [...nodeArgs, script, ...args], {
    cwd: ROOT,
    env,
    stdio: ["ignore", "ignore", "pipe"],
  });
  const tail: string[] = [];
  child.stderr.on("data", (c: Buffer) => tail.push(...c.toString().split("\n").slice(-20)));
  return { name, child, tail };
}

async function run(args: string[], env: NodeJS.ProcessEnv): Promise<string> {
  const child = spawn(process.execPath, [BIN, ...args], { cwd: ROOT, env, stdio: ["ignore", "pipe", "pipe"] });
  let out = "";
  let err = "";
  child.stdout.on("data", (c) => (out += c));
  child.stderr.on("data", (c) => (err += c));
  const code = await new Promise<number | null>((resolve) => child.once("exit", resolve));
  if (code !== 0) throw new Error(`coffer ${args.join(" ")} failed (${code}): ${err}`);
  return out.trim();
}

async function waitReady(url: string, procs: Proc[]): Promise<void> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    try {
      if ((await fetch(url)).status === 200) return;
    } catch {
      // not listening yet
    }
    const dead = procs.find((p) => p.child.exitCode !== null);
    if (dead) throw new Error(`coffer ${dead.name} exited: ${dead.tail.join("\n")}`);
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${url}`);
    await new Promise((r) => setTimeout(r, 200));
  }
}

/** CPU time (user + system, ms) a process has used so far, from /proc; null where there is no /proc. */
function cpuMs(pid: number | undefined): number | null {
  try {
    const fields = readFileSync(`/proc/${pid}/stat`, "utf8").split(") ")[1].split(" ");
    return ((Number(fields[11]) + Number(fields[12])) * 1000) / 100; // utime + stime, in USER_HZ (100 on Linux)
  } catch {
    return null;
  }
}

const percentile = (sorted: number[], p: number) =>
  sorted[Math.min(sorted.length - 1, Math.ceil((p / 100) * sorted.length) - 1)];

async function measure(iterations: number, fn: () => Promise<unknown>): Promise<{ p50: number; p99: number }> {
  for (let i = 0; i < Math.min(30, iterations); i++) await fn(); // warm caches and JITs
  const times: number[] = [];
  for (let i = 0; i < iterations; i++) {
    const t = performance.now();
    await fn();
    times.push(performance.now() - t);
  }
  times.sort((a, b) => a - b);
  return { p50: percentile(times, 50), p99: percentile(times, 99) };
}

interface Page {
  transactions: { id: string }[];
  next_cursor: string;
  has_more: boolean;
}

async function main() {
  const iterations = Number(arg("iterations", "300"));
  const depth = Number(arg("depth", "50"));
  const search = arg("search", "coffee");
  const databaseUrl = benchDatabaseUrl();

  const sql = new pg.Client({ connectionString: databaseUrl });
  await sql.connect();
  const { rows: est } = await sql.query<{ n: string }>(
    `select reltuples::bigint::text as n from pg_class where relname = 'transactions'`,
  );
  if (!est[0] || Number(est[0].n) <= 0)
    throw new Error("the bench database is empty: run npm run bench:generate first");

  const [corePort, restPort, floorPort, floorRestPort] = [
    await freePort(),
    await freePort(),
    await freePort(),
    await freePort(),
  ];
  const env = {
    ...process.env,
    DATABASE_URL: databaseUrl,
    COFFER_CORE_PORT: String(corePort),
    COFFER_REST_PORT: String(restPort),
    COFFER_CORE_URL: `http://127.0.0.1:${corePort}`,
  };
  const core = start("core", ["core"], env);
  const rest = start("rest", ["rest"], env);
  const procs = [core, rest];
  try {
    const base = `http://127.0.0.1:${restPort}`;
    await waitReady(`${base}/health/ready`, procs);
    // The stack floor (stack-floor.ts) with a gateway of its own; it reads the cursor key the core made.
    const floorCore = start("floor", [], { ...env, STACK_FLOOR_PORT: String(floorPort) }, STACK_FLOOR);
    const floorEnv = {
      ...env,
      COFFER_REST_PORT: String(floorRestPort),
      COFFER_CORE_URL: `http://127.0.0.1:${floorPort}`,
    };
    const floorRest = start("floor-rest", ["rest"], floorEnv);
    procs.push(floorCore, floorRest);
    const floorBase = `http://127.0.0.1:${floorRestPort}`;
    await waitReady(`${floorBase}/health/ready`, procs);
    const apiKey = await run(["keys", "create", "--name", "bench", "--scope", "read_only"], env);

    const getText = async (qs: string, from = base): Promise<string> => {
      const res = await fetch(`${from}/api/v1/transactions?limit=${LIMIT}${qs}`, { headers: { "x-api-key": apiKey } });
      const body = await res.text();
      if (res.status !== 200) throw new Error(`GET ${qs} → ${res.status} ${body}`);
      return body;
    };
    const get = async (qs: string): Promise<Page> => JSON.parse(await getText(qs)) as Page;

    // The first page against its stack floor: the same gateway code in front of the real core and
    // of the floor, in alternating rounds (the machine is shared), after checking that both answer
    // the same JSON byte for byte but for the cursor (its time and signature differ by call).
    const withoutCursor = (body: string) => body.replace(/"next_cursor":"[^"]*"/, '"next_cursor":""');
    const [viaCore, viaFloor] = [await getText(""), await getText("", floorBase)];
    if (withoutCursor(viaCore) !== withoutCursor(viaFloor)) {
      throw new Error("the stack floor does not answer the first page the core answers");
    }
    const stack = { core: [] as number[], floor: [] as number[], coreCpu: 0, floorCpu: 0, restCpu: 0, floorRestCpu: 0 };
    const ROUNDS = 4;
    for (let round = 0; round < ROUNDS; round++) {
      for (const side of ["core", "floor"] as const) {
        const [p, g] = side === "core" ? [core, rest] : [floorCore, floorRest];
        const before = [cpuMs(p.child.pid) ?? 0, cpuMs(g.child.pid) ?? 0];
        const m = await measure(iterations, () => getText("", side === "core" ? base : floorBase));
        const spent = [(cpuMs(p.child.pid) ?? 0) - before[0], (cpuMs(g.child.pid) ?? 0) - before[1]];
        stack[side].push(m.p50);
        const n = iterations + Math.min(30, iterations);
        if (side === "core")
          [stack.coreCpu, stack.restCpu] = [stack.coreCpu + spent[0] / n, stack.restCpu + spent[1] / n];
        else [stack.floorCpu, stack.floorRestCpu] = [stack.floorCpu + spent[0] / n, stack.floorRestCpu + spent[1] / n];
      }
    }
    const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];

    // The floors: bare SQL on one pg connection (no HTTP, no protobuf, no JSON), each the fastest
    // of a few plain statements, run both as named prepared statements (one cached plan, as the
    // core runs its own) and unnamed (planned for the actual values, which a search may prefer):
    //  - rows: the 100 rows of `transactions` the page shows, as stored (ids for account,
    //    category and tags; no names). The faster of one keyset SELECT and "ids by an
    //    index-only scan, then those rows" (which wins when a search skips many rows).
    //  - page: the same page with every field the API returns (viewSql: account and owner,
    //    category and parent, counterparty, tag slugs), i.e. what the core asks PostgreSQL for.
    // The REST ratio is given against both.
    const searchSql = `t.search_text like $1`; // the lower-cased names (migration 0004)
    let statements = 0;
    const floorQueries = (withSearch: boolean, after: { d: string; i: string } | null) => {
      const where = ["t.deleted_at is null"];
      const values: unknown[] = [];
      if (withSearch) {
        values.push(`%${search.toLowerCase()}%`);
        where.push(searchSql);
      }
      if (after) {
        values.push(after.d, after.i);
        where.push(`(t.date, t.id) < ($${values.length - 1}::date, $${values.length}::uuid)`);
      }
      const order = `order by t.date desc, t.id desc limit ${LIMIT + 1}`;
      const twoStep =
        `select r.* from (select t.id from transactions t where ${where.join(" and ")} ${order}) k ` +
        "join transactions r on r.id = k.id";
      const variants = (...texts: string[]) =>
        texts.flatMap((text) => [
          { name: `floor-${++statements}`, text, values },
          { text, values },
        ]);
      return {
        rows: variants(
          `select * from transactions t where ${where.join(" and ")} ${order}`,
          `${twoStep} order by r.date desc, r.id desc`,
        ),
        page: variants(`select * from (${viewSql(twoStep)}) v order by v.date desc, v.id desc`),
      };
    };
    type Stat = { p50: number; p99: number };
    const results: { name: string; rest: Stat; rows: Stat; page: Stat; cpu: string }[] = [];
    /** Latency of `fn`, and the CPU the core and the gateway spent per request meanwhile (load-independent). */
    const restRun = async (fn: () => Promise<unknown>) => {
      const before = [cpuMs(core.child.pid), cpuMs(rest.child.pid)];
      const m = await measure(iterations, fn);
      const after = [cpuMs(core.child.pid), cpuMs(rest.child.pid)];
      const per = (i: number) =>
        before[i] === null || after[i] === null
          ? "n/a"
          : ((after[i] - before[i]) / (iterations + Math.min(30, iterations))).toFixed(1);
      return { m, cpu: `${per(0)} / ${per(1)}` };
    };
    /** The fastest of `queries` (all read the same page), after checking they read the page the API returned. */
    const floor = async (
      what: string,
      queries: { name?: string; text: string; values: unknown[] }[],
      expected: Page,
    ): Promise<Stat> => {
      const want = JSON.stringify(expected.transactions.map((t) => t.id));
      let best: Stat | null = null;
      for (const q of queries) {
        const got = (await sql.query<{ id: string }>(q)).rows.slice(0, LIMIT).map((r) => r.id);
        if (JSON.stringify(got) !== want) throw new Error(`the ${what} floor does not read the same page: ${q.text}`);
        const m = await measure(iterations, () => sql.query(q));
        if (!best || m.p50 < best.p50) best = m;
      }
      return best!;
    };
    const scenario = async (name: string, qs: string, expected: Page, q: ReturnType<typeof floorQueries>) => {
      const r = await restRun(() => get(qs));
      results.push({
        name,
        rest: r.m,
        cpu: r.cpu,
        rows: await floor("rows", q.rows, expected),
        page: await floor("page", q.page, expected),
      });
    };
    for (const withSearch of [false, true]) {
      const qs = withSearch ? `&search=${encodeURIComponent(search)}` : "";
      const label = withSearch ? ` search=${search}` : "";
      const first = await get(qs);
      await scenario(`first page${label}`, qs, first, floorQueries(withSearch, null));
      // Deep page: follow `depth` cursors, then read the next page with that one cursor again and again.
      let page = first;
      for (let i = 0; i < depth && page.has_more; i++) page = await get(`${qs}&cursor=${page.next_cursor}`);
      if (!page.has_more) throw new Error(`fewer than ${depth + 1} pages${label ? ` match${label}` : ""}`);
      const cursor = page.next_cursor;
      const position = JSON.parse(Buffer.from(cursor, "base64url").toString()) as { d: string; i: string };
      const deep = await get(`${qs}&cursor=${cursor}`);
      await scenario(
        `page ${depth + 2} (${(depth + 1) * LIMIT} rows deep)${label}`,
        `${qs}&cursor=${cursor}`,
        deep,
        floorQueries(withSearch, position),
      );
    }

    // What any authenticated call costs through both processes (key lookup, no page), for scale.
    const fixed = await restRun(async () => {
      const res = await fetch(`${base}/api/v1/keys/me`, { headers: { "x-api-key": apiKey } });
      if (res.status !== 200) throw new Error(`GET /api/v1/keys/me → ${res.status}`);
      await res.text();
    });

    const { rows: size } = await sql.query<{ n: string }>(
      `select count(*)::text as n from transactions where deleted_at is null`,
    );
    const ms = (x: number) => x.toFixed(2).padStart(7);
    const lines = [
      `GET /api/v1/transactions?limit=${LIMIT} over ${Number(size[0].n).toLocaleString("en-US")} transactions, ` +
        `${iterations} sequential requests each (after warm-up)`,
      "",
      '| scenario | REST p50 / p99 ms | floor "rows" p50 / p99 ms | ratio p50 / p99 | ' +
        'floor "page" p50 / p99 ms | ratio p50 / p99 | CPU ms/request core / REST |',
      `|---|---:|---:|---:|---:|---:|---:|`,
      ...results.map((r) => {
        const pair = (s: Stat) => `${ms(s.p50)} / ${ms(s.p99)}`;
        const ratio = (s: Stat) => `${(r.rest.p50 / s.p50).toFixed(1)}x / ${(r.rest.p99 / s.p99).toFixed(1)}x`;
        const cells = [r.name, pair(r.rest), pair(r.rows), ratio(r.rows), pair(r.page), ratio(r.page), r.cpu];
        return `| ${cells.join(" | ")} |`;
      }),
      "",
      "For scale, the fixed cost of an authenticated call through both processes (GET /api/v1/keys/me, no page): " +
        `p50 ${fixed.m.p50.toFixed(2)} ms, p99 ${fixed.m.p99.toFixed(2)} ms, CPU ms/request core / REST ${fixed.cpu}.`,
      "",
      `First page against its stack floor (stack-floor.ts), ${ROUNDS} alternating rounds of ${iterations}: ` +
        `REST p50 (median of rounds) ${median(stack.core).toFixed(2)} ms via the core, ` +
        `${median(stack.floor).toFixed(2)} ms via the floor: ` +
        `${(median(stack.core) / median(stack.floor)).toFixed(2)}x; ` +
        `CPU ms/request core ${(stack.coreCpu / ROUNDS).toFixed(2)} ` +
        `vs floor ${(stack.floorCpu / ROUNDS).toFixed(2)}: ` +
        `${(stack.coreCpu / stack.floorCpu).toFixed(2)}x; their gateways ${(stack.restCpu / ROUNDS).toFixed(2)} vs ` +
        `${(stack.floorRestCpu / ROUNDS).toFixed(2)}: ${(stack.restCpu / stack.floorRestCpu).toFixed(2)}x.`,
      "",
      `load average at the end: ${loadavg()
        .map((l) => l.toFixed(2))
        .join(" ")} on ${cpus().length} CPUs`,
    ];
    process.stdout.write(`${lines.join("\n")}\n`);
  } finally {
    for (const p of procs) if (p.child.exitCode === null) p.child.kill("SIGTERM");
    await Promise.all(
      procs.map((p) => (p.child.exitCode === null ? new Promise((r) => p.child.once("exit", r)) : Promise.resolve())),
    );
    await sql.end();
  }
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
