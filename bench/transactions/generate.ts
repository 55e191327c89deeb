/**
 * Fills the benchmark database with N transactions (default 1,000,000):
 *   npm run bench:generate -- --n 1000000
 *
 * The database (see bench-db.ts) is dropped, recreated and migrated, then one
 * INSERT ... SELECT generate_series writes a household: 2 people, 6 accounts
 * (USD and EUR), ~3 years of dates, ~50 merchants with bank-style raw names
 * ("STARBUCKS STORE #4821 SEATTLE WA") so a search term hits a few percent,
 * seeded categories (10% left uncategorized), a few tags, a few pending rows.
 * Secondary indexes are dropped for the load and rebuilt after it, then the
 * table is vacuumed and analyzed, as a long-lived database would be.
 */
import pg from "pg";
import { migrate, openOrm } from "../../services/db/orm.js";
import { adminUrlOf, arg, benchDatabaseUrl, dbNameOf } from "./bench-db.js";

/** [raw bank text, merchant name or null, category slug or null, min amount, max amount]; negative = money in. */
const MERCHANTS: [string, string | null, string | null, number, number][] = [
  ["STARBUCKS STORE #", "Starbucks", "food_and_drink_coffee", 3, 9],
  ["BLUE BOTTLE COFFEE", "Blue Bottle Coffee", "food_and_drink_coffee", 4, 12],
  ["PEETS COFFEE", "Peet's Coffee", "food_and_drink_coffee", 3, 10],
  ["WHOLEFDS MKT", "Whole Foods Market", "food_and_drink_groceries", 15, 220],
  ["TRADER JOE S #", "Trader Joe's", "food_and_drink_groceries", 12, 160],
  ["SAFEWAY #", "Safeway", "food_and_drink_groceries", 10, 180],
  ["REWE MARKT", "REWE", "food_and_drink_groceries", 8, 120],
  ["ALDI SUED", "Aldi", "food_and_drink_groceries", 6, 90],
  ["COSTCO WHSE #", "Costco", "food_and_drink_groceries", 40, 400],
  ["CHIPOTLE ONLINE", "Chipotle", "food_and_drink_restaurants", 9, 35],
  ["SQ *THE LOCAL BISTRO", "The Local Bistro", "food_and_drink_restaurants", 25, 140],
  ["PIZZERIA NAPOLI", null, "food_and_drink_restaurants", 14, 70],
  ["DOORDASH*ORDER", "DoorDash", "food_and_drink_delivery", 18, 75],
  ["UBER *EATS", "Uber Eats", "food_and_drink_delivery", 15, 70],
  ["LIEFERANDO.DE", "Lieferando", "food_and_drink_delivery", 12, 60],
  ["SHELL OIL", "Shell", "transportation_fuel", 25, 95],
  ["CHEVRON #", "Chevron", "transportation_fuel", 25, 100],
  ["ARAL STATION", "Aral", "transportation_fuel", 30, 110],
  ["UBER *TRIP", "Uber", "transportation_taxi_and_rideshare", 8, 60],
  ["LYFT *RIDE", "Lyft", "transportation_taxi_and_rideshare", 8, 55],
  ["BART CLIPPER", "Clipper", "transportation_public_transit", 2, 50],
  ["DB VERTRIEB GMBH", "Deutsche Bahn", "transportation_public_transit", 5, 150],
  ["AMAZON MKTPLACE PMTS", "Amazon", "general_merchandise_online", 5, 300],
  ["AMZN DIGITAL", "Amazon", "entertainment_other", 1, 20],
  ["TARGET #", "Target", "general_merchandise_other", 8, 200],
  ["IKEA", "IKEA", "home_furniture", 20, 900],
  ["HOME DEPOT #", "The Home Depot", "home_hardware", 10, 400],
  ["BEST BUY #", "Best Buy", "general_merchandise_electronics", 20, 1200],
  ["ZARA", "Zara", "general_merchandise_clothing", 20, 180],
  ["NETFLIX.COM", "Netflix", "entertainment_streaming", 15.49, 15.49],
  ["SPOTIFY", "Spotify", "entertainment_streaming", 10.99, 10.99],
  ["DISNEY PLUS", "Disney+", "entertainment_streaming", 7.99, 13.99],
  ["TICKETMASTER", "Ticketmaster", "entertainment_events", 40, 350],
  ["CVS/PHARMACY #", "CVS Pharmacy", "medical_pharmacy", 5, 80],
  ["ROSSMANN", "Rossmann", "personal_care_hair_and_beauty", 4, 45],
  ["PLANET FITNESS", "Planet Fitness", "personal_care_gym", 24.99, 24.99],
  ["PG&E WEB PAYMENT", "PG&E", "rent_and_utilities_electricity", 60, 240],
  ["COMCAST CABLE", "Comcast", "rent_and_utilities_internet_and_phone", 70, 120],
  ["VODAFONE GMBH", "Vodafone", "rent_and_utilities_internet_and_phone", 30, 60],
  ["RENT PAYMENT ZELLE", null, "rent_and_utilities_rent", 1800, 2600],
  ["GEICO AUTO", "GEICO", "services_insurance", 90, 180],
  ["UNITED AIRLINES", "United Airlines", "travel_flights", 120, 900],
  ["MARRIOTT HOTELS", "Marriott", "travel_lodging", 140, 700],
  ["AIRBNB * HM", "Airbnb", "travel_lodging", 90, 900],
  ["ATM WITHDRAWAL", null, "bank_fees_atm", 20, 300],
  ["CHECKCARD MISC POS", null, null, 2, 150],
  ["VENMO PAYMENT", "Venmo", null, 5, 250],
  ["ACME CORP PAYROLL", "Acme Corp", "income_salary", -5200, -3900],
  ["INTEREST PAYMENT", null, "income_interest", -30, -0.5],
  ["AMAZON REFUND", "Amazon", "income_refunds", -200, -5],
];

const ACCOUNTS: [user: number, name: string, type: string, currency: string][] = [
  [0, "Everyday Checking", "depository", "USD"],
  [0, "Sapphire Card", "credit", "USD"],
  [0, "High-Yield Savings", "depository", "USD"],
  [1, "Joint Checking", "depository", "USD"],
  [1, "Girokonto", "depository", "EUR"],
  [1, "Kreditkarte", "credit", "EUR"],
];

const CITIES = [
  "SEATTLE WA",
  "SAN FRANCISCO CA",
  "OAKLAND CA",
  "NEW YORK NY",
  "BERLIN",
  "MUENCHEN",
  "PORTLAND OR",
  "AUSTIN TX",
];
const TAGS = ["vacation", "business", "reimbursable", "gift", "tax_deductible"];

const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";

/**
 * Unique 8-character short id for row i: x = i * p mod 62^8 is a bijection
 * (the prime p is coprime to 62^8), written in base62. Plain bigint math.
 */
const SHORT_ID_SQL = Array.from(
  { length: 8 },
  (_, k) => `substr('${BASE62}', 1 + (r.x / ${62n ** BigInt(k)} % 62)::int, 1)`,
).join(" || ");

async function main() {
  const n = Number(arg("n", "1000000"));
  if (!Number.isInteger(n) || n < 1) throw new Error("--n must be a positive integer");
  const url = benchDatabaseUrl();
  const name = dbNameOf(url);
  const log = (m: string) => process.stdout.write(`${new Date().toISOString().slice(11, 19)} ${m}\n`);
  const t0 = Date.now();

  const admin = new pg.Client({ connectionString: adminUrlOf(url) });
  await admin.connect();
  await admin.query(`drop database if exists "${name}" with (force)`);
  await admin.query(`create database "${name}"`);
  await admin.end();
  const orm = await openOrm(url, 2);
  await migrate(orm);
  await orm.close();
  log(`created and migrated ${name}`);

  const db = new pg.Client({ connectionString: url });
  await db.connect();
  try {
    await db.query(`set maintenance_work_mem = '1GB'`);
    await db.query(`set max_parallel_maintenance_workers = 2`);
    // The temp tables below have no statistics, so the planner would JIT-compile the load for seconds.
    await db.query(`set jit = off`);
    const users = [crypto.randomUUID(), crypto.randomUUID()];
    for (const [i, u] of users.entries()) {
      await db.query(`insert into users (id, short_id, name) values ($1, $2, $3)`, [
        u,
        `benchUs${i}`,
        i === 0 ? "Alex" : "Sam",
      ]);
    }
    await db.query(`create temp table bench_accounts (idx int, id uuid, currency text)`);
    for (const [i, [user, accName, type, currency]] of ACCOUNTS.entries()) {
      const id = crypto.randomUUID();
      await db.query(
        `insert into accounts (id, short_id, user_id, name, type, iso_currency_code) values ($1, $2, $3, $4, $5, $6)`,
        [id, `benchAc${i}`, users[user], accName, type, currency],
      );
      await db.query(`insert into bench_accounts values ($1, $2, $3)`, [i, id, currency]);
    }
    await db.query(`create temp table bench_tags (idx int, id uuid)`);
    for (const [i, slug] of TAGS.entries()) {
      const id = crypto.randomUUID();
      await db.query(`insert into tags (id, short_id, slug, display_name) values ($1, $2, $3, $4)`, [
        id,
        `benchTg${i}`,
        slug,
        slug,
      ]);
      await db.query(`insert into bench_tags values ($1, $2)`, [i, id]);
    }
    await db.query(
      `create temp table bench_merchants
         (idx int, raw text, merchant text, category_id uuid, primary_category text, lo numeric, hi numeric)`,
    );
    for (const [i, [raw, merchant, slug, lo, hi]] of MERCHANTS.entries()) {
      await db.query(
        `insert into bench_merchants values ($1, $2, $3, (select id from categories where slug = $4),
           upper(split_part(coalesce($4, 'other'), '_', 1)), $5, $6)`,
        [i, raw, merchant, slug, lo, hi],
      );
    }

    await db.query(`analyze bench_accounts, bench_tags, bench_merchants`);
    // Load without secondary indexes; rebuild them afterwards (much faster than maintaining them row by row).
    const { rows: indexes } = await db.query<{ name: string; def: string }>(
      `select indexrelid::regclass::text as name, pg_get_indexdef(indexrelid) as def from pg_index
       where indrelid = 'transactions'::regclass
         and not exists (select 1 from pg_constraint where conindid = indexrelid)`,
    );
    for (const ix of indexes) await db.query(`drop index ${ix.name}`);
    log(`dropped ${indexes.length} secondary indexes; inserting ${n} transactions`);

    const tInsert = Date.now();
    await db.query(
      `insert into transactions (id, short_id, account_id, amount, iso_currency_code, date, authorized_date, provider,
         provider_transaction_id, provider_name, provider_merchant_name, provider_category_primary, pending,
         category_id,
         category_source, tag_ids, created_at, updated_at)
       select gen_random_uuid(), ${SHORT_ID_SQL}, a.id,
         round(m.lo + (m.hi - m.lo) * r.amount_r::numeric, 2), a.currency, r.date, r.date - (r.auth_lag)::int, 'csv',
         'bench-' || i, m.raw || case when m.raw like '%#' then (1000 + (r.store * 8999)::int)::text else '' end
           || ' ' || (array[${CITIES.map((c) => `'${c}'`).join(",")}])
                       [1 + (r.city * ${CITIES.length})::int % ${CITIES.length}],
         case when r.has_merchant < 0.85 then m.merchant end,
         m.primary_category,
         r.date > current_date - 5 and r.pending_r < 0.6,
         case when r.categorized < 0.9 then m.category_id end,
         case when r.categorized < 0.9 and m.category_id is not null then 'rule' end,
         case when r.tag_r < 0.08
           then array[(select id from bench_tags where idx = (r.tag_r * 1000)::int % ${TAGS.length})]
              when r.tag_r < 0.09 then array(select id from bench_tags where idx in (0, 1))
              else '{}'::uuid[] end,
         now(), now()
       from generate_series(1, $1::int) i
       cross join lateral (select (i::bigint * 2654435761) % 218340105584896 as x, random() as merchant_r,
                                  random() as account_r, random() as amount_r,
         current_date - (random() * 1095)::int as date, random() * 3 as auth_lag, random() as store, random() as city,
         random() as has_merchant, random() as pending_r, random() as categorized, random() as tag_r
         where i is not null offset 0) r
       join bench_merchants m on m.idx = (r.merchant_r * ${MERCHANTS.length})::int % ${MERCHANTS.length}
       join bench_accounts a on a.idx = (r.account_r * ${ACCOUNTS.length})::int % ${ACCOUNTS.length}`,
      [n],
    );
    log(`inserted in ${((Date.now() - tInsert) / 1000).toFixed(1)} s; rebuilding indexes`);

    const tIndex = Date.now();
    for (const ix of indexes) await db.query(ix.def);
    log(`rebuilt ${indexes.length} indexes in ${((Date.now() - tIndex) / 1000).toFixed(1)} s; vacuum analyze`);
    await db.query(`vacuum analyze transactions`);
    await db.query(`analyze`);
    const { rows } = await db.query<{ n: string; size: string }>(
      `select count(*)::text as n, pg_size_pretty(pg_total_relation_size('transactions')) as size from transactions`,
    );
    log(`done: ${rows[0].n} transactions (${rows[0].size} with indexes) in ${((Date.now() - t0) / 1000).toFixed(1)} s`);
  } finally {
    await db.end();
  }
}

main().catch((e) => {
  process.stderr.write(`${e instanceof Error ? e.stack : String(e)}\n`);
  process.exit(1);
});
