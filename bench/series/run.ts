/**
 * Recurring-series detection over the benchmark database (1,000,000 transactions):
 *
 *   npm run bench:generate             # once: creates coffer_bench (bench/transactions/README.md)
 *   npm run bench:series [-- --iterations 5]
 *
 * Each iteration times, in this process, against the database:
 * - load: reading every posted transaction the way detection does (loadHistory: the SQL and the mapping);
 * - detect: the detector over them (detectSeries, pure);
 * - dry run: what POST /api/v1/series/detect runs (detectProposals: load, detect, rejections, membership).
 * Target: the dry run under 10 s. Nothing is written, apart from migrating the database to this checkout.
 */
import { cpus, loadavg } from "node:os";
import { closeOrm, migrate, openOrm } from "../../services/db/orm.js";
import { query } from "../../services/db/sql.js";
import { detectProposals, loadHistory, todayUtc } from "../../services/series/detection.js";
import { detectSeries } from "../../services/series/detector/detect.js";
import { arg, benchDatabaseUrl, dbNameOf } from "../transactions/bench-db.js";

const seconds = (ms: number) => `${(ms / 1000).toFixed(2)} s`;
const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[xs.length >> 1];

async function main() {
  const iterations = Number(arg("iterations", "3"));
  const url = benchDatabaseUrl();
  const orm = await openOrm(url, 2);
  try {
    await migrate(orm);
    const [{ n }] = await query<{ n: string }>(orm.em.fork(), `select count(*)::text as n from transactions`);
    if (Number(n) === 0) throw new Error(`${dbNameOf(url)} has no transactions: run npm run bench:generate first`);
    const today = todayUtc(new Date());
    console.log(`${dbNameOf(url)}: ${n} transactions; ${cpus().length} CPUs, load ${loadavg()[0].toFixed(2)}`);
    // The dry runs first, alone in the process, so the peak memory is theirs.
    const dryRuns: number[] = [];
    let proposals = 0;
    for (let i = 0; i < iterations; i++) {
      const t0 = performance.now();
      proposals = (await detectProposals(orm.em.fork(), { minConfidence: 0, today })).length;
      dryRuns.push(performance.now() - t0);
    }
    const dryRunRss = process.memoryUsage().rss;
    const loads: number[] = [];
    const detects: number[] = [];
    for (let i = 0; i < iterations; i++) {
      const t0 = performance.now();
      const history = await loadHistory(orm.em.fork());
      const t1 = performance.now();
      detectSeries(history, { today });
      loads.push(t1 - t0);
      detects.push(performance.now() - t1);
    }
    const runs = (xs: number[]) => xs.map((x) => (x / 1000).toFixed(2)).join(", ");
    console.log(`dry run (load, detect, judge): ${runs(dryRuns)} s; ${proposals} proposals`);
    console.log(`  of which load: ${runs(loads)} s; detect: ${runs(detects)} s`);
    console.log(
      `median of ${iterations}: dry run ${seconds(median(dryRuns))} (target: under 10 s), load ` +
        `${seconds(median(loads))}, detect ${seconds(median(detects))}; RSS after the dry runs ` +
        `${Math.round(dryRunRss / 2 ** 20)} MiB`,
    );
  } finally {
    await closeOrm(orm);
  }
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
