/**
 * The input formats Coffer accepts, defined once. The core turns a mismatch
 * into a CofferError with the field's name (services/shared/validate.ts);
 * the gateways use the same patterns in their request schemas, so a REST
 * query and an MCP tool refuse exactly what the core would.
 */

/** Category and tag slugs (the database's check constraint says the same). */
export const SLUG_MAX = 64;
export const SLUG = /^[a-z0-9_]{1,64}$/;

/** A calendar date written YYYY-MM-DD. */
export const DATE = /^\d{4}-\d{2}-\d{2}$/;

/** An instant: a date (midnight UTC) or an ISO 8601 date-time with seconds optional and a zone (Z or ±hh:mm). */
export const INSTANT = /^\d{4}-\d{2}-\d{2}(T\d{2}:\d{2}(:\d{2}(\.\d{1,9})?)?(Z|[+-]\d{2}:\d{2}))?$/;

/** An ISO 4217 currency code. */
export const CURRENCY = /^[A-Z]{3}$/;

/** A short id: eight base62 characters. */
export const SHORT_ID_LENGTH = 8;
export const SHORT_ID = /^[0-9A-Za-z]{8}$/;

/** A UUID, any case. */
export const UUID = /^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/i;

/**
 * The years a Coffer date may fall in. Bank data lives well inside them, and
 * the bounds keep every date one PostgreSQL and JavaScript both read the same
 * way (PostgreSQL has no year 0, for one).
 */
export const DATE_MIN_YEAR = 1900;
export const DATE_MAX_YEAR = 2999;

/** True for YYYY-MM-DD naming a day that exists (not 2026-02-30) in a year from 1900 to 2999. */
export function isCalendarDate(s: string): boolean {
  if (!DATE.test(s)) return false;
  const year = Number(s.slice(0, 4));
  if (year < DATE_MIN_YEAR || year > DATE_MAX_YEAR) return false;
  const d = new Date(`${s}T00:00:00Z`);
  return !Number.isNaN(d.getTime()) && d.toISOString().slice(0, 10) === s;
}
