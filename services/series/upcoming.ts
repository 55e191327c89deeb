import type { SeriesType } from "../db/entities/index.js";
import type { Em } from "../db/orm.js";
import { activeSeriesDueBefore } from "../db/tables/series.js";
import { CofferError } from "../errors/coffer-error.js";
import type { CurrencyTotals } from "../ledger/transactions/summary.js";
import { occurrencesFrom, scheduleOf } from "./detector/cadence.js";
import { dayOf, isoOf } from "../../common/days.js";
import { centsOf, formatCents } from "../../common/money.js";

export const DEFAULT_UPCOMING_DAYS = 30;
export const MAX_UPCOMING_DAYS = 366;

export interface UpcomingCharge {
  seriesId: string;
  seriesName: string;
  type: SeriesType;
  date: string;
  amount: string;
  isoCurrencyCode: string;
}

export interface Upcoming {
  /** Today, inclusive. */
  from: string;
  /** Exclusive. */
  to: string;
  charges: UpcomingCharge[];
  totals: CurrencyTotals[];
}

/**
 * The charges active series are expected to make in [today, today + days):
 * each series' next expected date, then every later occurrence of its cadence
 * in the window (an irregular series only its next expected date), at its
 * expected amount. A charge expected before today is not listed. Totals are
 * per currency (money out, money in, net, count), summed exactly in integer
 * cents, never across currencies.
 */
export async function listUpcomingCharges(em: Em, opts: { days: number; today: string }): Promise<Upcoming> {
  const days = opts.days === 0 ? DEFAULT_UPCOMING_DAYS : opts.days;
  if (!Number.isInteger(days) || days < 1 || days > MAX_UPCOMING_DAYS) {
    throw new CofferError("INVALID_PARAMETER", `days must be between 1 and ${MAX_UPCOMING_DAYS}`);
  }
  const from = dayOf(opts.today);
  const to = from + days;
  const rows = await activeSeriesDueBefore(em, isoOf(to));
  const charges: UpcomingCharge[] = [];
  for (const r of rows) {
    const first = dayOf(r.next);
    const when =
      r.cadence === "irregular"
        ? [first].filter((d) => d >= from && d < to)
        : occurrencesFrom(scheduleOf(r.cadence, [...r.dates.map(dayOf).reverse(), first]), first, from, to);
    for (const d of when) {
      charges.push({
        seriesId: r.short_id,
        seriesName: r.name,
        type: r.type,
        date: isoOf(d),
        amount: r.amount,
        isoCurrencyCode: r.currency,
      });
    }
  }
  charges.sort((a, b) => (a.date < b.date ? -1 : a.date > b.date ? 1 : a.seriesName.localeCompare(b.seriesName)));
  return { from: isoOf(from), to: isoOf(to), charges, totals: totalsOf(charges) };
}

function totalsOf(charges: UpcomingCharge[]): CurrencyTotals[] {
  const sums = new Map<string, { out: bigint; in: bigint; count: bigint }>();
  for (const c of charges) {
    const s = sums.get(c.isoCurrencyCode) ?? { out: 0n, in: 0n, count: 0n };
    const cents = BigInt(centsOf(c.amount));
    if (cents > 0n) s.out += cents;
    else s.in -= cents;
    s.count++;
    sums.set(c.isoCurrencyCode, s);
  }
  return [...sums]
    .sort(([a], [b]) => (a < b ? -1 : 1))
    .map(([code, s]) => ({
      isoCurrencyCode: code,
      moneyOut: formatCents(s.out),
      moneyIn: formatCents(s.in),
      net: formatCents(s.out - s.in),
      count: s.count,
    }));
}
