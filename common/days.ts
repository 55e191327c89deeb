/**
 * Calendar days, defined once. A day is `YYYY-MM-DD` text or its day number
 * (days since 1970-01-01, proleptic Gregorian); a month number is
 * year * 12 + month - 1. Conversions are integer arithmetic alone (H.
 * Hinnant's days_from_civil and civil_from_days): no Date object, no time
 * zone, nothing allocated, since the rules scan and the series detector
 * convert a million dates. Only `utcDay` reads an instant, in UTC.
 */

/** Days since 1970-01-01 of year-month-day (month 1-12). */
function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m > 2 ? m - 3 : m + 9) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146_097 + doe - 719_468;
}

/** Year, month and day of a day number, packed as y * 10000 + m * 100 + d (one number: no allocation). */
function civil(day: number): number {
  const z = day + 719_468;
  const era = Math.floor(z / 146_097);
  const doe = z - era * 146_097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36_524) - Math.floor(doe / 146_096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const d = doy - Math.floor((153 * mp + 2) / 5) + 1;
  const m = mp < 10 ? mp + 3 : mp - 9;
  const y = yoe + era * 400 + (m <= 2 ? 1 : 0);
  return y * 10_000 + m * 100 + d;
}

/** YYYY-MM-DD → day number. */
export function dayOf(iso: string): number {
  return daysFromCivil(Number(iso.slice(0, 4)), Number(iso.slice(5, 7)), Number(iso.slice(8, 10)));
}

/** Day number → YYYY-MM-DD. */
export function isoOf(day: number): string {
  const packed = civil(day);
  const y = Math.floor(packed / 10_000);
  const md = packed - y * 10_000;
  const pad = (n: number, width: number) => String(n).padStart(width, "0");
  return `${pad(y, 4)}-${pad(Math.floor(md / 100), 2)}-${pad(md % 100, 2)}`;
}

/** The UTC calendar day of an instant. */
export const utcDay = (at: Date): string => at.toISOString().slice(0, 10);

/** `day` plus `n` days (n may be negative). */
export const addDays = (day: string, n: number): string => isoOf(dayOf(day) + n);

/** Whole days from `a` to `b` (positive when b is later). */
export const daysBetween = (a: string, b: string): number => dayOf(b) - dayOf(a);

/** Unix seconds at the start (00:00 UTC) of `day`. */
export const dayStartSeconds = (day: string): number => dayOf(day) * 86_400;

/** 1..31 */
export const dayOfMonth = (day: number): number => civil(day) % 100;

/** 1..12 */
export const monthOf = (day: number): number => Math.floor(civil(day) / 100) % 100;

/** 1..366 */
export function dayOfYear(day: number): number {
  return day - daysFromCivil(Math.floor(civil(day) / 10_000), 1, 1) + 1;
}

/** a mod n, never negative. */
export const mod = (a: number, n: number): number => ((a % n) + n) % n;

/** ISO weekday: 1 = Monday … 7 = Sunday (day 0, 1970-01-01, was a Thursday). */
export const dayOfWeek = (day: number): number => mod(day + 3, 7) + 1;

const WEEKDAYS = ["Monday", "Tuesday", "Wednesday", "Thursday", "Friday", "Saturday", "Sunday"];

/** The weekday's English name ("Thursday" for day 0). */
export const weekdayOf = (day: number): string => WEEKDAYS[dayOfWeek(day) - 1];

/** The month a day falls in (year * 12 + month - 1), and its day of the month (1-31). */
export function monthAndDay(day: number): { month: number; dom: number } {
  const packed = civil(day);
  const y = Math.floor(packed / 10_000);
  return { month: y * 12 + (Math.floor(packed / 100) % 100) - 1, dom: packed % 100 };
}

const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
const LENGTHS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

/** The number of days of a month number. */
export function daysInMonth(month: number): number {
  const y = Math.floor(month / 12);
  const m = month - y * 12;
  return m === 1 && isLeap(y) ? 29 : LENGTHS[m];
}

/** The day `dom` of `month`, or the month's last day when it is shorter (the 31st of April is the 30th). */
export function dayInMonth(month: number, dom: number): number {
  const y = Math.floor(month / 12);
  const m = month - y * 12;
  return daysFromCivil(y, m + 1, Math.min(dom, daysInMonth(month)));
}
