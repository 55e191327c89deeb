/**
 * Amounts inside the detector are integer cents held in JS numbers: NUMERIC(12,2)
 * never exceeds 10^12 cents, far below 2^53, so every sum and comparison the
 * detector makes on them is exact (it only ever adds, subtracts and compares
 * whole numbers, and multiplies by small integers).
 */

const DECIMAL = /^(-?)(\d{1,10})(?:\.(\d{1,2}))?$/;

/** "15.49" → 1549, "-3850" → -385000. */
export function centsOf(text: string): number {
  const m = DECIMAL.exec(text.trim());
  if (!m) throw new Error(`not a decimal amount: ${text}`);
  const cents = Number(m[2]) * 100 + Number((m[3] ?? "").padEnd(2, "0"));
  return m[1] === "-" && cents !== 0 ? -cents : cents;
}

/** 1549 → "15.49", -385000n → "-3850.00". */
export function formatCents(cents: number | bigint): string {
  if (typeof cents === "number" && !Number.isSafeInteger(cents)) throw new Error(`not whole cents: ${cents}`);
  const big = BigInt(cents);
  const abs = big < 0n ? -big : big;
  return `${big < 0n ? "-" : ""}${abs / 100n}.${String(abs % 100n).padStart(2, "0")}`;
}
