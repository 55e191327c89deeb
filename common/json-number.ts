/**
 * Numbers Coffer stores inside JSON (transaction metadata, a rule's
 * set_metadata value). JSON numbers become doubles, which hold 15 significant
 * decimal digits exactly; a longer number (a 40-digit id, say) would come back
 * as something else (1.2345678901234568e+39), so it is refused and the caller
 * is told to send it as a string.
 */
export const MAX_SIGNIFICANT_DIGITS = 15;

/** The significant digits of a number as JavaScript writes it: "1.5e-7" → 2, "120" → 2, "0.001" → 1. */
function significantDigits(n: number): number {
  const mantissa = String(Math.abs(n)).split("e")[0].replace(".", "");
  return mantissa.replace(/^0+/, "").replace(/0+$/, "").length;
}

/** Why a number cannot be stored ("must be a finite number", …), or null when it can. */
export function jsonNumberProblem(n: number): string | null {
  if (!Number.isFinite(n)) return "must be a finite number";
  if (significantDigits(n) > MAX_SIGNIFICANT_DIGITS) {
    const why = "more than a JSON number keeps exactly; send it as a string";
    return `has more than ${MAX_SIGNIFICANT_DIGITS} significant digits, ${why}`;
  }
  return null;
}
