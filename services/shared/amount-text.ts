import { CofferError } from "../errors/coffer-error.js";
import { canonicalAmount } from "./validate.js";

/**
 * Amounts that arrive from outside as text or JSON numbers, turned into
 * Coffer's canonical decimal strings without float arithmetic. Each returns
 * null for a value that is not an exact NUMERIC(12,2) amount, so a caller
 * can skip and report that one row instead of failing the whole batch.
 */

/** The canonical amount ("12.30"), or null when `raw` has more than 2 decimals, an exponent or too many digits. */
export function tryCanonicalAmount(raw: string): string | null {
  try {
    return canonicalAmount(raw);
  } catch (err) {
    if (err instanceof CofferError) return null;
    throw err;
  }
}

/**
 * A JSON number as a canonical amount. `String(n)` is the shortest decimal
 * text that reads back as the same double (12.3 → "12.3", never
 * "12.300000000000001"), which is exactly what the sender wrote when the
 * sender wrote at most 17 significant digits. Anything written with an
 * exponent or with more than 2 decimals is refused, not rounded.
 */
export function amountFromJsonNumber(n: unknown): string | null {
  if (typeof n !== "number" || !Number.isFinite(n)) return null;
  const text = String(n);
  if (/e/i.test(text)) return null;
  return tryCanonicalAmount(text);
}

/** The opposite of a canonical amount: "12.30" ↔ "-12.30"; "0.00" stays "0.00". */
export function negateAmount(canonical: string): string {
  if (canonical.startsWith("-")) return canonical.slice(1);
  return /^0+(\.0*)?$/.test(canonical) ? canonical : `-${canonical}`;
}
