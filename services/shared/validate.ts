import { DATE_MAX_YEAR, DATE_MIN_YEAR, INSTANT, SLUG, isCalendarDate } from "../../common/validation.js";
import { isCurrencyCode } from "../../common/currency.js";
import { canonicalMoney, centsOf } from "../../common/money.js";
import { jsonNumberProblem } from "../../common/json-number.js";
import { checkCharacters, checkText, jsonPath, searchTerm, type TextRule } from "../../common/text.js";
import { CofferError } from "../errors/coffer-error.js";

export type { TextRule };

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

/** A calendar date, YYYY-MM-DD, in a year from 1900 to 2999. */
export function parseDate(raw: string, field: string, code: InputErrorCode = "INVALID_PARAMETER"): string {
  const s = raw.trim();
  if (!isCalendarDate(s)) {
    throw new CofferError(
      code,
      `${field} must be a real date written YYYY-MM-DD, in a year from ${DATE_MIN_YEAR} to ${DATE_MAX_YEAR}`,
    );
  }
  return s;
}

/** A whole number from min to max inclusive (NaN, the infinities and fractions are refused). */
export function parseInteger(
  raw: number,
  field: string,
  range: { min: number; max: number },
  code: InputErrorCode = "INVALID_PARAMETER",
): number {
  if (!Number.isSafeInteger(raw) || raw < range.min || raw > range.max) {
    throw new CofferError(code, `${field} must be between ${range.min} and ${range.max}`);
  }
  return raw;
}

/**
 * Text a write stores (names, notes, comment bodies, report titles, …), by the
 * one text rule (common/text.ts): no NUL or other control character but tab
 * (and line breaks where `multiline`; CRLF is stored as LF), no lone
 * surrogate, trimmed (`markdown` keeps the first line's indentation), min
 * (default 1: required) to max characters. Every failure is VALIDATION_ERROR
 * naming the field (INVALID_PARAMETER for a filter's text, with `code`).
 */
export function parseText(
  raw: string | undefined,
  field: string,
  rule: TextRule = {},
  code: InputErrorCode = "VALIDATION_ERROR",
): string {
  const r = checkText(raw, field, rule);
  if (!r.ok) throw new CofferError(code, r.message);
  return r.value;
}

/** The character half of the text rule alone (text stored as given: no trimming, no length). */
export function parseCharacters(raw: string, field: string, multiline: boolean): string {
  const r = checkCharacters(raw, field, multiline);
  if (!r.ok) throw new CofferError("VALIDATION_ERROR", r.message);
  return r.value;
}

/** How deep a stored JSON value may nest: an object holding an object holding a string is 2. */
export const MAX_JSON_DEPTH = 32;

/**
 * A JSON value a write stores (transaction metadata, a rule's set_metadata
 * value), checked all the way down: strings follow the text rule (multiline,
 * not trimmed), object keys the single-line one, numbers are finite with at
 * most 15 significant digits (common/json-number.ts), and objects and arrays
 * nest at most MAX_JSON_DEPTH levels. Every failure is VALIDATION_ERROR naming
 * the path (`metadata.trip.days[2]`). Returns a copy with CRLF stored as LF.
 */
export function parseJsonValue(raw: unknown, field: string, depth = 0): unknown {
  if (raw === null || typeof raw === "boolean") return raw;
  if (typeof raw === "string") return parseCharacters(raw, field, true);
  if (typeof raw === "number") {
    const problem = jsonNumberProblem(raw);
    if (problem) throw new CofferError("VALIDATION_ERROR", `${field} ${problem}`);
    return raw;
  }
  if (typeof raw !== "object") throw new CofferError("VALIDATION_ERROR", `${field} must be a JSON value`);
  if (depth >= MAX_JSON_DEPTH) {
    throw new CofferError("VALIDATION_ERROR", `${field} nests deeper than ${MAX_JSON_DEPTH} levels`);
  }
  if (Array.isArray(raw)) return raw.map((v: unknown, i) => parseJsonValue(v, `${field}[${i}]`, depth + 1));
  // Entries, not assignment into {}: a key such as "__proto__" must stay a plain key.
  return Object.fromEntries(
    Object.entries(raw as Record<string, unknown>).map(([k, v]) => {
      parseCharacters(k, `a key in ${field}`, false);
      return [k, parseJsonValue(v, jsonPath(field, k), depth + 1)];
    }),
  );
}

/** A search term as the caller typed it, ready to match (the text rule's search half, common/text.ts). */
export { searchTerm };

/**
 * An amount (NUMERIC(12,2)) in its canonical text (common/money.ts): "7" →
 * "7.00", "-0.5" → "-0.50", "-0" → "0.00". Amounts stay strings end to end;
 * sums happen in SQL.
 */
export function canonicalAmount(raw: string, field = "amount", code: InputErrorCode = "VALIDATION_ERROR"): string {
  const amount = canonicalMoney(raw);
  if (amount === null) throw new CofferError(code, `${field} must be a decimal number with at most 2 decimals`);
  return amount;
}

/** A canonical amount as integer cents, for comparing amounts without floats. */
export const amountCents = (canonical: string) => BigInt(centsOf(canonical));

/** An ISO 4217 code (common/currency.ts), upper-cased. */
export function parseCurrency(raw: string, field = "iso_currency_code"): string {
  const s = raw.trim().toUpperCase();
  if (!isCurrencyCode(s)) throw new CofferError("VALIDATION_ERROR", `${field} must be an ISO 4217 currency code`);
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
