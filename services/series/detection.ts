import type { Em } from "../db/orm.js";
import { lockForTransaction } from "../db/locks.js";
import { lockSeriesRow } from "../db/tables/series.js";
import { lastAutomaticDetectionAt, insertSeriesDetectionRun } from "../db/tables/series-detection-runs.js";
import { insertProposalRejection, listSeriesRejections } from "../db/tables/series-rejections.js";
import { counterpartyShortIds } from "../db/tables/counterparties.js";
import { detectionMembers, postedHistory } from "../db/tables/transactions.js";
import { validation } from "../errors/coffer-error.js";
import type { Actor } from "../ledger/actor.js";
import type { PeriodicTask } from "../periodic.js";
import { detectSeries, parseFingerprint, type DetectorTransaction, type Proposal } from "./detector/detect.js";
import { centsOf, formatCents } from "../../common/money.js";
import { linkMembers, lockMembers, refreshSeries } from "./membership.js";
import { insertSeries } from "./series.js";
import { nowOf } from "../clock.js";

/**
 * Detection against the database: load the household's posted history, run
 * the detector (detector/detect.ts, pure), then judge its proposals against
 * what exists: a proposal whose transactions continue an existing series
 * extends it; one a person deleted or rejected is dropped; one with nothing
 * to add is dropped. Applying writes the rest, in one database transaction.
 *
 * When it runs: on request (POST /series/detect/apply), once a day (the
 * core's periodic task below), and after each sync through
 * detectSeriesAfterSync, which the sync engine calls when it has imported
 * transactions.
 */

/** Detection that runs by itself (daily, after a sync) creates series from this confidence up. */
export const AUTO_MIN_CONFIDENCE = 0.7;
/** What POST /series/detect/apply uses when min_confidence is left out. */
export const DEFAULT_APPLY_MIN_CONFIDENCE = AUTO_MIN_CONFIDENCE;
/** Who automatic detection writes as, in the audit trail and as the series' creator. */
export const DETECTION_ACTOR: Actor = { type: "system", id: null, keyId: null, name: "series detection" };
/** The daily run happens when the last automatic one is at least this old. */
const DAILY_AFTER_MS = 23.5 * 3600_000;

export type DetectionTrigger = "api" | "nightly" | "sync";

/** Today's date in UTC, YYYY-MM-DD: the day the detector judges "ended" and "next expected" from. */
export const todayUtc = (now: Date) => now.toISOString().slice(0, 10);

export function parseMinConfidence(raw: number | undefined, fallback: number): number {
  if (raw === undefined) return fallback;
  if (!Number.isFinite(raw) || raw < 0 || raw > 1) throw validation("min_confidence must be between 0 and 1");
  return raw;
}

/**
 * Every posted (not pending), live transaction, as the detector reads them:
 * the rows come out of SQL in the detector's own shape, so a million of them
 * are read without a second copy.
 */
export async function loadHistory(em: Em): Promise<DetectorTransaction[]> {
  return postedHistory<DetectorTransaction>(em);
}

interface Rejection {
  key: string | null;
  lo: number;
  hi: number;
  ids: Set<string>;
}

async function loadRejections(em: Em): Promise<Rejection[]> {
  const rows = await listSeriesRejections(em);
  return rows.map((r) => ({ key: r.key, lo: centsOf(r.lo), hi: centsOf(r.hi), ids: new Set(r.ids) }));
}

/** A signed amount range widened by a tenth of each end's size: amounts "about the same". */
const widened = (lo: number, hi: number) => [lo - Math.ceil(Math.abs(lo) / 10), hi + Math.ceil(Math.abs(hi) / 10)];

/**
 * A person deleted or rejected this proposal before: a rejection of the same
 * group with about the same amounts, or one that held any of its transactions.
 */
function isRejected(p: Proposal, rejections: Rejection[]): boolean {
  const [lo, hi] = widened(p.amountMinCents, p.amountMaxCents);
  return rejections.some(
    (r) => (r.key === p.key && lo <= r.hi && r.lo <= hi) || p.transactionIds.some((id) => r.ids.has(id)),
  );
}

/** A proposal as detection shows it: with short ids, and the existing series it would extend, if any. */
export interface ProposalView {
  proposal: Proposal;
  transactionShortIds: string[];
  counterpartyShortId: string | null;
  /** The existing series its transactions continue. */
  series: { id: string; shortId: string; name: string } | null;
  /** Its transactions that belong to no series yet (UUIDs): what applying links. */
  unlinkedIds: string[];
}

/**
 * What applying would do, without writing: the detector's proposals from
 * `minConfidence` up, less the rejected ones, each either a new series (none
 * of its transactions belongs to a series) or an extension of the one active
 * series some of them belong to. A proposal touching several series, a
 * paused or ended one, or nothing new, is left out: detection never moves a
 * transaction.
 */
export async function detectProposals(em: Em, opts: { minConfidence: number; today: string }): Promise<ProposalView[]> {
  const proposals = detectSeries(await loadHistory(em), { today: opts.today }).filter(
    (p) => p.confidence >= opts.minConfidence,
  );
  if (proposals.length === 0) return [];
  const rejections = await loadRejections(em);
  const kept = proposals.filter((p) => !isRejected(p, rejections));
  const memberIds = kept.flatMap((p) => p.transactionIds);
  const members = await detectionMembers(em, memberIds);
  const byId = new Map(members.map((m) => [m.id, m]));
  const cpIds = [...new Set(kept.flatMap((p) => (p.counterpartyId ? [p.counterpartyId] : [])))];
  const cpShort = await counterpartyShortIds(em, cpIds);

  const views: ProposalView[] = [];
  for (const p of kept) {
    const rows = p.transactionIds.map((id) => byId.get(id)).filter((r) => r !== undefined);
    const linked = rows.filter((r) => r.series_id !== null);
    const unlinkedIds = rows.filter((r) => r.series_id === null).map((r) => r.id);
    const seriesIds = new Set(linked.map((r) => r.series_id));
    if (unlinkedIds.length === 0 || seriesIds.size > 1) continue;
    let series: ProposalView["series"] = null;
    if (linked.length > 0) {
      if (linked[0].series_status !== "active") continue;
      series = { id: linked[0].series_id!, shortId: linked[0].series_short_id!, name: linked[0].series_name! };
    }
    views.push({
      proposal: p,
      transactionShortIds: rows.map((r) => r.short_id),
      counterpartyShortId: p.counterpartyId ? (cpShort.get(p.counterpartyId) ?? null) : null,
      series,
      unlinkedIds,
    });
  }
  return views;
}

export interface DetectionApplied {
  /** UUIDs of the series created. */
  created: string[];
  /** UUIDs of existing series that got transactions. */
  extended: string[];
  linked: number;
  proposals: number;
}

/** Applies detection: creates and extends series from `minConfidence` up, and records the run. */
export async function applySeriesDetection(
  em: Em,
  actor: Actor,
  opts: { minConfidence: number; trigger: DetectionTrigger; today?: string },
): Promise<DetectionApplied> {
  return em.transactional(async (tx) => {
    await lockForTransaction(tx, "seriesDetection");
    return applyLocked(tx, actor, { ...opts, today: opts.today ?? todayUtc(nowOf(tx)) });
  });
}

async function applyLocked(
  tx: Em,
  actor: Actor,
  opts: { minConfidence: number; trigger: DetectionTrigger; today: string },
): Promise<DetectionApplied> {
  const started = nowOf(tx);
  const views = await detectProposals(tx, opts);
  const out: DetectionApplied = { created: [], extended: [], linked: 0, proposals: views.length };
  for (const v of views) {
    // Series row first, then its transactions: every series change locks in this order.
    if (v.series) await lockSeriesRow(tx, v.series.id);
    const rows = await lockMembers(tx, v.unlinkedIds, { skipDeleted: true });
    if (v.series) {
      const linked = await linkMembers(tx, actor, v.series, rows);
      if (linked.length === 0) continue;
      await refreshSeries(tx, v.series.id);
      out.extended.push(v.series.id);
      out.linked += linked.length;
      continue;
    }
    const p = v.proposal;
    const series = await insertSeries(tx, actor, {
      name: p.name,
      type: p.type,
      cadence: p.cadence,
      expectedAmount: formatCents(p.expectedCents),
      amountTolerance: formatCents(p.toleranceCents),
      isoCurrencyCode: p.currency,
      counterpartyId: p.counterpartyId,
      status: p.status,
      nextExpectedDate: p.nextExpectedDate,
      lastSeenDate: p.lastDate,
      source: "detected",
      confidence: p.confidence.toFixed(2),
      reason: p.reason,
      detectionKey: p.key,
    });
    const linked = await linkMembers(tx, actor, series, rows);
    await refreshSeries(tx, series.id, { keepNextExpected: true });
    out.created.push(series.id);
    out.linked += linked.length;
  }
  await insertSeriesDetectionRun(tx, {
    trigger: opts.trigger,
    minConfidence: opts.minConfidence.toFixed(2),
    proposals: out.proposals,
    created: out.created.length,
    extended: out.extended.length,
    linked: out.linked,
    startedAt: started,
  });
  return out;
}

/**
 * The daily detection: applies detection as the system (AUTO_MIN_CONFIDENCE)
 * when the last automatic run (daily or after a sync) is 23.5 hours old or
 * more, or there was none. Returns null when it was not due. Checked under
 * the detection lock, so several cores run it once between them.
 */
export async function runDailySeriesDetection(em: Em, now = nowOf(em)): Promise<DetectionApplied | null> {
  return em.transactional(async (tx) => {
    await lockForTransaction(tx, "seriesDetection");
    const last = await lastAutomaticDetectionAt(tx);
    if (last && now.getTime() - last.getTime() < DAILY_AFTER_MS) return null;
    return applyLocked(tx, DETECTION_ACTOR, {
      minConfidence: AUTO_MIN_CONFIDENCE,
      trigger: "nightly",
      today: todayUtc(now),
    });
  });
}

/** The core's periodic task: every hour, run the daily detection if it is due. */
export const seriesDetectionTask: PeriodicTask = {
  queue: "coffer-series-detection",
  name: "daily series detection",
  run: (em) => runDailySeriesDetection(em),
};

/**
 * What a sync calls once it has imported transactions: detection applied as
 * the system, at AUTO_MIN_CONFIDENCE, so new charges join their series (and
 * new series appear) right away. It counts as the day's automatic run.
 */
export async function detectSeriesAfterSync(em: Em): Promise<DetectionApplied> {
  return applySeriesDetection(em, DETECTION_ACTOR, { minConfidence: AUTO_MIN_CONFIDENCE, trigger: "sync" });
}

/** Remembers that a proposal is wrong (by the fingerprint detection gave it): it is never proposed again. */
export async function rejectSeriesProposal(em: Em, actor: Actor, fingerprint: string): Promise<void> {
  const f = parseFingerprint(fingerprint.trim());
  if (!f) throw validation("fingerprint is not one that series detection returned");
  await insertProposalRejection(em, {
    key: f.key,
    amountMin: formatCents(f.amountMinCents),
    amountMax: formatCents(f.amountMaxCents),
    actor,
  });
}
