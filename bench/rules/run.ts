/**
 * The rules engine on the benchmark database (1,000,000 transactions):
 *
 *   npm run bench:generate -- --n 1000000      # once
 *   npm run bench:rules [-- --runs 5 --n 50000 --page 500 --part preview|pipeline|all]
 *
 * 1. preview_rule (the core's domain function, the work behind the RPC) for
 *    (a) a merchant-name contains, (b) an RE2 matches, (c) a 4-level
 *    and/or/not tree, and (c') the same shape with a branch the prefilter
 *    cannot translate, so every row is read and judged: median, fastest and
 *    slowest of `--runs` runs after one warm-up, and the benchmark process's
 *    CPU time. Targets: (a) < 1 s, (b) and (c) < 2 s.
 * 2. The sync pipeline with 200 enabled rules: `--n` transactions copied
 *    from the stored ones, imported into a fresh account in pages of
 *    `--page`, each page in its own database transaction as the sync engine
 *    runs it: the importer's insert (not timed), then applyRulesOnSync
 *    (timed: loading and locking, 200 rules per transaction, writing the
 *    changes, annotations and hit counts). Then the rules alone on the same
 *    transactions, in memory. Target: at least 20,000 transactions/s.
 *    Everything the run adds is removed afterwards.
 */
import { cpus, loadavg } from "node:os";
import { closeOrm, migrate, openOrm, type Em } from "../../services/db/orm.js";
import { pgArray, query } from "../../services/db/sql.js";
import type { Actor } from "../../services/ledger/actor.js";
import { insertTransactions } from "../../services/ledger/transactions/insert.js";
import { METADATA_LIMITS } from "../../services/ledger/transactions/metadata.js";
import { loadContexts } from "../../services/rules/context-loader.js";
import { firesOn, runPipeline } from "../../services/rules/engine/index.js";
import { previewRule } from "../../services/rules/preview.js";
import { loadReferenceMaps } from "../../services/rules/references.js";
import { createRule, loadEnabledRules } from "../../services/rules/rules.js";
import { applyRulesOnSync } from "../../services/rules/runner.js";
import { applyPage, type PageContext } from "../../services/sync/apply-page.js";
import type { ProviderTransaction } from "../../services/sync/providers/provider.js";
import { summarize } from "../stats.js";
import { arg, benchDatabaseUrl } from "../transactions/bench-db.js";

const RUNS = Number(arg("runs", "5"));
const N = Number(arg("n", "50000"));
const PAGE = Number(arg("page", "500"));
/** preview, pipeline or all. */
const PART = arg("part", "all");
const actor: Actor = { type: "system", id: null, keyId: null, name: "rules bench" };
const MARK = "bench-rule:";

const s = (ms: number) => `${(ms / 1000).toFixed(3)} s`;

/** or → and → or → not → leaf: four levels of combinators; `weekend` is the second branch's first test. */
function fourLevels(weekend: unknown) {
  return {
    or: [
      {
        and: [
          { field: "provider_name", op: "contains", value: "market" },
          {
            not: {
              or: [
                { field: "amount", op: "gt", value: 200 },
                { field: "pending", op: "eq", value: true },
              ],
            },
          },
        ],
      },
      {
        and: [
          weekend,
          {
            or: [
              { field: "provider_merchant_name", op: "contains", value: "coffee" },
              { not: { field: "tags", op: "contains", value: "business" } },
            ],
          },
        ],
      },
    ],
  };
}

const PREVIEWS: { label: string; target: number; conditions: unknown }[] = [
  {
    label: "(a) merchant contains",
    target: 1000,
    conditions: { field: "provider_merchant_name", op: "contains", value: "starbucks" },
  },
  {
    label: "(b) RE2 matches",
    target: 2000,
    conditions: { field: "provider_name", op: "matches", value: "^(UBER|LYFT) \\*(TRIP|RIDE|EATS)\\b" },
  },
  {
    label: "(c) 4-level and/or/not tree",
    target: 2000,
    conditions: fourLevels({ field: "day_of_week", op: "gte", value: 6 }),
  },
  {
    // The same shape with nothing the prefilter can translate in one branch: every row is read and judged.
    label: "(c') the same, not narrowable",
    target: 2000,
    conditions: fourLevels({ not: { field: "category", op: "eq", value: "food_and_drink_groceries" } }),
  },
];

async function benchPreviews(em: Em): Promise<void> {
  process.stdout.write(`\npreview_rule on the stored transactions (${RUNS} runs after 1 warm-up)\n`);
  process.stdout.write(
    "| scenario | median | fastest | slowest | Node CPU (median) | match_count | total_scanned | target |\n",
  );
  process.stdout.write("|---|---:|---:|---:|---:|---:|---:|---|\n");
  for (const p of PREVIEWS) {
    const run = () => previewRule(em.fork(), { conditions: p.conditions, sampleSize: 10 }, { timeoutMs: 600_000 });
    const result = await run();
    const samples: number[] = [];
    const cpu: number[] = [];
    for (let i = 0; i < RUNS; i++) {
      const c0 = process.cpuUsage();
      const t0 = performance.now();
      await run();
      samples.push(performance.now() - t0);
      const c = process.cpuUsage(c0);
      cpu.push((c.user + c.system) / 1000);
    }
    const st = summarize(samples);
    const pass = st.median < p.target ? "met" : "MISSED";
    process.stdout.write(
      `| ${p.label} | ${s(st.median)} | ${s(st.min)} | ${s(st.max)} | ${s(summarize(cpu).median)} | ` +
        `${result.matchCount} | ` +
        `${result.totalScanned} | < ${p.target / 1000} s: ${pass} |\n`,
    );
  }
}

/** 199 rules as a household might have them, beside the built-in one: 200 enabled in all. */
function ruleSpecs(merchants: { raw: string; merchant: string | null; category: string | null }[]) {
  const specs: { conditions: unknown; actions: unknown[]; trigger?: string; priority?: number }[] = [];
  const tags = ["vacation", "business", "reimbursable", "gift", "tax_deductible"];
  for (const [i, m] of merchants.entries()) {
    const word = m.raw.split(/[^A-Za-z]+/).find((w) => w.length > 2) ?? m.raw;
    if (m.category) {
      specs.push({
        conditions: { field: "provider_name", op: "contains", value: word.toLowerCase() },
        actions: [{ type: "set_category", category_slug: m.category }],
      });
    }
    if (m.merchant) {
      specs.push({
        conditions: { field: "provider_merchant_name", op: "eq", value: m.merchant },
        actions: [{ type: "add_tag", tag_slug: tags[i % tags.length] }],
        priority: 150,
      });
    }
  }
  const patterns = [
    "^(UBER|LYFT) \\*",
    "(?i)coffee|espresso",
    "#\\d{4} ",
    "(?i)^amazon",
    "GMBH$",
    "\\bPAYMENT\\b",
    "(?i)refund",
    "^[A-Z]+ [A-Z]+ #",
    "(?i)netflix|spotify|disney",
    "WA$|OR$",
  ];
  for (const [i, re] of patterns.entries()) {
    specs.push({
      conditions: { field: "provider_name", op: "matches", value: re },
      actions: [{ type: "set_metadata", key: `pattern_${i}`, value: true }],
      priority: 120,
    });
    specs.push({
      conditions: { field: "provider_merchant_name", op: "matches", value: re },
      actions: [{ type: "add_tag", tag_slug: tags[i % tags.length] }],
      priority: 130,
    });
  }
  specs.push(
    { conditions: { field: "amount", op: "gt", value: 1000 }, actions: [{ type: "flag", reason: "large" }] },
    {
      conditions: { field: "amount", op: "between", min: -10, max: -0.01 },
      actions: [{ type: "add_tag", tag_slug: "gift" }],
    },
    {
      conditions: { field: "amount", op: "approx", value: 15.49, tolerance: 0.01 },
      actions: [{ type: "set_metadata", key: "subscription", value: "netflix" }],
    },
    {
      conditions: { field: "day_of_month", op: "eq", value: 1 },
      actions: [{ type: "set_metadata", key: "first", value: 1 }],
    },
    {
      conditions: { field: "pending", op: "eq", value: true },
      actions: [{ type: "add_tag", tag_slug: "reimbursable" }],
    },
    {
      conditions: {
        and: [
          { field: "category", op: "eq", value: "food_and_drink_coffee" },
          { field: "amount", op: "lt", value: 5 },
        ],
      },
      actions: [{ type: "set_metadata", key: "small_coffee", value: true }],
      priority: 300,
    },
    {
      conditions: {
        and: [
          { field: "tags", op: "contains", value: "vacation" },
          { field: "month", op: "between", min: 6, max: 8 },
        ],
      },
      actions: [{ type: "flag" }],
      priority: 300,
    },
  );
  // Rules for merchants this household no longer sees: judged on every transaction, never matching.
  for (let i = 0; specs.length < 199; i++) {
    specs.push({
      conditions: {
        or: [
          { field: "provider_name", op: "contains", value: `old shop ${i}` },
          { field: "provider_merchant_name", op: "eq", value: `Old Shop ${i}` },
        ],
      },
      actions: [{ type: "set_category", category_slug: "general_merchandise_other" }],
    });
  }
  return specs.slice(0, 199);
}

async function benchPipeline(em: Em): Promise<void> {
  const merchants = await query<{ raw: string; merchant: string | null; category: string | null }>(
    em,
    `select distinct on (m) split_part(provider_name, ' #', 1) as raw, provider_merchant_name as merchant,
       c.slug as category, coalesce(provider_merchant_name, split_part(provider_name, ' #', 1)) as m
     from (select * from transactions tablesample system (1)) t left join categories c on c.id = t.category_id
     where provider_merchant_name is not null or category_id is not null`,
  );
  const specs = ruleSpecs(merchants);
  const [builtIn] = await query<{ id: string; enabled: boolean; hit_count: string; last_hit_at: string | null }>(
    em,
    `select id, enabled, hit_count::text, last_hit_at::text from rules where created_by_type = 'system'`,
  );
  await query(em, `update rules set enabled = false where created_by_type <> 'system' and name not like ?`, [
    `${MARK}%`,
  ]);
  await query(em, `update rules set enabled = true where id = ?`, [builtIn.id]);
  for (const [i, spec] of specs.entries()) {
    await createRule(em.fork(), actor, { name: `${MARK}${i}`, ...spec });
  }
  // As autovacuum keeps a long-lived database (earlier runs leave dead rule rows behind).
  await query(em, `vacuum analyze rules`);
  const [{ n: enabled }] = await query<{ n: string }>(em, `select count(*)::text as n from rules where enabled`);

  const [user] = await query<{ id: string }>(em, `select id from users order by created_at limit 1`);
  const accountId = crypto.randomUUID();
  await query(
    em,
    `insert into accounts (id, short_id, user_id, name, type, iso_currency_code)
     values (?, 'benchRul', ?, 'Rules bench', 'depository', 'USD')`,
    [accountId, user.id],
  );
  const source = await query<{
    provider_name: string;
    provider_merchant_name: string | null;
    amount: string;
    date: string;
    provider_category_primary: string | null;
    pending: boolean;
  }>(
    em,
    `select provider_name, provider_merchant_name, amount::text, to_char(date, 'YYYY-MM-DD') as date,
       provider_category_primary, pending
     from transactions where deleted_at is null order by random() limit ?`,
    [N],
  );
  const items = source.map((t, i) => ({
    accountId,
    amount: t.amount,
    isoCurrencyCode: "USD",
    date: t.date,
    provider: "csv",
    providerTransactionId: `rules-bench-${i}`,
    providerName: t.provider_name,
    providerMerchantName: t.provider_merchant_name,
    providerCategoryPrimary: t.provider_category_primary,
    pending: t.pending,
  }));
  const ids: string[] = [];
  try {
    // As a sync page does it: insert the page, then run the pipeline on it, in one database transaction.
    let insertMs = 0;
    let ms = 0;
    let matched = 0;
    let changed = 0;
    const statements = timeStatements(em);
    for (let i = 0; i < items.length; i += PAGE) {
      await em.fork().transactional(async (tx) => {
        const t0 = performance.now();
        const page = await insertTransactions(tx, items.slice(i, i + PAGE));
        const t1 = performance.now();
        statements.on = true;
        const r = await applyRulesOnSync(tx, { created: page, changed: [] }, actor);
        statements.on = false;
        ms += performance.now() - t1;
        insertMs += t1 - t0;
        ids.push(...page);
        matched += r.matched;
        changed += r.changed;
      });
    }
    statements.restore();
    const [{ n: notes }] = await query<{ n: string }>(
      em,
      `select count(*)::text as n from annotations where transaction_id = any(?::uuid[])`,
      [pgArray(ids)],
    );
    const rate = (t: number) => Math.round(ids.length / (t / 1000));
    const sqlMs = [...statements.byKind.values()].reduce((a, b) => a + b, 0);
    process.stdout.write(
      `\nsync pipeline: ${enabled} enabled rules, ${ids.length} new transactions in pages of ${PAGE}, ` +
        `each page in one database transaction\n` +
        `  the importer's own insert of the pages (for scale): ${s(insertMs)}: ${rate(insertMs)} transactions/s\n` +
        `  applyRulesOnSync (read, 200 rules, write, annotate, count hits): ${s(ms)}: ${rate(ms)} transactions/s ` +
        `(target >= 20000: ${rate(ms) >= 20000 ? "met" : "MISSED"})\n` +
        `    of which SQL ${s(sqlMs)}: ` +
        [...statements.byKind]
          .sort((a, b) => b[1] - a[1])
          .map(([k, v]) => `${k} ${s(v)}`)
          .join(", ") +
        `; the rest (rules, building rows and annotations) ${s(ms - sqlMs)}\n` +
        `  ${matched} matched at least one rule, ${changed} changed, ${notes} annotations written\n`,
    );
    // The same pages again as changed by the provider: the rules already ran, so little changes and the
    // cost is reading, judging and counting hits (the built-in on_create rule does not fire).
    let againMs = 0;
    let againChanged = 0;
    for (let i = 0; i < ids.length; i += PAGE) {
      await em.fork().transactional(async (tx) => {
        const t0 = performance.now();
        const r = await applyRulesOnSync(tx, { created: [], changed: ids.slice(i, i + PAGE) }, actor);
        againMs += performance.now() - t0;
        againChanged += r.changed;
      });
    }
    process.stdout.write(
      `  the same transactions again as changed (${againChanged} changed): ${s(againMs)}: ` +
        `${rate(againMs)} transactions/s\n`,
    );
    await benchEvaluation(em, ids);
    await benchSyncPath(em, source, user.id);
  } finally {
    await query(em, `delete from transaction_versions where id = any(?::uuid[])`, [pgArray(ids)]);
    await query(em, `delete from transactions where account_id = ?`, [accountId]);
    await query(em, `delete from accounts where id = ?`, [accountId]);
    await query(em, `delete from rules where name like ?`, [`${MARK}%`]);
    await query(em, `update rules set enabled = ?, hit_count = ?, last_hit_at = ?::timestamptz where id = ?`, [
      builtIn.enabled,
      builtIn.hit_count,
      builtIn.last_hit_at,
      builtIn.id,
    ]);
    // Leave no dead rows behind for the next run (autovacuum would, in its own time).
    await query(em, `vacuum analyze rules, annotations, transactions, transaction_versions`);
  }
}

/**
 * The rules in the sync path: the same transactions as provider rows, committed by the sync engine's
 * applyPage in pages of `--page` (upsert, carry-over, removals, cursor, sync log, and the rules in the
 * same database transaction). Once with every rule disabled and once with the 200 enabled, as new
 * rows; then the rows again as modified by the provider (new amounts) with the 200 rules. The
 * rules' cost in the sync path is the difference between the two runs of new rows.
 */
async function benchSyncPath(
  em: Em,
  source: {
    provider_name: string;
    provider_merchant_name: string | null;
    amount: string;
    date: string;
    provider_category_primary: string | null;
    pending: boolean;
  }[],
  userId: string,
): Promise<void> {
  const connectionId = crypto.randomUUID();
  const accountId = crypto.randomUUID();
  const syncLogId = crypto.randomUUID();
  await query(
    em,
    `insert into connections (id, short_id, user_id, provider, credentials, cursor)
     values (?, 'benchSyn', ?, 'plaid', '\\x00'::bytea, null)`,
    [connectionId, userId],
  );
  await query(
    em,
    `insert into accounts (id, short_id, user_id, connection_id, provider, provider_account_id, name, type,
       iso_currency_code)
     values (?, 'benchSyA', ?, ?, 'plaid', 'bench-acc', 'Sync bench', 'depository', 'USD')`,
    [accountId, userId, connectionId],
  );
  await query(
    em,
    `insert into sync_logs (id, short_id, connection_id, trigger, status)
     values (?, 'benchSyL', ?, 'manual', 'running')`,
    [syncLogId, connectionId],
  );
  const ctx: PageContext = {
    connectionId,
    provider: "plaid",
    syncLogId,
    cursorBefore: null,
    accounts: new Map([["bench-acc", { id: accountId, isoCurrencyCode: "USD" }]]),
    categoryOf: () => null,
    actor,
    loggedSkips: 0,
  };
  const rows = (prefix: string, cents = 0): ProviderTransaction[] =>
    source.map((t, i) => ({
      providerAccountId: "bench-acc",
      providerTransactionId: `${prefix}-${i}`,
      amount: cents === 0 ? t.amount : ((Math.round(Number(t.amount) * 100) + cents) / 100).toFixed(2),
      isoCurrencyCode: "USD",
      date: t.date,
      authorizedDate: null,
      name: t.provider_name,
      merchantName: t.provider_merchant_name,
      categoryPrimary: t.provider_category_primary,
      categoryDetailed: null,
      pending: t.pending,
      pendingTransactionId: null,
    }));
  let cursor = 0;
  const sync = async (list: ProviderTransaction[], kind: "added" | "modified") => {
    const statements = timeStatements(em);
    statements.on = true;
    let ms = 0;
    const totals = { matched: 0, changed: 0 };
    for (let i = 0; i < list.length; i += PAGE) {
      const page = list.slice(i, i + PAGE);
      const t0 = performance.now();
      const r = await applyPage(em.fork(), ctx, {
        added: kind === "added" ? page : [],
        modified: kind === "modified" ? page : [],
        removed: [],
        windows: [],
        skipped: [],
        nextCursor: String(++cursor),
      });
      ms += performance.now() - t0;
      ctx.cursorBefore = String(cursor);
      totals.matched += r.rules.matched;
      totals.changed += r.rules.changed;
    }
    statements.restore();
    const sql = [...statements.byKind]
      .sort((a, b) => b[1] - a[1])
      .map(([k, v]) => `${k} ${s(v)}`)
      .join(", ");
    return { ms, ...totals, sql };
  };
  const enabled = await query<{ id: string }>(em, `select id from rules where enabled`);
  const enable = () =>
    query(em, `update rules set enabled = true where id = any(?::uuid[])`, [pgArray(enabled.map((r) => r.id))]);
  try {
    await query(em, `update rules set enabled = false`);
    const bare = await sync(rows("sync-bare"), "added");
    const bareModified = await sync(rows("sync-bare", 1), "modified");
    await enable();
    const ruled = await sync(rows("sync-ruled"), "added");
    const modified = await sync(rows("sync-ruled", 1), "modified");
    const rate = (ms: number) => Math.round(source.length / (ms / 1000));
    const line = (label: string, r: Awaited<ReturnType<typeof sync>>, rules: boolean) =>
      `  ${label}: ${s(r.ms)}: ${rate(r.ms)} transactions/s` +
      (rules ? ` (${r.matched} matched a rule, ${r.changed} changed)` : "") +
      `\n    SQL: ${r.sql}\n`;
    const share = (label: string, extra: number) =>
      `  ${label}: ${s(extra)}: ${rate(extra)} transactions/s ` +
      `(target >= 20000: ${rate(extra) >= 20000 ? "met" : "MISSED"})\n`;
    process.stdout.write(
      `\nsync path (applyPage, pages of ${PAGE}), ${source.length} transactions each run:\n` +
        line("new rows, every rule disabled", bare, false) +
        line(`new rows, ${enabled.length} rules`, ruled, true) +
        share("  the rules' share on new rows", ruled.ms - bare.ms) +
        line("the same rows modified by the provider (new amounts), every rule disabled", bareModified, false) +
        line(`the same rows modified by the provider, ${enabled.length} rules`, modified, true) +
        share("  the rules' share on modified rows", modified.ms - bareModified.ms),
    );
  } finally {
    await enable();
    const ids = await query<{ id: string }>(em, `select id from transactions where account_id = ?`, [accountId]);
    await query(em, `delete from transaction_versions where id = any(?::uuid[])`, [pgArray(ids.map((r) => r.id))]);
    await query(em, `delete from transactions where account_id = ?`, [accountId]);
    await query(em, `delete from accounts where id = ?`, [accountId]);
    await query(em, `delete from sync_logs where id = ?`, [syncLogId]);
    await query(em, `delete from connections where id = ?`, [connectionId]);
  }
}

/** Time spent in SQL while `on`, by kind of statement (wraps the ORM's connection for the benchmark). */
function timeStatements(em: Em) {
  const conn = em.getConnection() as unknown as { execute: (...args: unknown[]) => Promise<unknown> };
  const original = conn.execute;
  const kinds: [RegExp, string][] = [
    [/^\s*update transactions/, "updating rows"],
    [/^\s*insert into transactions/, "upserting rows"],
    [/^\s*select t\.account_id, t\.provider_transaction_id/, "stored keys"],
    [/^\s*insert into annotations/, "annotations"],
    [/^\s*select t\.short_id/, "reading rows"],
    [/^\s*select r\.id/, "reading rules"],
    [/rules/, "hit counts"],
  ];
  const timer = {
    on: false,
    byKind: new Map<string, number>(),
    restore: () => {
      conn.execute = original;
    },
  };
  conn.execute = async (...args: unknown[]) => {
    const t0 = performance.now();
    try {
      return await original.apply(conn, args);
    } finally {
      if (timer.on) {
        const kind = kinds.find(([re]) => re.test(String(args[0])))?.[1] ?? "other";
        timer.byKind.set(kind, (timer.byKind.get(kind) ?? 0) + performance.now() - t0);
      }
    }
  };
  return timer;
}

/**
 * The pipeline alone: the same transactions' contexts loaded once (not timed), then the 200 rules
 * run on each in memory, as applyRulesOnSync does between reading and writing.
 */
async function benchEvaluation(em: Em, ids: string[]): Promise<void> {
  const maps = await loadReferenceMaps(em);
  const rules = (await loadEnabledRules(em, maps)).rules.filter((r) => firesOn(r.trigger, "create"));
  const loaded = [];
  for (let i = 0; i < ids.length; i += 1000) loaded.push(...(await loadContexts(em, ids.slice(i, i + 1000), maps)));
  const limits = { maxMetadataKeys: METADATA_LIMITS.maxKeys, maxMetadataBytes: METADATA_LIMITS.maxBytes };
  const samples: number[] = [];
  for (let run = 0; run < RUNS + 1; run++) {
    const t0 = performance.now();
    for (const t of loaded) runPipeline(rules, t.context, t.state, limits);
    if (run > 0) samples.push(performance.now() - t0);
  }
  const st = summarize(samples);
  process.stdout.write(
    `  the rules alone (${rules.length} rules on ${loaded.length} loaded contexts, median of ${RUNS}): ` +
      `${s(st.median)}: ${Math.round(loaded.length / (st.median / 1000))} transactions/s\n`,
  );
}

async function main() {
  const url = benchDatabaseUrl();
  const orm = await openOrm(url, 4);
  try {
    await migrate(orm);
    const em = orm.em.fork();
    const [{ n }] = await query<{ n: string }>(
      em,
      `select count(*)::text as n from transactions where deleted_at is null`,
    );
    if (Number(n) === 0) throw new Error("the bench database is empty: run npm run bench:generate first");
    process.stdout.write(
      `rules benchmark on ${new URL(url).pathname.slice(1)}: ${n} transactions; ${cpus().length} CPUs, ` +
        `load average ${loadavg()
          .map((x) => x.toFixed(2))
          .join(" ")}\n`,
    );
    if (PART !== "pipeline") await benchPreviews(em);
    if (PART !== "preview") await benchPipeline(em);
  } finally {
    await closeOrm(orm);
  }
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
