/**
 * Names and directions for the detector's groups: a group is a counterparty
 * when one is set, otherwise the merchant's name (or the bank's text when
 * there is none) in the normal form below; always apart by currency and by
 * direction (money out, money in). Its key reads `cp:<counterparty id>` or
 * `name:<normal form>`, then `|<currency>|out` or `|in`.
 */

/** Payment processors' prefixes on card statements: "SQ *BLUE BOTTLE", "TST* ZUNI CAFE". */
const PROCESSOR_PREFIX = /^(sq|tst|sp|pp|paypal|py|ic|dd)\s*\*\s*/;

/**
 * A merchant name in one form: lower case, accents dropped, a processor's
 * prefix dropped, and anything but letters (store numbers, references,
 * punctuation) turned into single spaces. "STARBUCKS STORE #05512" and
 * "Starbucks Store 1234" are both "starbucks store".
 */
export function normalizeMerchant(raw: string): string {
  const lower = raw
    .toLowerCase()
    .normalize("NFKD")
    .replace(/[\u0300-\u036f]/g, "");
  const letters = lower
    .replace(PROCESSOR_PREFIX, "")
    .replace(/[^a-z]+/g, " ")
    .trim();
  return letters || lower.trim();
}

export type Direction = "out" | "in";

/** Money out (positive amounts) or money in (negative). */
export const directionOf = (cents: number): Direction => (cents < 0 ? "in" : "out");
