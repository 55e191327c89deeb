/**
 * Ingest rate of the sync engine: N transactions (default 100,000) brought in
 * by each source, beside the floor, a bare bulk `INSERT … SELECT unnest(…)` of
 * the same rows into the same table. Every measurement runs on a fresh clone of
 * a migrated template database (same indexes, triggers and an empty table), 3
 * times; the median is reported as transactions per second and as a share of
 * the floor. Targets: at least 20,000 transactions/s and 40% of the floor.
 *
 *   npm run bench:sync [-- --rows 100000 --runs 3 --source csv]
 *
 * A source is one entry of SOURCES (see ./sources.ts): it prepares its input
 * outside the timing and returns the timed step. Add a provider's fake server
 * there to measure its sync the same way.
 */
import { cpus, loadavg } from "node:os";
import pg from "pg";
import { migrate, openOrm, closeOrm } from "../../services/db/orm.js";
import { pgArray } from "../../services/db/sql.js";
import { arg, adminUrlOf, benchDatabaseUrl } from "../transactions/bench-db.js";
import { benchRows, type BenchRow } from "./rows.js";
import { SOURCES } from "./sources.js";

const ROWS = Number(arg("rows", "100000"));
const RUNS = Number(arg("runs", "3"));
const ONLY = arg("source", "");

const base = new URL(benchDatabaseUrl());
const TEMPLATE = "coffer_bench_sync_tmpl";
const dbUrl = (name: string) => {
  const u = new URL(base);
  u.pathname = `/${name}`;
  return u.toString();
};

async function admin<T>(fn: (c: pg.Client) => Promise<T>): Promise<T> {
  const c = new pg.Client({ connectionString: adminUrlOf(base.toString()) });
  await c.connect();
  try {
    return await fn(c);
  } finally {
    await c.end();
  }
}

/** A migrated, empty database to clone from (made once per run of the benchmark). */
async function makeTemplate(): Promise<void> {
  await admin(async (c) => {
    await c.query(`drop database if exists ${TEMPLATE} with (force)`);
    await c.query(`create database ${TEMPLATE}`);
  });
  const orm = await openOrm(dbUrl(TEMPLATE), 2);
  await migrate(orm);
  await closeOrm(orm);
}

let clones = 0;

/** A fresh clone of the template; dropped by the returned function. */
async function clone(): Promise<{ url: string; drop: () => Promise<void> }> {
  const name = `coffer_bench_sync_${process.pid}_${++clones}`;
  await admin((c) => c.query(`create database ${name} template ${TEMPLATE}`));
  return {
    url: dbUrl(name),
    drop: () => admin((c) => c.query(`drop database if exists ${name} with (force)`)).then(() => undefined),
  };
}

/** The floor: the same rows in one INSERT … SELECT unnest(…), the columns the engine writes. */
async function floorRun(url: string, rows: BenchRow[]): Promise<number> {
  const c = new pg.Client({ connectionString: url });
  await c.connect();
  try {
    await c.query(
      `insert into users (id, short_id, name) values ('00000000-0000-0000-0000-000000000001', 'benchusr', 'Bench')`,
    );
    await c.query(
      `insert into accounts (id, short_id, user_id, name, type, iso_currency_code)
       values ('00000000-0000-0000-0000-000000000002', 'benchacc', '00000000-0000-0000-0000-000000000001',
               'Floor', 'depository', 'USD')`,
    );
    const shortIds = rows.map((_, i) => `f${i.toString(36).padStart(7, "0")}`);
    const params = [
      pgArray(shortIds),
      pgArray(rows.map((r) => r.amount)),
      pgArray(rows.map((r) => r.date)),
      pgArray(rows.map((r) => r.key)),
      pgArray(rows.map((r) => r.description)),
    ];
    const t0 = performance.now();
    await c.query(
      `insert into transactions (id, short_id, account_id, amount, iso_currency_code, date, provider,
         provider_transaction_id, provider_name)
       select gen_random_uuid(), x.short_id, '00000000-0000-0000-0000-000000000002', x.amount, 'USD', x.date, 'csv',
         x.ptid, x.name
       from unnest($1::text[], $2::numeric[], $3::date[], $4::text[], $5::text[])
         as x(short_id, amount, date, ptid, name)`,
      params,
    );
    return performance.now() - t0;
  } finally {
    await c.end();
  }
}

const median = (xs: number[]) => [...xs].sort((a, b) => a - b)[Math.floor(xs.length / 2)];
const rate = (ms: number) => Math.round((ROWS / ms) * 1000);
const fmt = (n: number) => n.toLocaleString("en-US");

/** One timed ingest on a fresh clone. */
async function once(run: (url: string) => Promise<number>): Promise<number> {
  const db = await clone();
  try {
    return await run(db.url);
  } finally {
    await db.drop();
  }
}

async function main() {
  console.log(
    `# sync ingest, ${fmt(ROWS)} transactions, median of ${RUNS}; ` +
      `${cpus().length} CPUs, load ${loadavg()[0].toFixed(2)}`,
  );
  const rows = benchRows(ROWS);
  const contenders: { name: string; run: (url: string) => Promise<number> }[] = [
    { name: "floor (INSERT … unnest)", run: (url) => floorRun(url, rows) },
    ...SOURCES.filter((s) => !ONLY || s.name === ONLY).map((source) => ({
      name: source.name,
      run: async (url: string) => {
        const timed = await source.prepare({ url, rows });
        try {
          return await timed.run();
        } finally {
          await timed.close();
        }
      },
    })),
  ];
  await makeTemplate();
  try {
    // Runs alternate between the floor and the sources, so that both see the machine's load alike.
    const times = contenders.map(() => [] as number[]);
    for (let i = 0; i < RUNS; i++) {
      for (const [k, c] of contenders.entries()) times[k].push(await once(c.run));
    }
    const floor = median(times[0]);
    for (const [k, c] of contenders.entries()) {
      const m = median(times[k]);
      console.log(
        `${c.name.padEnd(24)} median ${fmt(Math.round(m)).padStart(7)} ms ` +
          `(${times[k].map((t) => fmt(Math.round(t))).join(", ")})  ${fmt(rate(m)).padStart(7)} tx/s` +
          (k === 0 ? "" : `  ${((floor / m) * 100).toFixed(0)}% of the floor`),
      );
    }
    for (const [k, c] of contenders.entries()) {
      if (k === 0) continue;
      const m = median(times[k]);
      const met = rate(m) >= 20_000 && floor / m >= 0.4;
      console.log(`${c.name}: target (≥ 20,000 tx/s and ≥ 40% of the floor) ${met ? "met" : "not met"}`);
    }
  } finally {
    await admin((c) => c.query(`drop database if exists ${TEMPLATE} with (force)`));
  }
}

await main();
