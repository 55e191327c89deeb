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
 * How far from a whole cent a provider's amount may be and still be that
 * cent. A JSON number is a double: 19.51 sent through a float sum arrives as
 * 19.509999999999998, one ulp off, and a CSV written by a program that
 * printed doubles carries the same noise. A millionth of a unit is far above
 * that noise and far below a real third decimal (1.005 is not a cent).
 */
export const CENT_TOLERANCE = 1e-6;

const DECIMAL = /^(-?)(\d+)(?:\.(\d*))?$/;

/**
 * An amount as a provider or a file wrote it in decimal digits, as canonical
 * money, or null. Up to 2 decimals it is read as written (canonicalMoney);
 * with more, it is the nearest whole cent when it lies within CENT_TOLERANCE
 * of one ("19.509999999999998" → "19.51", "1234.5600000000002" → "1234.56",
 * "2.500" → "2.50") and null otherwise ("1.005"). Computed on the digits,
 * never through a float. `pattern` bounds the result (AMOUNT or BALANCE).
 */
export function moneyFromDecimal(text: string, pattern: RegExp = AMOUNT): string | null {
  const s = text.trim();
  const m = DECIMAL.exec(s);
  if (!m) return null;
  const [, sign, int, frac = ""] = m;
  if (frac.length <= 2) return canonicalMoney(s.replace(/\.$/, ""), pattern);
  // In units of 10^-n: the nearest whole cent, and how far the amount is from it.
  const units = BigInt(int + frac);
  const perCent = 10n ** BigInt(frac.length - 2);
  const cents = (units + perCent / 2n) / perCent;
  const off = units > cents * perCent ? units - cents * perCent : cents * perCent - units;
  // off / 10^n <= 10^-6, in integers.
  if (off * 1_000_000n > 10n ** BigInt(frac.length)) return null;
  return canonicalMoney(formatCents(sign ? -cents : cents), pattern);
}

/**
 * A JSON number as a canonical amount, or null. `String(n)` is the shortest
 * decimal text that reads back as the same double (12.3 → "12.3"), which is
 * what the sender wrote when it wrote at most 17 significant digits; float
 * noise around a cent is that cent (moneyFromDecimal). A number too large to
 * be written without an exponent is refused; one too small for it (1e-7) is
 * read in fixed notation, and is noise around 0.00.
 */
export function moneyFromJsonNumber(n: unknown, pattern: RegExp = AMOUNT): string | null {
  if (typeof n !== "number" || !Number.isFinite(n)) return null;
  let text = String(n);
  if (/e/i.test(text)) {
    if (Math.abs(n) >= 1) return null;
    text = n.toFixed(20);
  }
  return moneyFromDecimal(text, pattern);
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
