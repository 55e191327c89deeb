import { dayInMonth, mod, monthAndDay } from "../../../common/days.js";

/**
 * The cadences a series can follow, and schedules: a cadence fixed to where
 * its occurrences fall (a weekday, a day of the month). Everything here is
 * whole-day arithmetic on day numbers (dates.ts).
 */

export const PERIODIC_CADENCES = ["weekly", "biweekly", "monthly", "quarterly", "yearly"] as const;
export type PeriodicCadence = (typeof PERIODIC_CADENCES)[number];
export type Cadence = PeriodicCadence | "irregular";

export interface CadenceRule {
  cadence: PeriodicCadence;
  /** Occurrences are `step` days apart, or `step` calendar months apart on the same day of the month. */
  unit: "days" | "months";
  step: number;
  /** How many days a charge may fall before or after its expected date. */
  jitter: number;
  /** The fewest occurrences that make a series. */
  minCount: number;
  /** From this many occurrences on, the count no longer lowers the confidence. */
  strongCount: number;
  /** The average gap in days. */
  periodDays: number;
}

export const CADENCE_RULES: readonly CadenceRule[] = [
  { cadence: "weekly", unit: "days", step: 7, jitter: 1, minCount: 4, strongCount: 8, periodDays: 7 },
  { cadence: "biweekly", unit: "days", step: 14, jitter: 2, minCount: 4, strongCount: 6, periodDays: 14 },
  { cadence: "monthly", unit: "months", step: 1, jitter: 3, minCount: 3, strongCount: 6, periodDays: 30.44 },
  { cadence: "quarterly", unit: "months", step: 3, jitter: 5, minCount: 3, strongCount: 4, periodDays: 91.3 },
  { cadence: "yearly", unit: "months", step: 12, jitter: 7, minCount: 2, strongCount: 3, periodDays: 365.25 },
];

export const ruleOf = (cadence: PeriodicCadence): CadenceRule => CADENCE_RULES.find((r) => r.cadence === cadence)!;

/**
 * A cadence fixed in time. Day cadences: occurrence k falls on day
 * `phase + k * step`. Month cadences: occurrence k falls in month
 * `phase + k * step` on day `dom` (or that month's last day when it is shorter).
 */
export interface Schedule {
  rule: CadenceRule;
  phase: number;
  /** Day of the month (1-31), for month cadences. */
  dom: number;
}

/** The expected day of occurrence `k`. */
export function expectedDay(s: Schedule, k: number): number {
  return s.rule.unit === "days" ? s.phase + k * s.rule.step : dayInMonth(s.phase + k * s.rule.step, s.dom);
}

/** The occurrence nearest to `day`, and how many days `day` lies after it (negative: before). */
export function placeOn(s: Schedule, day: number): { k: number; deviation: number } {
  const step = s.rule.step;
  if (s.rule.unit === "days") {
    const k = Math.round((day - s.phase) / step);
    return { k, deviation: day - (s.phase + k * step) };
  }
  const { month } = monthAndDay(day);
  const base = month - mod(month - s.phase, step);
  let best = { k: 0, deviation: Infinity };
  for (const m of [base - step, base, base + step]) {
    const deviation = day - dayInMonth(m, s.dom);
    if (Math.abs(deviation) < Math.abs(best.deviation)) best = { k: (m - s.phase) / step, deviation };
  }
  return best;
}

/** The schedules a set of days suggests under one cadence: one anchored on each distinct day. */
export function candidateSchedules(rule: CadenceRule, days: readonly number[]): Schedule[] {
  const seen = new Map<string, Schedule>();
  for (const day of days) {
    let s: Schedule;
    if (rule.unit === "days") s = { rule, phase: mod(day, rule.step), dom: 0 };
    else {
      const { month, dom } = monthAndDay(day);
      s = { rule, phase: mod(month, rule.step), dom };
    }
    seen.set(`${s.phase}:${s.dom}`, s);
  }
  return [...seen.values()];
}

/**
 * The schedule of a month cadence that fits `days` best: the day of the month
 * (1-31) with the smallest total deviation, the later one on a tie (so charges
 * on the 30th and the 28th of February read as the 30th). Used to continue a
 * series from its transactions.
 */
export function fitMonthSchedule(rule: CadenceRule, days: readonly number[]): Schedule {
  const last = monthAndDay(days[days.length - 1]).month;
  let best: { s: Schedule; total: number } | null = null;
  for (let dom = 1; dom <= 31; dom++) {
    const s: Schedule = { rule, phase: mod(last, rule.step), dom };
    const total = days.reduce((sum, d) => sum + Math.abs(placeOn(s, d).deviation), 0);
    if (best === null || total <= best.total) best = { s, total };
  }
  return best!.s;
}

/** The schedule that continues a run of days under a cadence (the last day anchors day cadences). */
export function scheduleOf(cadence: PeriodicCadence, days: readonly number[]): Schedule {
  const rule = ruleOf(cadence);
  if (rule.unit === "days") return { rule, phase: mod(days[days.length - 1], rule.step), dom: 0 };
  return fitMonthSchedule(rule, days);
}

/** The expected day of the occurrence after the one `day` belongs to (a late or early charge is still its own). */
export function nextAfter(s: Schedule, day: number): number {
  let k = placeOn(s, day).k + 1;
  while (expectedDay(s, k) <= day) k++;
  return expectedDay(s, k);
}

/** `first` and the expected days after it, those in [from, to). */
export function occurrencesFrom(s: Schedule, first: number, from: number, to: number): number[] {
  const out: number[] = [];
  for (let d = first; d < to; d = nextAfter(s, d)) if (d >= from) out.push(d);
  return out;
}
