import {
  AMOUNT,
  CURRENCY,
  DATE_MAX_YEAR,
  DATE_MIN_YEAR,
  INSTANT,
  SLUG,
  isCalendarDate,
} from "../../common/validation.js";
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

export interface TextRule {
  /** Fewest characters after trimming (default 1: the field is required). */
  min?: number;
  /** Most characters after trimming (code points, as PostgreSQL's length() counts them). */
  max?: number;
  /** Line breaks allowed (comments, notes); CRLF is stored as LF. Single-line fields refuse them. */
  multiline?: boolean;
  /** Markdown (multiline): keep the first line's indentation, which has meaning there; trim only blank lines. */
  markdown?: boolean;
}

/**
 * The first C0 control character (U+0000-U+001F) in text other than tab and,
 * where allowed, the line breaks, written "U+0000"; null when there is none.
 */
function forbiddenControl(text: string, lineBreaks: boolean): string | null {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c >= 0x20 || c === 0x09 || (lineBreaks && (c === 0x0a || c === 0x0d))) continue;
    return `U+${c.toString(16).toUpperCase().padStart(4, "0")}`;
  }
  return null;
}

/** The control-character half of the text rule: the text (CRLF as LF where multiline), or VALIDATION_ERROR. */
function withoutControls(text: string, field: string, multiline: boolean): string {
  const normal = multiline ? text.replace(/\r\n/g, "\n") : text;
  const bad = forbiddenControl(normal, multiline);
  if (bad) {
    const allowed = multiline ? "tab, line feed and carriage return" : "tab (it is one line)";
    throw new CofferError(
      "VALIDATION_ERROR",
      `${field} must not contain control characters other than ${allowed}; found ${bad}`,
    );
  }
  return normal;
}

/**
 * Text a write stores (names, notes, comment bodies, report titles, …). It is
 * checked before it is trimmed (so trimming cannot hide a control character):
 * NUL and the other C0 controls are refused, tab is always allowed, line feed
 * and carriage return only where `multiline` (CRLF is stored as LF). Then it
 * is trimmed at both ends, except that `markdown` text only loses its leading
 * blank lines and trailing whitespace, keeping the first line's indentation
 * (Markdown gives it meaning). min (default 1: required) and max count
 * characters (code points, as PostgreSQL's length() does). Every failure is
 * VALIDATION_ERROR naming the field.
 */
export function parseText(raw: string | undefined, field: string, rule: TextRule = {}): string {
  const { min = 1, max = 10_000, multiline = false, markdown = false } = rule;
  const text = withoutControls(raw ?? "", field, multiline || markdown);
  const value = markdown ? text.replace(/^(?:[ \t]*[\n\r])+/, "").trimEnd() : text.trim();
  const length = [...value].length;
  if (length < min) {
    throw new CofferError(
      "VALIDATION_ERROR",
      min === 1 ? `${field} is required` : `${field} must be at least ${min} characters`,
    );
  }
  if (length > max)
    throw new CofferError("VALIDATION_ERROR", `${field} must be at most ${max} characters (got ${length})`);
  return value;
}

/** How deep a stored JSON value may nest: an object holding an object holding a string is 2. */
export const MAX_JSON_DEPTH = 32;

const pathOf = (parent: string, key: string) =>
  /^[A-Za-z_][A-Za-z0-9_]*$/.test(key) ? `${parent}.${key}` : `${parent}[${JSON.stringify(key)}]`;

/**
 * A JSON value a write stores (transaction metadata), checked all the way
 * down: strings follow the text rule (multiline, not trimmed), object keys the
 * single-line one, numbers are finite, and objects and arrays nest at most
 * MAX_JSON_DEPTH levels. Every failure is VALIDATION_ERROR naming the path
 * (`metadata.trip.days[2]`). Returns a copy with CRLF stored as LF.
 */
export function parseJsonValue(raw: unknown, field: string, depth = 0): unknown {
  if (raw === null || typeof raw === "boolean") return raw;
  if (typeof raw === "string") return withoutControls(raw, field, true);
  if (typeof raw === "number") {
    if (!Number.isFinite(raw)) throw new CofferError("VALIDATION_ERROR", `${field} must be a finite number`);
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
      withoutControls(k, `a key in ${field}`, false);
      return [k, parseJsonValue(v, pathOf(field, k), depth + 1)];
    }),
  );
}

/**
 * A search term as the caller typed it, ready to match: every run of spaces
 * and control characters becomes one space (so NUL never reaches SQL, and a
 * term never holds the U+001F that separates the two names in search_text).
 */
export function searchTerm(raw: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is matched
  return raw.replace(/[\s\x00-\x1f]+/g, " ").trim();
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
