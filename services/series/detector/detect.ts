import type { SERIES_TYPES } from "../../../common/series.js";
import {
  CADENCE_RULES,
  candidateSchedules,
  expectedDay,
  placeOn,
  ruleOf,
  type Cadence,
  type CadenceRule,
  type Schedule,
} from "./cadence.js";
import { dayOf, daysInMonth, isoOf, monthAndDay, weekdayOf } from "../../../common/days.js";
import { centsOf, formatCents } from "../../../common/money.js";
import { directionOf, normalizeMerchant, type Direction } from "./normalize.js";

/**
 * The recurring-series detector: a pure function from a household's posted
 * transactions to proposed series, each with a confidence and a one-line
 * reason. No I/O, no clock (the caller says what day it is). The rules it
 * follows are written out in docs/series.md; the numbers they use are the
 * constants below and the cadence table in cadence.ts.
 */

export interface DetectorTransaction {
  id: string;
  /** YYYY-MM-DD. */
  date: string;
  /** Signed exact decimal text (NUMERIC(12,2)): positive = money out. */
  amount: string;
  currency: string;
  counterpartyId: string | null;
  counterpartyName: string | null;
  /** The merchant's name as the provider cleaned it, if it did. */
  merchantName: string | null;
  /** The bank's text. */
  name: string;
  /** The provider's detailed category (e.g. RENT_AND_UTILITIES_WATER), if any. */
  categoryDetailed: string | null;
}

export type ProposedType = (typeof SERIES_TYPES)[number];

export interface Proposal {
  /** The group: counterparty or merchant name, currency, direction (see normalize.ts). */
  key: string;
  /** Identifies the proposal across runs: its group and amount range (see fingerprintOf). */
  fingerprint: string;
  name: string;
  type: ProposedType;
  cadence: Cadence;
  /** Signed cents, like transactions. */
  expectedCents: number;
  toleranceCents: number;
  /** The smallest and largest signed amount among its transactions. */
  amountMinCents: number;
  amountMaxCents: number;
  currency: string;
  counterpartyId: string | null;
  counterpartyName: string | null;
  status: "active" | "ended";
  firstDate: string;
  lastDate: string;
  nextExpectedDate: string | null;
  /** 0 to 1, two decimals. */
  confidence: number;
  reason: string;
  /** Oldest first. */
  transactionIds: string[];
}

/** The highest confidence an irregular series gets: without a cadence, little says it will go on. */
export const IRREGULAR_MAX_CONFIDENCE = 0.6;
/** Amounts further apart than this factor are not one variable series (nor one amount band). */
const VARIABLE_MAX_RATIO = 3;
/** Sorted amounts further apart than this factor start a new amount band. */
const BAND_GAP_RATIO = 2;
/** Other transactions within this many percent of a series' amounts count against it. */
const NEAR_FRACTION = 10;
/** A set with more transactions than this many times what a cadence would make is not that cadence. */
const DENSITY_LIMIT = 2.5;
/**
 * A fixed price is trusted only when the group's other charges near it are
 * rare enough not to line up by chance: fewer than this many, on average, in
 * a window of the cadence's jitter (2 * jitter + 1 days).
 */
const BACKGROUND_LIMIT = 0.25;
/** An irregular series has at least this many charges, at most this many months apart. */
const IRREGULAR_MIN_COUNT = 4;
const IRREGULAR_MAX_GAP_MONTHS = 6;
/** An irregular series that has not charged for this many days has ended. */
const IRREGULAR_ACTIVE_DAYS = 183;

interface Point {
  t: DetectorTransaction;
  day: number;
  cents: number;
  abs: number;
}

interface Group {
  key: string;
  direction: Direction;
  /** In input order; sorted by day only where needed (byDay), since most groups never need it. */
  points: Point[];
  byDay?: Point[];
  /** Absolute amounts, ascending. */
  amounts: Float64Array;
  firstDay: number;
  lastDay: number;
}

interface Chain {
  rule: CadenceRule;
  schedule: Schedule;
  /** By day; one per occurrence. */
  members: Point[];
  /** The occurrence index of each member. */
  ks: number[];
  misses: number;
  /** Largest distance in days between a member and its expected date. */
  maxDeviation: number;
  irregular: boolean;
}

/** Every series the history shows, strongest first. */
export function detectSeries(transactions: readonly DetectorTransaction[], opts: { today: string }): Proposal[] {
  const today = dayOf(opts.today);
  const proposals: Proposal[] = [];
  for (const group of groupsOf(transactions)) proposals.push(...detectInGroup(group, today));
  return proposals.sort(
    (a, b) => b.confidence - a.confidence || a.name.localeCompare(b.name) || a.key.localeCompare(b.key),
  );
}

/**
 * Transactions by group key. The lookups go through nested maps (who, then
 * currency and direction) rather than one joined key string per transaction,
 * and each name is normalized once per distinct text: a million transactions
 * fall into a few thousand groups.
 */
function groupsOf(transactions: readonly DetectorTransaction[]): Group[] {
  const whoOfName = new Map<string, string>();
  const byWho = new Map<string, Map<string, Point[]>>();
  for (const t of transactions) {
    const cents = centsOf(t.amount);
    if (cents === 0) continue;
    let who: string | undefined;
    if (t.counterpartyId) who = `cp:${t.counterpartyId}`;
    else {
      const raw = t.merchantName ?? t.name;
      who = whoOfName.get(raw);
      if (who === undefined) whoOfName.set(raw, (who = `name:${normalizeMerchant(raw)}`));
    }
    let byCurrency = byWho.get(who);
    if (!byCurrency) byWho.set(who, (byCurrency = new Map<string, Point[]>()));
    const sub = `${t.currency}|${directionOf(cents)}`;
    let points = byCurrency.get(sub);
    if (!points) byCurrency.set(sub, (points = []));
    points.push({ t, day: dayOf(t.date), cents, abs: Math.abs(cents) });
  }
  const groups: Group[] = [];
  for (const [who, byCurrency] of byWho) {
    for (const [sub, points] of byCurrency) {
      const amounts = new Float64Array(points.length);
      let [firstDay, lastDay] = [Infinity, -Infinity];
      points.forEach((p, i) => {
        amounts[i] = p.abs;
        firstDay = Math.min(firstDay, p.day);
        lastDay = Math.max(lastDay, p.day);
      });
      const key = `${who}|${sub}`;
      groups.push({ key, direction: directionOf(points[0].cents), points, amounts: amounts.sort(), firstDay, lastDay });
    }
  }
  return groups;
}

/** By day, then id: every result is the same whatever order the transactions came in. */
const sortByDay = (points: readonly Point[]) =>
  [...points].sort((a, b) => a.day - b.day || (a.t.id < b.t.id ? -1 : a.t.id > b.t.id ? 1 : 0));

const byDayOf = (group: Group) => (group.byDay ??= sortByDay(group.points));

/** How many of the sorted `values` lie in [lo, hi]. */
function countBetween(values: Float64Array, lo: number, hi: number): number {
  const firstAtLeast = (x: number) => {
    let [a, b] = [0, values.length];
    while (a < b) {
      const m = (a + b) >> 1;
      if (values[m] < x) a = m + 1;
      else b = m;
    }
    return a;
  };
  return firstAtLeast(hi + 1) - firstAtLeast(lo);
}

/** [lo, hi]: absolute amounts within NEAR_FRACTION percent of [min, max]. */
const nearBand = (min: number, max: number) => ({
  lo: Math.floor((min * (100 - NEAR_FRACTION)) / 100),
  hi: Math.ceil((max * (100 + NEAR_FRACTION)) / 100),
});

/**
 * The candidate sets of one group (unsorted): each exact amount seen at least
 * twice (fixed prices), unless the group has many more transactions at nearby
 * prices than at that one; and each amount band (varying amounts), where a
 * band ends when the next larger amount is more than BAND_GAP_RATIO times the
 * last.
 */
function candidateSets(group: Group): { points: Point[]; exact: boolean }[] {
  const sets: { points: Point[]; exact: boolean }[] = [];
  const byAmount = new Map<number, Point[]>();
  for (const p of group.points) {
    const same = byAmount.get(p.cents);
    if (same) same.push(p);
    else byAmount.set(p.cents, [p]);
  }
  for (const [cents, points] of byAmount) {
    if (points.length < 2) continue;
    const { lo, hi } = nearBand(Math.abs(cents), Math.abs(cents));
    const nearby = countBetween(group.amounts, lo, hi) - points.length;
    if (nearby <= 2 * points.length) sets.push({ points, exact: true });
  }
  if (byAmount.size === 1) return sets; // the one band is the one amount
  const a = group.amounts;
  const starts: number[] = [];
  for (let i = 1; i < a.length; i++) if (a[i] > BAND_GAP_RATIO * a[i - 1]) starts.push(a[i]);
  if (starts.length === 0) {
    sets.push({ points: group.points, exact: false });
    return sets;
  }
  const bands: Point[][] = starts.map(() => []).concat([[]]);
  for (const p of group.points) {
    let band = 0;
    while (band < starts.length && p.abs >= starts[band]) band++;
    bands[band].push(p);
  }
  for (const band of bands) if (band.length >= 2 && !sameAmount(band)) sets.push({ points: band, exact: false });
  return sets;
}

const sameAmount = (points: readonly Point[]) => points.every((p) => p.cents === points[0].cents);

/** More transactions over their time span than DENSITY_LIMIT times what the cadence would make there. */
function tooDense(points: readonly Point[], rule: CadenceRule): boolean {
  let [first, last] = [Infinity, -Infinity];
  for (const p of points) {
    first = Math.min(first, p.day);
    last = Math.max(last, p.day);
  }
  return points.length > DENSITY_LIMIT * ((last - first) / rule.periodDays + 1);
}

function detectInGroup(group: Group, today: number): Proposal[] {
  const candidates: Proposal[] = [];
  for (const set of candidateSets(group)) {
    const rules = CADENCE_RULES.filter((rule) => !tooDense(set.points, rule));
    const irregular = set.exact && set.points.length >= IRREGULAR_MIN_COUNT && rules.some((r) => r.unit === "months");
    if (rules.length === 0 && !irregular) continue;
    const points = sortByDay(set.points);
    let found = false;
    for (const rule of rules) {
      for (const chain of chainsIn(points, rule)) {
        const p = evaluate(chain, group, today);
        if (p) {
          candidates.push(p);
          found = true;
        }
      }
    }
    if (!found && irregular) {
      const chain = irregularChain(points);
      const p = chain && evaluate(chain, group, today);
      if (p) candidates.push(p);
    }
  }
  // The chains that explain the most transactions win; a transaction goes to one series at most.
  candidates.sort(
    (a, b) =>
      b.transactionIds.length - a.transactionIds.length ||
      b.confidence - a.confidence ||
      (a.lastDate < b.lastDate ? 1 : a.lastDate > b.lastDate ? -1 : 0),
  );
  const taken = new Set<string>();
  const chosen: Proposal[] = [];
  for (const c of candidates) {
    if (c.transactionIds.some((id) => taken.has(id))) continue;
    for (const id of c.transactionIds) taken.add(id);
    chosen.push(c);
  }
  return chosen;
}

/** The amount a chain's members cluster around: the absolute amount in the middle. */
const middleAbs = (points: readonly Point[]) => [...points].map((p) => p.abs).sort((a, b) => a - b)[points.length >> 1];

/** Up to three disjoint chains of one cadence in a set, longest first. */
function chainsIn(points: readonly Point[], rule: CadenceRule): Chain[] {
  const chains: Chain[] = [];
  let remaining = points;
  for (let i = 0; i < 3 && remaining.length >= rule.minCount; i++) {
    const middle = middleAbs(remaining);
    let best: Chain | null = null;
    for (const s of candidateSchedules(
      rule,
      remaining.map((p) => p.day),
    )) {
      const c = bestRun(remaining, s, middle, 2);
      if (c && (best === null || better(c, best))) best = c;
    }
    if (!best || best.members.length < rule.minCount) break;
    chains.push(best);
    const used = new Set(best.members);
    remaining = remaining.filter((p) => !used.has(p));
  }
  return chains;
}

function better(a: Chain, b: Chain): boolean {
  if (a.members.length !== b.members.length) return a.members.length > b.members.length;
  if (a.misses !== b.misses) return a.misses < b.misses;
  if (a.maxDeviation !== b.maxDeviation) return a.maxDeviation < b.maxDeviation;
  return a.members[a.members.length - 1].day > b.members[b.members.length - 1].day;
}

/**
 * The longest run of occurrences a schedule finds among the points: each
 * point within the cadence's jitter of an expected date takes that
 * occurrence (the nearest point, then the one nearest the middle amount, when
 * several do), and consecutive occurrences are at most `maxStep` apart
 * (maxStep - 1 missed in between). A periodic run may miss one occurrence in
 * six (at least one).
 */
function bestRun(points: readonly Point[], s: Schedule, middle: number, maxStep: number): Chain | null {
  const jitter = s.rule.jitter;
  const byK = new Map<number, { p: Point; dev: number }>();
  for (const p of points) {
    const { k, deviation } = placeOn(s, p.day);
    if (Math.abs(deviation) > jitter) continue;
    const cur = byK.get(k);
    if (
      !cur ||
      Math.abs(deviation) < Math.abs(cur.dev) ||
      (Math.abs(deviation) === Math.abs(cur.dev) && Math.abs(p.abs - middle) < Math.abs(cur.p.abs - middle))
    ) {
      byK.set(k, { p, dev: deviation });
    }
  }
  const ks = [...byK.keys()].sort((a, b) => a - b);
  const periodic = maxStep === 2;
  let best: Chain | null = null;
  let start = 0;
  for (let i = 1; i <= ks.length; i++) {
    if (i < ks.length && ks[i] - ks[i - 1] <= maxStep) continue;
    const run = ks.slice(start, i);
    start = i;
    const misses = periodic ? run[run.length - 1] - run[0] - (run.length - 1) : 0;
    if (periodic && misses > Math.max(1, Math.floor(run.length / 6))) continue;
    const chain: Chain = {
      rule: s.rule,
      schedule: s,
      members: run.map((k) => byK.get(k)!.p),
      ks: run,
      misses,
      maxDeviation: Math.max(...run.map((k) => Math.abs(byK.get(k)!.dev))),
      irregular: !periodic,
    };
    if (best === null || better(chain, best)) best = chain;
  }
  return best;
}

/**
 * A fixed amount charged at least four times on the same day of the month
 * (within the monthly jitter), never more than six months apart, but
 * following no cadence: an irregular series.
 */
function irregularChain(points: readonly Point[]): Chain | null {
  const monthly = ruleOf("monthly");
  let best: Chain | null = null;
  for (const s of candidateSchedules(
    monthly,
    points.map((p) => p.day),
  )) {
    const c = bestRun(points, s, points[0].abs, IRREGULAR_MAX_GAP_MONTHS);
    if (c && c.members.length >= IRREGULAR_MIN_COUNT && (best === null || better(c, best))) best = c;
  }
  return best;
}

type AmountPattern =
  { kind: "fixed" } | { kind: "changed"; levels: { cents: number; until: number }[] } | { kind: "variable" };

/**
 * Fixed: one amount. Changed: at most three amounts one after the other, each
 * charged at least twice (a price change). Variable: anything else whose
 * amounts stay within a factor of three (a utility bill).
 */
function patternOf(members: readonly Point[]): AmountPattern | null {
  const levels: { cents: number; count: number; until: number }[] = [];
  for (const p of members) {
    const last = levels[levels.length - 1];
    if (last && last.cents === p.cents) {
      last.count++;
      last.until = p.day;
    } else levels.push({ cents: p.cents, count: 1, until: p.day });
  }
  if (levels.length === 1) return { kind: "fixed" };
  if (levels.length <= 3 && levels.every((l) => l.count >= 2)) return { kind: "changed", levels };
  const abs = members.map((p) => p.abs);
  if (Math.max(...abs) > VARIABLE_MAX_RATIO * Math.min(...abs)) return null;
  return { kind: "variable" };
}

/**
 * The group's other transactions that the chain cannot explain. For a fixed
 * price (or a price change): those near its amounts within its time span, so
 * a subscription among other purchases at the same shop is still one. For a
 * varying amount: every other transaction of the group, whatever its amount
 * and date, since a utility bill is about all one ever pays its biller, while
 * random purchases line up on a schedule now and then by chance.
 */
function extrasOf(chain: Chain, group: Group, pattern: AmountPattern): number {
  if (pattern.kind === "variable") return group.points.length - chain.members.length;
  const members = new Set(chain.members);
  const abs = chain.members.map((p) => p.abs);
  const { lo, hi } = nearBand(Math.min(...abs), Math.max(...abs));
  const from = chain.members[0].day - chain.rule.jitter;
  const to = chain.members[chain.members.length - 1].day + chain.rule.jitter;
  let extras = 0;
  const points = byDayOf(group);
  for (let i = firstOnOrAfter(points, from); i < points.length; i++) {
    const p = points[i];
    if (p.day > to) break;
    if (p.abs >= lo && p.abs <= hi && !members.has(p)) extras++;
  }
  return extras;
}

/**
 * How many of the group's other charges near the chain's amounts fall, on
 * average, in one window of the cadence's jitter: their count over the
 * group's whole history, per day, times the window. Where this is high (a
 * shop selling at that price every few days), a run on schedule is chance.
 */
function chanceRate(chain: Chain, group: Group): number {
  const abs = chain.members.map((p) => p.abs);
  const { lo, hi } = nearBand(Math.min(...abs), Math.max(...abs));
  const others = countBetween(group.amounts, lo, hi) - chain.members.length;
  const span = Math.max(group.lastDay - group.firstDay, chain.rule.periodDays);
  return (others / span) * (2 * chain.rule.jitter + 1);
}

/** The index of the first point on or after `day` (points by day). */
function firstOnOrAfter(points: readonly Point[], day: number): number {
  let [a, b] = [0, points.length];
  while (a < b) {
    const m = (a + b) >> 1;
    if (points[m].day < day) a = m + 1;
    else b = m;
  }
  return a;
}

/** Judges a chain: enough occurrences, a consistent amount, little noise around it; then describes it. */
function evaluate(chain: Chain, group: Group, today: number): Proposal | null {
  const { rule, members } = chain;
  const n = members.length;
  if (n < (chain.irregular ? IRREGULAR_MIN_COUNT : rule.minCount)) return null;
  const pattern = patternOf(members);
  if (!pattern) return null;
  // A varying amount is weaker evidence than a fixed one: it needs one occurrence more.
  if (pattern.kind === "variable" && n < rule.minCount + 1) return null;
  const extras = extrasOf(chain, group, pattern);
  if (extras > Math.floor(n / 4)) return null;
  if (pattern.kind !== "variable" && chanceRate(chain, group) > BACKGROUND_LIMIT) return null;

  const signed = members.map((p) => p.cents).sort((a, b) => a - b);
  const abs = members.map((p) => p.abs).sort((a, b) => a - b);
  const last = members[n - 1];
  let expectedCents = last.cents;
  let toleranceCents = 0;
  if (pattern.kind === "variable") {
    expectedCents = signed[n >> 1];
    toleranceCents = Math.max(...signed.map((c) => Math.abs(c - expectedCents)));
  }

  let confidence = 1;
  confidence -= 0.12 * Math.max(0, (chain.irregular ? ruleOf("monthly") : rule).strongCount - n);
  confidence -= 0.1 * chain.misses;
  confidence -= 0.05 * (chain.maxDeviation / rule.jitter);
  if (pattern.kind === "changed") confidence -= 0.05 * (pattern.levels.length - 1);
  if (pattern.kind === "variable") confidence -= 0.1 + 0.1 * Math.min(1, (abs[n - 1] - abs[0]) / abs[n >> 1]);
  confidence -= 0.1 * extras;
  if (chain.irregular) confidence = Math.min(confidence, IRREGULAR_MAX_CONFIDENCE);
  confidence = Math.min(1, Math.max(0.05, Math.round(confidence * 100) / 100));

  const next = chain.irregular ? null : expectedDay(chain.schedule, chain.ks[n - 1] + 1);
  const active = chain.irregular
    ? today - last.day <= IRREGULAR_ACTIVE_DAYS
    : today <= next! + rule.periodDays + rule.jitter;
  const currency = last.t.currency;
  const cadence: Cadence = chain.irregular ? "irregular" : rule.cadence;
  const amountMinCents = signed[0];
  const amountMaxCents = signed[n - 1];
  const key = group.key;
  return {
    key,
    fingerprint: fingerprintOf({ key, amountMinCents, amountMaxCents }),
    name: (last.t.counterpartyName ?? last.t.merchantName ?? last.t.name).trim(),
    type: typeOf(group.direction, pattern.kind, last.t.categoryDetailed),
    cadence,
    expectedCents,
    toleranceCents,
    amountMinCents,
    amountMaxCents,
    currency,
    counterpartyId: last.t.counterpartyId,
    counterpartyName: last.t.counterpartyName,
    status: active ? "active" : "ended",
    firstDate: isoOf(members[0].day),
    lastDate: isoOf(last.day),
    nextExpectedDate: next === null ? null : isoOf(next),
    confidence,
    reason: reasonOf(chain, group.direction, pattern, currency, expectedCents),
    transactionIds: members.map((p) => p.t.id),
  };
}

/**
 * What kind of series it looks like. Transfers and card payments are
 * "other"; money in is income; the provider's loan, rent, utility and
 * insurance categories, and varying amounts, make bills (or loans); a fixed
 * price is a subscription.
 */
function typeOf(direction: Direction, pattern: AmountPattern["kind"], category: string | null): ProposedType {
  const c = category ?? "";
  if (c.startsWith("TRANSFER_") || c === "LOAN_PAYMENTS_CREDIT_CARD_PAYMENT" || c.startsWith("BANK_FEES")) {
    return "other";
  }
  if (direction === "in") return "income";
  if (c.startsWith("LOAN_PAYMENTS")) return "loan";
  if (c.startsWith("RENT_AND_UTILITIES") || c === "GENERAL_SERVICES_INSURANCE" || pattern === "variable") {
    return "bill";
  }
  return "subscription";
}

const MONTHS = ["Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec"];

/** "monthly on day 3±1", "biweekly on Friday", "yearly on 21 Mar", "irregular, on day 10". */
function whenOf(chain: Chain): string {
  const { rule, schedule, maxDeviation } = chain;
  const jitter = maxDeviation > 0 ? `±${maxDeviation}` : "";
  if (rule.unit === "days") return `${rule.cadence} on ${weekdayOf(expectedDay(schedule, chain.ks[0]))}${jitter}`;
  const day = schedule.dom === 31 ? "at month end" : `on day ${schedule.dom}`;
  if (chain.irregular) return `irregular, ${day}${jitter}`;
  if (rule.cadence === "yearly") {
    const { month } = monthAndDay(expectedDay(schedule, chain.ks[0]));
    const dom = Math.min(schedule.dom, daysInMonth(month));
    return `yearly on ${dom} ${MONTHS[month % 12]}${jitter}`;
  }
  return `${rule.cadence} ${day}${jitter}`;
}

/** The one-line reason: "11 charges, monthly on day 3±1, 15.49 USD, last 2026-11-03". */
function reasonOf(
  chain: Chain,
  direction: Direction,
  pattern: AmountPattern,
  currency: string,
  expectedCents: number,
): string {
  const n = chain.members.length;
  const what = `${n} ${direction === "out" ? "charges" : "deposits"}`;
  let amount = `${formatCents(expectedCents)} ${currency}`;
  if (pattern.kind === "changed") {
    const before = pattern.levels[pattern.levels.length - 2];
    amount += ` (was ${formatCents(before.cents)} until ${isoOf(before.until)})`;
  } else if (pattern.kind === "variable") {
    const signed = chain.members.map((p) => p.cents).sort((a, b) => a - b);
    amount = `${formatCents(signed[0])} to ${formatCents(signed[n - 1])} ${currency}`;
  }
  const missed = chain.misses > 0 ? `, ${chain.misses} missed` : "";
  return `${what}, ${whenOf(chain)}${missed}, ${amount}, last ${isoOf(chain.members[n - 1].day)}`;
}

/** The largest amount NUMERIC(12,2) holds, in cents. */
const MAX_CENTS = 999_999_999_999;

/** A proposal's identity across runs: its group and amount range, as base64url JSON. */
export function fingerprintOf(p: { key: string; amountMinCents: number; amountMaxCents: number }): string {
  return Buffer.from(JSON.stringify({ k: p.key, lo: p.amountMinCents, hi: p.amountMaxCents })).toString("base64url");
}

/** The parts of a fingerprint, or null when it is not one. */
export function parseFingerprint(raw: string): { key: string; amountMinCents: number; amountMaxCents: number } | null {
  if (raw.length > 2000 || !/^[A-Za-z0-9_-]+$/.test(raw)) return null;
  try {
    const v = JSON.parse(Buffer.from(raw, "base64url").toString("utf8")) as unknown;
    if (typeof v !== "object" || v === null) return null;
    const { k, lo, hi } = v as Record<string, unknown>;
    if (typeof k !== "string" || !/^(cp|name):.*\|[A-Z]{3}\|(out|in)$/.test(k)) return null;
    const cents = (x: unknown): x is number => Number.isSafeInteger(x) && Math.abs(x as number) <= MAX_CENTS;
    if (!cents(lo) || !cents(hi) || lo > hi) return null;
    return { key: k, amountMinCents: lo, amountMaxCents: hi };
  } catch {
    return null;
  }
}
