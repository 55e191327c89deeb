import { AMOUNT, CURRENCY, INSTANT, SLUG, isCalendarDate } from "../../common/validation.js";
import { CofferError, validation } from "../errors/coffer-error.js";

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

/** An instant (see INSTANT): a date is midnight UTC, a date-time keeps its zone. */
export function parseInstant(raw: string, field: string, code: InputErrorCode = "INVALID_PARAMETER"): Date {
  const s = raw.trim();
  const valid = INSTANT.test(s) && isCalendarDate(s.slice(0, 10));
  const ms = valid ? Date.parse(s.length === 10 ? `${s}T00:00:00Z` : s) : NaN;
  if (Number.isNaN(ms)) {
    throw new CofferError(code, `${field} must be a date (YYYY-MM-DD) or an ISO 8601 date-time with a zone`);
  }
  return new Date(ms);
}

/**
 * The first C0 control character (U+0000-U+001F) in text other than tab and
 * the allowed line breaks, written "U+0000"; null when there is none.
 */
function forbiddenControl(text: string, lineBreaks: boolean): string | null {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x20 || c === 0x09 || (lineBreaks && (c === 0x0a || c === 0x0d))) continue;
    return `U+${c.toString(16).toUpperCase().padStart(4, "0")}`;
  }
  return null;
}

/**
 * Free text a caller wrote (a title, a Markdown body, a name). Refuses C0
 * control characters except tab (and, when multiline, LF and CR: CRLF is
 * stored as LF), then trims: one-line text on both ends; multiline text
 * loses its leading blank lines and trailing whitespace but keeps the first
 * line's indentation (Markdown gives it meaning). min (default 1) and max
 * count characters (code points), not UTF-16 units. Fails with
 * VALIDATION_ERROR naming the field.
 */
export function parseText(
  raw: string,
  field: string,
  opts: { min?: number; max?: number; multiline?: boolean } = {},
): string {
  const { min = 1, max = Infinity, multiline = false } = opts;
  const text = multiline ? raw.replace(/\r\n/g, "\n") : raw;
  const bad = forbiddenControl(text, multiline);
  if (bad) {
    const allowed = multiline ? "tab, line feed and carriage return" : "tab (it is one line)";
    throw validation(`${field} must not contain control characters other than ${allowed}; found ${bad}`);
  }
  const value = multiline ? text.replace(/^(?:[ \t]*[\n\r])+/, "").trimEnd() : text.trim();
  const length = [...value].length;
  if (length < min) {
    throw validation(min === 1 ? `${field} must not be empty` : `${field} must be at least ${min} characters`);
  }
  if (length > max) throw validation(`${field} may be at most ${max} characters (got ${length})`);
  return value;
}
