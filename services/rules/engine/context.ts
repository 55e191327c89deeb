/**
 * What a condition is judged against: one transaction's values, by field.
 * The context loader (services/rules/context-loader.ts) builds these from
 * rows; the pipeline changes the mutable ones as rules act.
 *
 * A field that is `undefined` is unknown: find_matching_rules with a merchant
 * name builds a context holding only the two name fields, and a condition on
 * any other field is then neither true nor false (see evaluate.ts). A full
 * context from a stored transaction has every field; absent provider values
 * are null, which string operators read as "".
 */
export interface TransactionContext {
  // Raw, immutable after import.
  providerName?: string;
  providerMerchantName?: string | null;
  /** The amount in integer cents (NUMERIC(12,2) fits a double exactly). */
  amountCents?: number;
  providerCategoryPrimary?: string | null;
  providerCategoryDetailed?: string | null;
  pending?: boolean;
  provider?: string;
  // Stable surrogates: short ids.
  accountId?: string;
  userId?: string;
  /** The transaction date as days since 1970-01-01 (epochDay("YYYY-MM-DD")); the date parts come from it. */
  day?: number;
  // Mutable display values; the pipeline updates them as earlier rules act.
  accountName?: string;
  userName?: string;
  /** The assigned category's slug, "uncategorized" when none. */
  category?: string;
  /** Tag slugs. */
  tags?: readonly string[];
  /** The recurring series' short id, "" when none. */
  series?: string;
  inSeries?: boolean;
  /** The counterparty's name, null when none. */
  counterparty?: string | null;
  metadata?: Readonly<Record<string, unknown>>;
  /** Lower-cased string fields, filled on first use when present (string comparisons are case-insensitive). */
  lowered?: Record<string, string>;
}

/**
 * The lower-cased form of a string field. A context with a `lowered` cache
 * (the pipeline's working copy, judged by many rules) computes each once;
 * one judged once (a row of a scan) just lower-cases it.
 */
export function loweredField(ctx: TransactionContext, key: string, raw: string): string {
  const cache = ctx.lowered;
  if (cache === undefined) return raw.toLowerCase();
  let v = cache[key];
  if (v === undefined) {
    v = raw.toLowerCase();
    cache[key] = v;
  }
  return v;
}

/** Forget cached lower-cased values of fields the pipeline just changed. */
export function forgetLowered(ctx: TransactionContext, key: string): void {
  if (ctx.lowered) delete ctx.lowered[key];
}

/*
 * Date parts from the day number, by arithmetic alone (a scan computes them
 * for a million rows): H. Hinnant's civil-from-days for the proleptic
 * Gregorian calendar.
 */

/** Days since 1970-01-01 of a "YYYY-MM-DD" date. */
export function epochDay(date: string): number {
  return Date.UTC(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10))) / 86_400_000;
}

/** "YYYY-MM-DD" of a day number. */
export const dateOfDay = (day: number): string => new Date(day * 86_400_000).toISOString().slice(0, 10);

/** Year, month and day of a day number, packed as y * 10000 + m * 100 + d. */
function civil(day: number): number {
  const z = day + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  return y * 10_000 + m * 100 + d;
}

/** 1..31 */
export const dayOfMonth = (day: number) => civil(day) % 100;
/** 1..12 */
export const monthOf = (day: number) => Math.floor(civil(day) / 100) % 100;
/** ISO weekday: 1 = Monday … 7 = Sunday (day 0, 1970-01-01, was a Thursday). */
export const dayOfWeek = (day: number) => ((((day + 3) % 7) + 7) % 7) + 1;
/** 1..366 */
export function dayOfYear(day: number): number {
  const year = Math.floor(civil(day) / 10_000);
  return day - Date.UTC(year, 0, 1) / 86_400_000 + 1;
}
