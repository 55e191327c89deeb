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
  /** YYYY-MM-DD; the date parts are derived from it. */
  date?: string;
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
  /** Lower-cased string fields, filled on first use (string comparisons are case-insensitive). */
  lowered?: Record<string, string>;
}

/** The lower-cased form of a string field of this context, computed once per context and field. */
export function loweredField(ctx: TransactionContext, key: string, raw: string): string {
  const cache = (ctx.lowered ??= {});
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

const DAY_MS = 86_400_000;

function dateParts(date: string): { y: number; m: number; d: number } {
  return { y: Number(date.slice(0, 4)), m: Number(date.slice(5, 7)), d: Number(date.slice(8, 10)) };
}

/** 1..31 */
export const dayOfMonth = (date: string) => dateParts(date).d;
/** 1..12 */
export const monthOf = (date: string) => dateParts(date).m;
/** ISO weekday: 1 = Monday … 7 = Sunday. */
export function dayOfWeek(date: string): number {
  const { y, m, d } = dateParts(date);
  const wd = new Date(Date.UTC(y, m - 1, d)).getUTCDay();
  return wd === 0 ? 7 : wd;
}
/** 1..366 */
export function dayOfYear(date: string): number {
  const { y, m, d } = dateParts(date);
  return (Date.UTC(y, m - 1, d) - Date.UTC(y, 0, 1)) / DAY_MS + 1;
}
