import {
  SERIES_CADENCES,
  SERIES_STATUSES,
  SERIES_TYPES,
  SeriesEntity,
  type Series,
  type SeriesCadence,
  type SeriesStatus,
  type SeriesType,
} from "../db/entities/index.js";
import type { Em } from "../db/orm.js";
import { deleteSeriesRow, listSeriesRows, lockSeriesRow } from "../db/tables/series.js";
import { insertDeletedSeriesRejection } from "../db/tables/series-rejections.js";
import { counterpartyShortIds } from "../db/tables/counterparties.js";
import { lockSeriesTransactions, otherSeriesCurrency, seriesAmountRange } from "../db/tables/transactions.js";
import { CofferError, validation } from "../errors/coffer-error.js";
import { withShortId } from "../ids/insert.js";
import type { Actor } from "../ledger/actor.js";
import { recordAnnotation, recordAnnotations } from "../ledger/annotations.js";
import { resolveCounterparty } from "../ledger/counterparties/counterparties.js";
import { resolveTransactionIds } from "../ledger/transactions/batch-ids.js";
import { quoted } from "../ledger/transactions/locked-row.js";
import {
  amountCents,
  canonicalAmount,
  parseCurrency,
  parseDate,
  parseText,
  type InputErrorCode,
} from "../shared/validate.js";
import {
  MAX_SERIES_IDS,
  checkCurrency,
  latest,
  linkMembers,
  lockMembers,
  refreshSeries,
  unlinkMembers,
  type MemberRow,
} from "./membership.js";
import { loadSeries, resolveSeriesId, type SeriesView } from "./view.js";
import { nowOf } from "../clock.js";

/** One of `allowed`, or a CofferError naming the field and the choices. */
function oneOf<T extends string>(allowed: readonly T[], raw: string, field: string, code: InputErrorCode): T {
  const v = raw.trim().toLowerCase();
  if (!(allowed as readonly string[]).includes(v)) {
    throw new CofferError(code, `${field} must be one of ${allowed.join(", ")}`);
  }
  return v as T;
}

export const parseSeriesType = (raw: string, code: InputErrorCode = "VALIDATION_ERROR"): SeriesType =>
  oneOf(SERIES_TYPES, raw, "type", code);
export const parseCadence = (raw: string, code: InputErrorCode = "VALIDATION_ERROR"): SeriesCadence =>
  oneOf(SERIES_CADENCES, raw, "cadence", code);
export const parseStatus = (raw: string, code: InputErrorCode = "VALIDATION_ERROR"): SeriesStatus =>
  oneOf(SERIES_STATUSES, raw, "status", code);

export const parseSeriesName = (raw: string | undefined) => parseText(raw, "name", { max: 200 });

/** A tolerance is an amount that is never below zero. */
export function parseTolerance(raw: string): string {
  const t = canonicalAmount(raw, "amount_tolerance");
  if (t.startsWith("-")) throw validation("amount_tolerance must not be negative");
  return t;
}

/** The filters of the series list (GET /series?status=&type=). */
export async function listSeries(em: Em, f: { status?: string; type?: string }): Promise<SeriesView[]> {
  return listSeriesRows(em, {
    status: f.status !== undefined && f.status.trim() !== "" ? parseStatus(f.status, "INVALID_PARAMETER") : undefined,
    type: f.type !== undefined && f.type.trim() !== "" ? parseSeriesType(f.type, "INVALID_PARAMETER") : undefined,
  });
}

export interface CreateSeriesInput {
  name: string;
  type?: string;
  cadence?: string;
  expectedAmount?: string;
  amountTolerance?: string;
  isoCurrencyCode?: string;
  counterpartyId?: string;
  status?: string;
  nextExpectedDate?: string;
  transactionIds?: string[];
}

/** Transactions to put into a new series: 1..500 ids, each live and in no series yet. */
async function newMembers(tx: Em, rawIds: string[]): Promise<MemberRow[]> {
  if (rawIds.length === 0) return [];
  if (rawIds.length > MAX_SERIES_IDS) {
    throw validation(`transaction_ids may list at most ${MAX_SERIES_IDS} transactions`);
  }
  const rows = await lockMembers(tx, await resolveTransactionIds(tx, rawIds));
  const taken = rows.find((r) => r.series_id !== null);
  if (taken) {
    throw new CofferError("CONFLICT", `transaction ${quoted(taken.short_id)} already belongs to a series`);
  }
  return rows;
}

/**
 * A series entered by hand. With transaction_ids, the currency and expected
 * amount default to those of the latest of them (and a given currency must
 * match them all); without, both are required.
 */
export async function createSeries(em: Em, actor: Actor, req: CreateSeriesInput): Promise<string> {
  const name = parseSeriesName(req.name);
  const type = req.type ? parseSeriesType(req.type) : "other";
  const cadence = req.cadence ? parseCadence(req.cadence) : "irregular";
  const status = req.status ? parseStatus(req.status) : "active";
  let expected = req.expectedAmount ? canonicalAmount(req.expectedAmount, "expected_amount") : undefined;
  const tolerance = req.amountTolerance ? parseTolerance(req.amountTolerance) : "0.00";
  let currency = req.isoCurrencyCode ? parseCurrency(req.isoCurrencyCode) : undefined;
  const next = req.nextExpectedDate ? parseDate(req.nextExpectedDate, "next_expected_date", "VALIDATION_ERROR") : null;
  const rawIds = req.transactionIds ?? [];
  if (rawIds.length === 0 && currency === undefined) {
    throw validation("iso_currency_code is required when no transaction_ids are given");
  }
  if (rawIds.length === 0 && expected === undefined) {
    throw validation("expected_amount is required when no transaction_ids are given");
  }
  return em.transactional(async (tx) => {
    const counterparty = req.counterpartyId ? await resolveCounterparty(tx, req.counterpartyId) : null;
    const members = await newMembers(tx, rawIds);
    if (members.length > 0) {
      const last = latest(members);
      currency ??= last.iso_currency_code;
      expected ??= canonicalAmount(last.amount);
      checkCurrency(members, currency, "iso_currency_code");
    }
    const series = await insertSeries(tx, actor, {
      name,
      type,
      cadence,
      expectedAmount: expected!,
      amountTolerance: tolerance,
      isoCurrencyCode: currency!,
      counterpartyId: counterparty?.id ?? null,
      status,
      nextExpectedDate: next,
      source: "manual",
      confidence: null,
      reason: null,
      detectionKey: null,
    });
    await linkMembers(tx, actor, series, members);
    await refreshSeries(tx, series.id, { keepNextExpected: next !== null });
    return series.id;
  });
}

export type NewSeries = Pick<
  Series,
  | "name"
  | "type"
  | "cadence"
  | "expectedAmount"
  | "amountTolerance"
  | "isoCurrencyCode"
  | "counterpartyId"
  | "status"
  | "nextExpectedDate"
  | "source"
  | "confidence"
  | "reason"
  | "detectionKey"
> & { lastSeenDate?: string | null };

/** Inserts a series row (with a fresh short id) and its `created` annotation. */
export async function insertSeries(
  tx: Em,
  actor: Actor,
  s: NewSeries,
): Promise<{ id: string; shortId: string; name: string }> {
  const id = crypto.randomUUID();
  const now = nowOf(tx);
  const shortId = await withShortId((shortId) =>
    tx
      .transactional((sp) =>
        sp.insert(SeriesEntity, {
          id,
          shortId,
          ...s,
          lastSeenDate: s.lastSeenDate ?? null,
          createdByType: actor.type,
          createdById: actor.id,
          createdByName: actor.name,
          createdAt: now,
          updatedAt: now,
        }),
      )
      .then(() => shortId),
  );
  await recordAnnotation(tx, actor, {
    entityType: "series",
    entityId: id,
    action: "created",
    details: {
      name: s.name,
      source: s.source,
      type: s.type,
      cadence: s.cadence,
      ...(s.reason ? { reason: s.reason } : {}),
    },
  });
  return { id, shortId, name: s.name };
}

export interface UpdateSeriesInput {
  id: string;
  name?: string;
  type?: string;
  cadence?: string;
  expectedAmount?: string;
  amountTolerance?: string;
  isoCurrencyCode?: string;
  /** "" clears it. */
  counterpartyId?: string;
  status?: string;
  /** "" clears it. */
  nextExpectedDate?: string;
}

/** Changes what was given; an annotation lists what changed (nothing changed: no annotation). */
export async function updateSeries(em: Em, actor: Actor, req: UpdateSeriesInput): Promise<string> {
  const wanted: Partial<Series> = {};
  if (req.name !== undefined) wanted.name = parseSeriesName(req.name);
  if (req.type !== undefined) wanted.type = parseSeriesType(req.type);
  if (req.cadence !== undefined) wanted.cadence = parseCadence(req.cadence);
  if (req.status !== undefined) wanted.status = parseStatus(req.status);
  if (req.expectedAmount !== undefined) wanted.expectedAmount = canonicalAmount(req.expectedAmount, "expected_amount");
  if (req.amountTolerance !== undefined) wanted.amountTolerance = parseTolerance(req.amountTolerance);
  if (req.isoCurrencyCode !== undefined) wanted.isoCurrencyCode = parseCurrency(req.isoCurrencyCode);
  if (req.nextExpectedDate !== undefined) {
    wanted.nextExpectedDate =
      req.nextExpectedDate.trim() === ""
        ? null
        : parseDate(req.nextExpectedDate, "next_expected_date", "VALIDATION_ERROR");
  }
  return em.transactional(async (tx) => {
    const id = await resolveSeriesId(tx, req.id);
    const current = await lockSeries(tx, id);
    if (req.counterpartyId !== undefined) {
      wanted.counterpartyId =
        req.counterpartyId.trim() === "" ? null : (await resolveCounterparty(tx, req.counterpartyId)).id;
    }
    if (wanted.isoCurrencyCode !== undefined && wanted.isoCurrencyCode !== current.isoCurrencyCode) {
      const other = await otherSeriesCurrency(tx, id, wanted.isoCurrencyCode);
      if (other !== null) {
        throw validation(
          `iso_currency_code ${wanted.isoCurrencyCode} does not match the series' transactions ` + `(${other})`,
        );
      }
    }
    const changes: Record<string, { from: unknown; to: unknown }> = {};
    const set: Partial<Series> = {};
    for (const [k, v] of Object.entries(wanted)) {
      const before = current[k as keyof Series];
      const same =
        k === "expectedAmount" || k === "amountTolerance"
          ? amountCents(canonicalAmount(String(before))) === amountCents(String(v))
          : before === v;
      if (same) continue;
      Object.assign(set, { [k]: v });
      changes[snake(k)] = k === "counterpartyId" ? await counterpartyChange(tx, before, v) : { from: before, to: v };
    }
    if (Object.keys(changes).length === 0) return id;
    await tx.nativeUpdate(SeriesEntity, { id }, { ...set, updatedAt: nowOf(tx) });
    // A new cadence moves the next expected date, unless one was given.
    if (changes.cadence && wanted.nextExpectedDate === undefined) await refreshSeries(tx, id);
    await recordAnnotation(tx, actor, { entityType: "series", entityId: id, action: "updated", details: { changes } });
    return id;
  });
}

const snake = (k: string) => k.replace(/[A-Z]/g, (c) => `_${c.toLowerCase()}`);

/** A counterparty change as the audit trail shows references: by short id. */
async function counterpartyChange(tx: Em, from: unknown, to: unknown): Promise<{ from: unknown; to: unknown }> {
  const ids = [from, to].filter((x): x is string => typeof x === "string");
  const short = await counterpartyShortIds(tx, ids);
  const of = (v: unknown) => (typeof v === "string" ? (short.get(v) ?? null) : null);
  return { from: of(from), to: of(to) };
}

async function lockSeries(tx: Em, id: string): Promise<Series> {
  await lockSeriesRow(tx, id);
  return tx.findOneOrFail(SeriesEntity, { id }, { refresh: true });
}

/**
 * Deletes a series. Its transactions stay and belong to no series (each
 * annotated), and the deletion is remembered as a rejection so detection
 * never proposes the series again.
 */
export async function deleteSeries(em: Em, actor: Actor, rawId: string): Promise<void> {
  await em.transactional(async (tx) => {
    const id = await resolveSeriesId(tx, rawId);
    const s = await lockSeries(tx, id);
    const members = await lockSeriesTransactions(tx, id);
    const range = await seriesAmountRange(tx, id);
    await insertDeletedSeriesRejection(tx, {
      detectionKey: s.detectionKey,
      lo: range.lo,
      hi: range.hi,
      expectedAmount: s.expectedAmount,
      amountTolerance: s.amountTolerance,
      transactionIds: members,
      seriesName: s.name,
      actor,
    });
    await recordAnnotations(
      tx,
      actor,
      members.map((m) => ({
        entityType: "transaction" as const,
        entityId: m,
        transactionId: m,
        action: "series_unassigned",
        details: { series_id: s.shortId, series_name: s.name, series_deleted: true },
      })),
    );
    await recordAnnotation(tx, actor, {
      entityType: "series",
      entityId: id,
      action: "deleted",
      details: { name: s.name, source: s.source, transactions: members.length },
    });
    await deleteSeriesRow(tx, id);
  });
}

/**
 * Adds and removes transactions, all or nothing: at most 500 ids in one call;
 * an added transaction must be in the series' currency and belong to no other
 * series; a removed one must belong to this series.
 */
export async function updateSeriesTransactions(
  em: Em,
  actor: Actor,
  req: { id: string; add: string[]; remove: string[] },
): Promise<{ id: string; added: number; removed: number }> {
  if (req.add.length + req.remove.length === 0) throw validation("add or remove must list at least one transaction");
  if (req.add.length + req.remove.length > MAX_SERIES_IDS) {
    throw validation(`add and remove may list at most ${MAX_SERIES_IDS} transactions together`);
  }
  return em.transactional(async (tx) => {
    const id = await resolveSeriesId(tx, req.id);
    const s = await lockSeries(tx, id);
    const addIds = req.add.length > 0 ? await resolveTransactionIds(tx, req.add) : [];
    const removeIds = req.remove.length > 0 ? await resolveTransactionIds(tx, req.remove) : [];
    const both = addIds.find((x) => removeIds.includes(x));
    if (both) throw validation("a transaction cannot be in both add and remove");
    const rows = await lockMembers(tx, [...addIds, ...removeIds]);
    const byId = new Map(rows.map((r) => [r.id, r]));
    const toAdd = addIds.map((x) => byId.get(x)!);
    const toRemove = removeIds.map((x) => byId.get(x)!);
    const elsewhere = toAdd.find((r) => r.series_id !== null && r.series_id !== id);
    if (elsewhere) {
      throw new CofferError(
        "CONFLICT",
        `add: transaction ${quoted(elsewhere.short_id)} belongs to another series; remove it there first`,
      );
    }
    checkCurrency(toAdd, s.isoCurrencyCode, "add");
    const stranger = toRemove.find((r) => r.series_id !== id);
    if (stranger) throw validation(`remove: transaction ${quoted(stranger.short_id)} does not belong to this series`);
    const ref = { id, shortId: s.shortId, name: s.name };
    const added = await linkMembers(tx, actor, ref, toAdd);
    const removed = await unlinkMembers(tx, actor, ref, toRemove);
    if (added.length + removed.length > 0) await refreshSeries(tx, id);
    return { id, added: added.length, removed: removed.length };
  });
}

export { loadSeries, resolveSeriesId };
