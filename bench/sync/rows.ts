/** One generated bank row: what a CSV line says, and the provider id the CSV provider gives it. */
export interface BenchRow {
  date: string;
  amount: string;
  description: string;
  /** Unique per row (the CSV provider's fingerprint space is separate; the floor only needs a unique id). */
  key: string;
}

const MERCHANTS = [
  "STARBUCKS STORE #4821 SEATTLE WA",
  "AMAZON MKTPLACE PMTS AMZN.COM/BILL",
  "WHOLE FOODS MARKET #10233",
  "SHELL OIL 57442183 PORTLAND OR",
  "UBER *TRIP HELP.UBER.COM",
  "NETFLIX.COM 866-579-7172 CA",
  "TRADER JOE S #552 QPS",
  "CITY OF PORTLAND PARKING",
  "COMCAST CABLE COMM 800-COMCAST",
  "PAYROLL ACME CORP DIRECT DEP",
];

/** A small, seeded generator, so every run (and the floor) sees the very same rows. */
function prng(seed: number) {
  let s = seed >>> 0;
  return () => {
    s = (s * 1664525 + 1013904223) >>> 0;
    return s / 2 ** 32;
  };
}

/** `n` rows over three years, amounts as exact decimal text, money out negative (as banks export it). */
export function benchRows(n: number): BenchRow[] {
  const rand = prng(42);
  const start = Date.UTC(2023, 0, 1);
  const rows: BenchRow[] = [];
  for (let i = 0; i < n; i++) {
    const date = new Date(start + Math.floor(rand() * 3 * 365) * 86_400_000).toISOString().slice(0, 10);
    const m = Math.floor(rand() * MERCHANTS.length);
    const cents = 100 + Math.floor(rand() * 20_000);
    const out = m !== MERCHANTS.length - 1;
    const amount = `${out ? "-" : ""}${Math.floor(cents / 100)}.${String(cents % 100).padStart(2, "0")}`;
    rows.push({ date, amount, description: `${MERCHANTS[m]} ${i % 97}`, key: `row-${i}` });
  }
  return rows;
}

/** The rows as a bank's CSV export. */
export function benchCsv(rows: BenchRow[]): string {
  return ["Date,Description,Amount", ...rows.map((r) => `${r.date},"${r.description}",${r.amount}`)].join("\n");
}

/**
 * One row as the sync engine writes it into `transactions`: the floor inserts
 * exactly these columns for the same rows a source ingests, so the ratio
 * compares like with like (merchant names and categories cost index and
 * foreign-key work that a bare description does not).
 */
export interface FloorRow {
  ptid: string;
  amount: string;
  date: string;
  authorizedDate: string | null;
  name: string;
  merchant: string | null;
  primary: string | null;
  detailed: string | null;
  /** The taxonomy category the engine maps the provider's to, if any. */
  categorySlug: string | null;
  pending: boolean;
}

/** The CSV rows as the engine stores them: the description is the name; no merchant, no category. */
export function csvFloorRows(rows: BenchRow[]): FloorRow[] {
  return rows.map((r) => ({
    ptid: r.key,
    amount: r.amount,
    date: r.date,
    authorizedDate: null,
    name: r.description,
    merchant: null,
    primary: null,
    detailed: null,
    categorySlug: null,
    pending: false,
  }));
}
