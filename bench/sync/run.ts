/**
 * Ingest rate of the sync engine: N transactions (default 100,000) brought in
 * by each source (a CSV import; a first sync from the Plaid fake, run as a
 * process of its own, through the real Plaid client), each beside its floor, a
 * bare bulk `INSERT … SELECT unnest(…)` of the same rows into the same table.
 * Every measurement runs on a fresh clone of a migrated template database
 * (same indexes, triggers and an empty table), 3 times; the median is reported
 * as transactions per second and as a share of the floor. Targets: at least 20,000 transactions/s and 40% of the floor.
 *
 *   npm run bench:sync [-- --rows 100000 --runs 3 --source "plaid sync" --rules off]
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
import { benchRows, type FloorRow } from "./rows.js";
import { SOURCES } from "./sources.js";

const ROWS = Number(arg("rows", "100000"));
const RUNS = Number(arg("runs", "3"));
const ONLY = arg("source", "");
// --rules off: the template's rules (the built-in needs_review rule) disabled, to show what the rules pass costs.
const RULES = arg("rules", "on");

const base = new URL(benchDatabaseUrl());
// Per process: two runs at once (two worktrees, base and branch) must not drop each other's template.
const TEMPLATE = `coffer_bench_sync_tmpl_${process.pid}`;
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
  if (RULES === "off") {
    const c = new pg.Client({ connectionString: dbUrl(TEMPLATE) });
    await c.connect();
    await c.query(`update rules set enabled = false`);
    await c.end();
  }
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

/**
 * The floor: the same rows in one INSERT … SELECT unnest(…), the columns the engine writes (category ids
 * looked up before the timing). No parsing, no dedup, no page transactions, no RETURNING.
 */
async function floorRun(url: string, rows: FloorRow[]): Promise<number> {
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
    const categories = new Map(
      (await c.query<{ id: string; slug: string }>(`select id, slug from categories`)).rows.map((r) => [r.slug, r.id]),
    );
    const categoryIds = rows.map((r) => (r.categorySlug ? (categories.get(r.categorySlug) ?? null) : null));
    const params = [
      pgArray(rows.map((_, i) => `f${i.toString(36).padStart(7, "0")}`)),
      pgArray(rows.map((r) => r.amount)),
      pgArray(rows.map((r) => r.date)),
      pgArray(rows.map((r) => r.authorizedDate)),
      pgArray(rows.map((r) => r.ptid)),
      pgArray(rows.map((r) => r.name)),
      pgArray(rows.map((r) => r.merchant)),
      pgArray(rows.map((r) => r.primary)),
      pgArray(rows.map((r) => r.detailed)),
      pgArray(rows.map((r) => (r.pending ? "t" : "f"))),
      pgArray(categoryIds),
    ];
    const t0 = performance.now();
    await c.query(
      `insert into transactions (id, short_id, account_id, amount, iso_currency_code, date, authorized_date, provider,
         provider_transaction_id, provider_name, provider_merchant_name, provider_category_primary,
         provider_category_detailed, pending, category_id, category_source)
       select gen_random_uuid(), x.short_id, '00000000-0000-0000-0000-000000000002', x.amount, 'USD', x.date,
         x.authorized_date, 'csv', x.ptid, x.name, x.merchant, x.cat_primary, x.cat_detailed, x.pending, x.category_id,
         case when x.category_id is null then null else 'system' end
       from unnest($1::text[], $2::numeric[], $3::date[], $4::date[], $5::text[], $6::text[], $7::text[], $8::text[],
         $9::text[], $10::boolean[], $11::uuid[])
         as x(short_id, amount, date, authorized_date, ptid, name, merchant, cat_primary, cat_detailed, pending,
           category_id)`,
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
  const sources = SOURCES.filter((s) => !ONLY || s.name === ONLY);
  await makeTemplate();
  try {
    // Each source beside its own floor: the same rows, inserted bare.
    const contenders: { name: string; run: (url: string) => Promise<number> }[] = [];
    for (const source of sources) {
      const floorRows = await source.floorRows({ rows });
      if (floorRows.length !== ROWS) throw new Error(`${source.name} has ${floorRows.length} rows, not ${ROWS}`);
      contenders.push({ name: `floor (${source.name} rows)`, run: (url) => floorRun(url, floorRows) });
      contenders.push({
        name: source.name,
        run: async (url: string) => {
          const timed = await source.prepare({ url, rows });
          try {
            return await timed.run();
          } finally {
            await timed.close();
          }
        },
      });
    }
    // Runs alternate between the floors and the sources, so that all see the machine's load alike.
    const times = contenders.map(() => [] as number[]);
    for (let i = 0; i < RUNS; i++) {
      for (const [k, c] of contenders.entries()) times[k].push(await once(c.run));
    }
    const verdicts: string[] = [];
    for (let k = 0; k < contenders.length; k += 2) {
      const floor = median(times[k]);
      for (const j of [k, k + 1]) {
        const m = median(times[j]);
        console.log(
          `${contenders[j].name.padEnd(26)} median ${fmt(Math.round(m)).padStart(7)} ms ` +
            `(${times[j].map((t) => fmt(Math.round(t))).join(", ")})  ${fmt(rate(m)).padStart(7)} tx/s` +
            (j === k ? "" : `  ${((floor / m) * 100).toFixed(0)}% of the floor`),
        );
      }
      const m = median(times[k + 1]);
      const met = rate(m) >= 20_000 && floor / m >= 0.4;
      verdicts.push(
        `${contenders[k + 1].name}: target (≥ 20,000 tx/s and ≥ 40% of the floor) ${met ? "met" : "not met"}`,
      );
    }
    for (const v of verdicts) console.log(v);
  } finally {
    for (const source of SOURCES) await source.shutdown?.();
    await admin((c) => c.query(`drop database if exists ${TEMPLATE} with (force)`));
  }
}

await main();
