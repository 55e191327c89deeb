import { moneyFromDecimal } from "../../../../common/money.js";

/** The date formats bank exports use; the slash formats need `date_format` (or a day over 12) to tell them apart. */
export const DATE_FORMATS = ["YYYY-MM-DD", "MM/DD/YYYY", "DD/MM/YYYY", "DD.MM.YYYY"] as const;
export type DateFormat = (typeof DATE_FORMATS)[number];

// A time of day after the date (space or T) is ignored: only the calendar day is kept.
const TIME = /(?:[ T]\d{1,2}:\d{2}(?::\d{2}(?:\.\d+)?)?(?:\s?[AaPp][Mm])?(?:Z|[+-]\d{2}:?\d{2})?)?$/;
const ISO = new RegExp(`^(\\d{4})-(\\d{1,2})-(\\d{1,2})${TIME.source.slice(0, -1)}$`);
const SLASH = new RegExp(`^(\\d{1,2})/(\\d{1,2})/(\\d{4})${TIME.source.slice(0, -1)}$`);
const DOTS = new RegExp(`^(\\d{1,2})\\.(\\d{1,2})\\.(\\d{4})${TIME.source.slice(0, -1)}$`);

const pad = (s: string) => s.padStart(2, "0");

/** A date cell in `format` as YYYY-MM-DD, or null when it is not one (a 31 February included). */
export function parseDateCell(raw: string, format: DateFormat): string | null {
  const s = raw.trim();
  let y: string, m: string, d: string;
  let match: RegExpExecArray | null;
  if (format === "YYYY-MM-DD" && (match = ISO.exec(s))) [, y, m, d] = match;
  else if (format === "MM/DD/YYYY" && (match = SLASH.exec(s))) [, m, d, y] = match;
  else if (format === "DD/MM/YYYY" && (match = SLASH.exec(s))) [, d, m, y] = match;
  else if (format === "DD.MM.YYYY" && (match = DOTS.exec(s))) [, d, m, y] = match;
  else return null;
  return isDay(Number(y), Number(m), Number(d)) ? `${y}-${pad(m)}-${pad(d)}` : null;
}

const DAYS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** Whether a day exists (no 31 April, 29 February only in leap years), without building a Date per row. */
function isDay(y: number, m: number, d: number): boolean {
  if (y < 1 || m < 1 || m > 12 || d < 1) return false;
  const leap = m === 2 && y % 4 === 0 && (y % 100 !== 0 || y % 400 === 0);
  return d <= DAYS[m - 1] + (leap ? 1 : 0);
}

/**
 * The format a column of dates is written in: the one that reads the most
 * cells. Slash dates are MM/DD/YYYY unless a first part over 12 shows they
 * are DD/MM/YYYY (a file where every day is 12 or less cannot tell; pass
 * date_format then). Null when no format reads any cell.
 */
export function inferDateFormat(cells: string[]): DateFormat | null {
  const sample = cells.filter((c) => c.trim() !== "").slice(0, 2000);
  let best: DateFormat | null = null;
  let bestCount = 0;
  for (const f of DATE_FORMATS) {
    const n = sample.filter((c) => parseDateCell(c, f) !== null).length;
    if (n > bestCount) {
      best = f;
      bestCount = n;
    }
  }
  if (best === "MM/DD/YYYY" || best === "DD/MM/YYYY") {
    const dayFirst = sample.filter((c) => parseDateCell(c, "DD/MM/YYYY") !== null).length;
    const monthFirst = sample.filter((c) => parseDateCell(c, "MM/DD/YYYY") !== null).length;
    best = dayFirst > monthFirst ? "DD/MM/YYYY" : "MM/DD/YYYY";
  }
  return best;
}

/**
 * Whether a column of slash dates reads both ways: no first or second part is
 * over 12, and some date reads differently month first and day first
 * (03/04/2026: 4 March or 3 April). The file alone cannot tell then.
 */
export function isDateOrderAmbiguous(cells: string[]): boolean {
  const sample = cells.filter((c) => c.trim() !== "").slice(0, 2000);
  let differs = false;
  for (const c of sample) {
    const a = parseDateCell(c, "MM/DD/YYYY");
    const b = parseDateCell(c, "DD/MM/YYYY");
    if ((a === null) !== (b === null)) return false;
    if (a !== b) differs = true;
  }
  return differs;
}

export type DecimalSeparator = "." | ",";
export const DECIMAL_SEPARATORS = [".", ","] as const;

/** The digits and separators of an amount cell, without sign, currency or spaces ("-1.234,50 €" → "1.234,50"). */
const numeral = (cell: string) => /[\d.,]*\d[\d.,]*/.exec(cell.replace(/[\s\u00a0\u202f']/g, ""))?.[0] ?? "";

/**
 * What one cell says about the decimal separator: "." or "," when it can only
 * be read one way, "?" when it reads both ways (one separator followed by
 * exactly three digits, as in 1.500: 1.5 or 1500), null when it has no separator.
 */
function decimalOf(cell: string): DecimalSeparator | "?" | null {
  const n = numeral(cell);
  const last = Math.max(n.lastIndexOf("."), n.lastIndexOf(","));
  if (last < 0) return null;
  const sep = n[last] as DecimalSeparator;
  const other = sep === "." ? "," : ".";
  // Both kinds (1.234,56): the last one is the decimal separator.
  if (n.includes(other)) return sep;
  // The same one twice (1.234.567): it groups thousands.
  if (n.indexOf(sep) !== last) return other;
  const before = n.slice(0, last);
  const after = n.slice(last + 1);
  // Thousands come in groups of three after a first group of 1–3 digits that is not 0.
  if (after.length !== 3 || before.length === 0 || before.length > 3 || /^0+$/.test(before)) return sep;
  return "?";
}

/**
 * Whether a column of amounts writes its decimals after a comma (1.234,56) or
 * a point (1,234.56). The cells that can only be read one way decide (the
 * most of them win). When every separator could be either (1.500, 2.000),
 * `hint` decides (what the rest of the file says: see localeHint); without one
 * the file is ambiguous and the answer is null. A column with no separator at
 * all is read with ".", which changes nothing for whole numbers.
 */
export function inferDecimalSeparator(cells: string[], hint: DecimalSeparator | null = null): DecimalSeparator | null {
  let comma = 0;
  let point = 0;
  let either = 0;
  for (const c of cells.slice(0, 5000)) {
    const d = decimalOf(c);
    if (d === ",") comma++;
    else if (d === ".") point++;
    else if (d === "?") either++;
  }
  if (comma || point) return comma > point ? "," : ".";
  if (either) return hint;
  return ".";
}

/** A cell whose amount reads two ways (for the message that asks which), or null. */
export const ambiguousAmount = (cells: string[]) => cells.slice(0, 5000).find((c) => decimalOf(c) === "?") ?? null;

/**
 * The decimal separator the rest of a file implies: fields separated by ";"
 * or dates written DD.MM.YYYY are the continental European export, whose
 * decimal separator is ","; dates written MM/DD/YYYY are the American one (".").
 */
export function localeHint(delimiter: string, dateFormat: DateFormat): DecimalSeparator | null {
  if (dateFormat === "DD.MM.YYYY" || delimiter === ";") return ",";
  if (dateFormat === "MM/DD/YYYY") return ".";
  return null;
}

const GROUPED_POINT = /^(?:\d{1,3}(?:,\d{3})+|\d+)(?:\.\d*)?$/;
const GROUPED_COMMA = /^(?:\d{1,3}(?:\.\d{3})+|\d+)(?:,\d*)?$/;

/** Why a cell is not an amount, or the amount as canonical decimal text ("-1234.50"). */
export type AmountResult = { amount: string } | { error: string };

/**
 * An amount cell as the bank wrote it, read without floats: currency signs,
 * spaces and thousands separators are dropped; a minus in front or behind,
 * or parentheses, make it negative; at most ten digits before the point.
 * More than two decimals are read as common/money.ts reads them: float noise
 * around a cent is that cent ("19.509999999999998"), a real third decimal is
 * refused ("1.005").
 */
export function parseAmountCell(raw: string, decimal: DecimalSeparator): AmountResult {
  let s = raw.trim().replace(/[\s\u00a0\u202f']/g, "");
  if (s === "") return { error: "the amount is empty" };
  let negative = false;
  if (/^\(.*\)$/.test(s)) {
    negative = true;
    s = s.slice(1, -1);
  }
  s = s.replace(/^[+]/, "");
  if (/^[-\u2212]/.test(s)) {
    negative = !negative;
    s = s.slice(1);
  } else if (/-$/.test(s)) {
    negative = !negative;
    s = s.slice(0, -1);
  }
  s = s.replace(/^[$€£¥]|[$€£¥]$/g, "").replace(/^[A-Z]{3}|[A-Z]{3}$/g, "");
  // A thousands separator is only taken where it groups thousands: "1.50" in a comma-decimal file is refused,
  // not read as 150.
  const grouped = decimal === "." ? GROUPED_POINT : GROUPED_COMMA;
  if (!grouped.test(s)) {
    return {
      error: /^[\d.,]+$/.test(s)
        ? `"${clip(raw)}" is not an amount written with "${decimal}" as the decimal separator`
        : `"${clip(raw)}" is not an amount`,
    };
  }
  s = s.split(decimal === "." ? "," : ".").join("");
  if (decimal === ",") s = s.replace(",", ".");
  const m = /^(\d+)(?:\.(\d*))?$/.exec(s)!;
  const [, int, frac = ""] = m;
  const digits = int.replace(/^0+(?=\d)/, "");
  if (digits.length > 10) return { error: `"${clip(raw)}" is too large (at most 10 digits before the point)` };
  const amount = moneyFromDecimal(`${negative ? "-" : ""}${digits}.${frac}`);
  if (amount === null) return { error: `"${clip(raw)}" has more than two decimals` };
  return { amount };
}

/** A cell as an error message quotes it: at most 40 characters. */
export const clip = (s: string) => (s.length > 40 ? `${s.slice(0, 37)}...` : s);
