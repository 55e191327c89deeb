/**
 * Calendar arithmetic on whole days, for the detector: a date is its day
 * number (days since 1970-01-01 in the proleptic Gregorian calendar), months
 * are counted from year 0 (year * 12 + month - 1). Plain integer arithmetic
 * (H. Hinnant's days_from_civil and civil_from_days), no Date objects: the
 * detector converts a million dates, and nothing here depends on a time zone.
 */

/** Days since 1970-01-01 of year-month-day (month 1-12). */
function daysFromCivil(y: number, m: number, d: number): number {
  const yy = m <= 2 ? y - 1 : y;
  const era = Math.floor(yy / 400);
  const yoe = yy - era * 400;
  const doy = Math.floor((153 * (m > 2 ? m - 3 : m + 9) + 2) / 5) + d - 1;
  const doe = yoe * 365 + Math.floor(yoe / 4) - Math.floor(yoe / 100) + doy;
  return era * 146097 + doe - 719468;
}

/** Year, month (1-12) and day of a day number. */
function civilFromDays(day: number): { y: number; m: number; d: number } {
  const z = day + 719468;
  const era = Math.floor(z / 146097);
  const doe = z - era * 146097;
  const yoe = Math.floor((doe - Math.floor(doe / 1460) + Math.floor(doe / 36524) - Math.floor(doe / 146096)) / 365);
  const doy = doe - (365 * yoe + Math.floor(yoe / 4) - Math.floor(yoe / 100));
  const mp = Math.floor((5 * doy + 2) / 153);
  const m = mp < 10 ? mp + 3 : mp - 9;
  return { y: yoe + era * 400 + (m <= 2 ? 1 : 0), m, d: doy - Math.floor((153 * mp + 2) / 5) + 1 };
}

/** YYYY-MM-DD → day number. */
export function dayOf(iso: string): number {
  return daysFromCivil(Number(iso.slice(0, 4)), Number(iso.slice(5, 7)), Number(iso.slice(8, 10)));
}

const pad = (n: number, w: number) => String(n).padStart(w, "0");

/** Day number → YYYY-MM-DD. */
export function isoOf(day: number): string {
  const { y, m, d } = civilFromDays(day);
  return `${pad(y, 4)}-${pad(m, 2)}-${pad(d, 2)}`;
}

/** The month a day falls in (year * 12 + month - 1), and its day of the month (1-31). */
export function monthAndDay(day: number): { month: number; dom: number } {
  const { y, m, d } = civilFromDays(day);
  return { month: y * 12 + m - 1, dom: d };
}

const isLeap = (y: number) => (y % 4 === 0 && y % 100 !== 0) || y % 400 === 0;
const LENGTHS = [31, 28, 31, 30, 31, 30, 31, 31, 30, 31, 30, 31];

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

const WEEKDAYS = ["Thursday", "Friday", "Saturday", "Sunday", "Monday", "Tuesday", "Wednesday"];

/** a mod n, never negative. */
export const mod = (a: number, n: number) => ((a % n) + n) % n;

/** The weekday of a day number (day 0, 1970-01-01, was a Thursday). */
export const weekdayOf = (day: number) => WEEKDAYS[mod(day, 7)];
