/**
 * Money as text, defined once. Amounts travel as decimal strings end to end
 * and sums happen in SQL; where code must compare or add amounts itself it
 * works in integer cents, converted here digit by digit, never through a
 * float. The largest balance, 10^14 − 1 cents, is far below 2^53, so cents
 * held in a JS number are exact, and so is every sum of a few of them.
 */

/** An amount: NUMERIC(12,2), at most 10 digits before the point and 2 after. */
export const AMOUNT = /^-?\d{1,10}(\.\d{1,2})?$/;

/** An account balance: NUMERIC(14,2), at most 12 digits before the point and 2 after. */
export const BALANCE = /^-?\d{1,12}(\.\d{1,2})?$/;

const PARTS = /^(-?)(\d{1,12})(?:\.(\d{1,2}))?$/;

/**
 * The canonical text of an amount (or, with `pattern` BALANCE, a balance),
 * or null when `text` does not match it: "7" → "7.00", "-0.5" → "-0.50",
 * "007" → "7.00", "-0" → "0.00". Surrounding whitespace is ignored. One
 * spelling per value, so equal amounts compare and hash equal as text.
 */
export function canonicalMoney(text: string, pattern: RegExp = AMOUNT): string | null {
  const s = text.trim();
  if (!pattern.test(s)) return null;
  const [, sign, int, frac = ""] = PARTS.exec(s)!;
  const digits = `${int.replace(/^0+(?=\d)/, "")}.${frac.padEnd(2, "0")}`;
  return sign && digits !== "0.00" ? `-${digits}` : digits;
}

/**
 * A JSON number as a canonical amount, or null. `String(n)` is the shortest
 * decimal text that reads back as the same double (12.3 → "12.3", never
 * "12.300000000000001"), which is exactly what the sender wrote when the
 * sender wrote at most 17 significant digits. Anything written with an
 * exponent or with more than 2 decimals is refused, not rounded.
 */
export function moneyFromJsonNumber(n: unknown): string | null {
  if (typeof n !== "number" || !Number.isFinite(n)) return null;
  const text = String(n);
  if (/e/i.test(text)) return null;
  return canonicalMoney(text);
}

/** Integer cents of an amount or balance written as decimal text ("15.49" → 1549, "-0.07" → -7); throws otherwise. */
export function centsOf(text: string): number {
  const m = PARTS.exec(text.trim());
  if (!m) throw new Error(`not a decimal amount: ${JSON.stringify(text)}`);
  const cents = Number(m[2]) * 100 + Number((m[3] ?? "").padEnd(2, "0"));
  return m[1] === "-" && cents !== 0 ? -cents : cents;
}

/** Integer cents as canonical decimal text: 1549 → "15.49", -385000n → "-3850.00". */
export function formatCents(cents: number | bigint): string {
  if (typeof cents === "number" && !Number.isSafeInteger(cents)) throw new Error(`not whole cents: ${cents}`);
  const big = BigInt(cents);
  const abs = big < 0n ? -big : big;
  return `${big < 0n ? "-" : ""}${abs / 100n}.${String(abs % 100n).padStart(2, "0")}`;
}

/** The opposite of a canonical amount: "12.30" ↔ "-12.30"; "0.00" stays "0.00". */
export function negateMoney(canonical: string): string {
  if (canonical.startsWith("-")) return canonical.slice(1);
  return /^0+(\.0*)?$/.test(canonical) ? canonical : `-${canonical}`;
}
