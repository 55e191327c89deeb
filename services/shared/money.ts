import { CofferError } from "../errors/coffer-error.js";

const AMOUNT = /^-?\d{1,10}(\.\d{1,2})?$/;

/**
 * Validates an exact decimal amount as text (at most 10 integer digits and 2
 * decimals, the range of NUMERIC(12,2)) and returns it normalised. Amounts
 * stay strings end to end; sums happen in SQL.
 */
export function parseAmount(raw: string, field = "amount", code: "VALIDATION_ERROR" | "INVALID_PARAMETER" = "VALIDATION_ERROR"): string {
  const s = raw.trim();
  if (!AMOUNT.test(s)) throw new CofferError(code, `${field} must be a decimal number with at most 2 decimals`);
  return s === "-0" || /^-0(\.0+)?$/.test(s) ? s.slice(1) : s;
}

export const CURRENCY = /^[A-Z]{3}$/;

export function parseCurrency(raw: string, field = "iso_currency_code"): string {
  const s = raw.trim().toUpperCase();
  if (!CURRENCY.test(s)) throw new CofferError("VALIDATION_ERROR", `${field} must be a 3-letter ISO 4217 code`);
  return s;
}
