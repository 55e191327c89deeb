/**
 * Calendar arithmetic on whole days, for the detector: a date is its day
 * number (days since 1970-01-01, UTC), months are counted from year 0, so
 * nothing depends on the local time zone.
 */

const DAY_MS = 86_400_000;

/** YYYY-MM-DD → day number. */
export function dayOf(iso: string): number {
  return Date.UTC(Number(iso.slice(0, 4)), Number(iso.slice(5, 7)) - 1, Number(iso.slice(8, 10))) / DAY_MS;
}

/** Day number → YYYY-MM-DD. */
export function isoOf(day: number): string {
  return new Date(day * DAY_MS).toISOString().slice(0, 10);
}

/** The month a day falls in, as year * 12 + month - 1, and its day of the month (1-31). */
export function monthAndDay(day: number): { month: number; dom: number } {
  const d = new Date(day * DAY_MS);
  return { month: d.getUTCFullYear() * 12 + d.getUTCMonth(), dom: d.getUTCDate() };
}

export function daysInMonth(month: number): number {
  return new Date(Date.UTC(Math.floor(month / 12), (month % 12) + 1, 0)).getUTCDate();
}

/** The day `dom` of `month`, or the month's last day when it is shorter (the 31st of April is the 30th). */
export function dayInMonth(month: number, dom: number): number {
  return Date.UTC(Math.floor(month / 12), month % 12, Math.min(dom, daysInMonth(month))) / DAY_MS;
}

const WEEKDAYS = ["Thursday", "Friday", "Saturday", "Sunday", "Monday", "Tuesday", "Wednesday"];

/** The weekday of a day number (day 0, 1970-01-01, was a Thursday). */
export const weekdayOf = (day: number) => WEEKDAYS[((day % 7) + 7) % 7];

/** a mod n, never negative. */
export const mod = (a: number, n: number) => ((a % n) + n) % n;
