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
  /** The transaction date as days since 1970-01-01 (common/days.ts); the date parts come from it. */
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
