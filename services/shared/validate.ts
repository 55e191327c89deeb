import { AMOUNT, CURRENCY, SLUG, isCalendarDate } from "../../common/validation.js";
import { CofferError } from "../errors/coffer-error.js";

/**
 * The core's input checks: each takes the caller's raw value and the name of
 * the field it came in, and returns the value in its one normal form or
 * throws a CofferError naming the field. Query parameters and filters fail
 * with INVALID_PARAMETER, bodies with VALIDATION_ERROR.
 */
export type InputErrorCode = "VALIDATION_ERROR" | "INVALID_PARAMETER";

export const isSlug = (s: string) => SLUG.test(s);

/** A slug the caller typed: trimmed and lowercased, then it must already be a valid slug. */
export function parseSlug(raw: string, field = "slug", code: InputErrorCode = "VALIDATION_ERROR"): string {
  const slug = raw.trim().toLowerCase();
  if (!isSlug(slug)) throw new CofferError(code, `${field} must be 1 to 64 characters of a-z, 0-9 and _`);
  return slug;
}

/** A calendar date, YYYY-MM-DD. */
export function parseDate(raw: string, field: string, code: InputErrorCode = "INVALID_PARAMETER"): string {
  const s = raw.trim();
  if (!isCalendarDate(s)) throw new CofferError(code, `${field} must be a date written YYYY-MM-DD`);
  return s;
}

/**
 * An exact decimal amount as text (the range of NUMERIC(12,2)), with "-0"
 * written "0". Amounts stay strings end to end; sums happen in SQL.
 */
export function parseAmount(raw: string, field = "amount", code: InputErrorCode = "VALIDATION_ERROR"): string {
  const s = raw.trim();
  if (!AMOUNT.test(s)) throw new CofferError(code, `${field} must be a decimal number with at most 2 decimals`);
  return /^-0(\.0+)?$/.test(s) ? s.slice(1) : s;
}

/** "7" → "7.00", "-0.5" → "-0.50", "007" → "7.00": one spelling per amount (for hashing and comparing). */
export function canonicalAmount(raw: string, field = "amount", code: InputErrorCode = "VALIDATION_ERROR"): string {
  const s = parseAmount(raw, field, code);
  const negative = s.startsWith("-");
  const [int, frac = ""] = (negative ? s.slice(1) : s).split(".");
  const digits = `${int.replace(/^0+(?=\d)/, "")}.${frac.padEnd(2, "0")}`;
  return negative && digits !== "0.00" ? `-${digits}` : digits;
}

/** A canonical amount as integer cents, for comparing amounts without floats. */
export const amountCents = (canonical: string) => BigInt(canonical.replace(".", ""));

/** An ISO 4217 code, upper-cased. */
export function parseCurrency(raw: string, field = "iso_currency_code"): string {
  const s = raw.trim().toUpperCase();
  if (!CURRENCY.test(s)) throw new CofferError("VALIDATION_ERROR", `${field} must be a 3-letter ISO 4217 code`);
  return s;
}
