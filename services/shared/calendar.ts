/** Whole-day arithmetic on `YYYY-MM-DD` strings, in UTC (no local time zone ever leaks in). */

const DAY_MS = 86_400_000;

/** The UTC calendar day of an instant. */
export const utcDay = (at: Date): string => at.toISOString().slice(0, 10);

/** `day` plus `n` days (n may be negative). */
export const addDays = (day: string, n: number): string =>
  utcDay(new Date(Date.parse(`${day}T00:00:00Z`) + n * DAY_MS));

/** Unix seconds at the start (00:00 UTC) of `day`. */
export const dayStartSeconds = (day: string): number => Date.parse(`${day}T00:00:00Z`) / 1000;

/** Whole days from `a` to `b` (positive when b is later). */
export const daysBetween = (a: string, b: string): number =>
  Math.round((Date.parse(`${b}T00:00:00Z`) - Date.parse(`${a}T00:00:00Z`)) / DAY_MS);
