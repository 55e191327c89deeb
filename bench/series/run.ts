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
    const today = todayUtc();
    console.log(`${dbNameOf(url)}: ${n} transactions; ${cpus().length} CPUs, load ${loadavg()[0].toFixed(2)}`);
    const times = { load: [] as number[], detect: [] as number[], dryRun: [] as number[] };
    let peakRss = 0;
    for (let i = 1; i <= iterations; i++) {
      const t0 = performance.now();
      const history = await loadHistory(orm.em.fork());
      const t1 = performance.now();
      const proposals = detectSeries(history, { today });
      const t2 = performance.now();
      peakRss = Math.max(peakRss, process.memoryUsage().rss);
      const views = await detectProposals(orm.em.fork(), { minConfidence: 0, today });
      const t3 = performance.now();
      peakRss = Math.max(peakRss, process.memoryUsage().rss);
      times.load.push(t1 - t0);
      times.detect.push(t2 - t1);
      times.dryRun.push(t3 - t2);
      console.log(
        `run ${i}: load ${seconds(t1 - t0)} (${history.length} posted), detect ${seconds(t2 - t1)} ` +
          `(${proposals.length} proposals), dry run ${seconds(t3 - t2)} (${views.length} proposals)`,
      );
    }
    console.log(
      `median of ${iterations}: load ${seconds(median(times.load))}, detect ${seconds(median(times.detect))}, ` +
        `dry run ${seconds(median(times.dryRun))} (target: under 10 s); peak RSS ${Math.round(peakRss / 2 ** 20)} MiB`,
    );
  } finally {
    await closeOrm(orm);
  }
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
