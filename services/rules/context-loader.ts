import type { Em } from "../db/orm.js";
import {
  contextRowsByIds,
  scanContextRows,
  type ContextGroup as Group,
  type ContextRow as Row,
} from "../db/queries/transaction-contexts.js";
import type { TransactionPredicate } from "../db/queries/transaction-filter.js";
import { accountOwners } from "../db/tables/accounts.js";
import { amountCents } from "../shared/validate.js";
import type { CategorySource, TransactionContext } from "./engine/index.js";
import type { TransactionState } from "./engine/pipeline.js";
import { categorySlugOf, type ReferenceMaps } from "./references.js";
import { seriesConditionFields } from "../series/rules-hooks.js";

/**
 * The one context loader: stored transactions → the contexts conditions are
 * judged on. The sync pipeline, retroactive apply, preview_rule and
 * find_matching_rules all read transactions through it, so they see the same
 * values. It reads the whole context, or (for scans over many rows) only the
 * columns the conditions need: a condition only reads its own fields, so
 * such a partial context gives the same answer.
 */

export interface LoadedTransaction {
  id: string;
  shortId: string;
  /** The date as days since 1970-01-01. */
  day: number;
  context: TransactionContext;
  /** The stored values the pipeline may change (full loads only). */
  state: TransactionState;
  /** The stored tag ids, in their order (full loads only). */
  tagIds: string[];
  /** The row's version (transactions.seq, renewed by every change): a write checks it is unchanged. */
  seq: string;
}

const GROUP_OF_FIELD: Record<string, Group | null> = {
  provider_name: "name",
  provider_merchant_name: "merchant",
  amount: "amount",
  provider_category_primary: "providerCategory",
  provider_category_detailed: "providerCategory",
  pending: "pending",
  provider: "provider",
  account_id: "account",
  account_name: "account",
  user_id: "user",
  user_name: "user",
  day_of_month: null,
  month: null,
  day_of_week: null,
  day_of_year: null,
  category: "category",
  tags: "tags",
  series: "series",
  in_series: "series",
  counterparty: "counterparty",
  has_counterparty: "counterparty",
};

const ALL_GROUPS: ReadonlySet<Group> = new Set(
  Object.values(GROUP_OF_FIELD)
    .filter((g): g is Group => g !== null)
    .concat("metadata"),
);

/** The column groups the given condition fields need ("all" for the whole context). */
export function groupsFor(fields: ReadonlySet<string> | "all"): ReadonlySet<Group> {
  if (fields === "all") return ALL_GROUPS;
  const groups = new Set<Group>();
  for (const f of fields) {
    const g = f.startsWith("metadata.") ? "metadata" : GROUP_OF_FIELD[f];
    if (g) groups.add(g);
  }
  return groups;
}

// Shared by every row that has none: a scan builds a million contexts, so each allocation counts.
const NO_TAGS: string[] = [];
const NO_STATE: TransactionState = Object.freeze({ categoryId: null, categorySource: null, counterpartyId: null });

/** Completes rows into contexts (category and tag slugs from their ids) and wraps them with what identifies them. */
function loader(groups: ReadonlySet<Group>, maps: ReferenceMaps): (r: Row) => LoadedTransaction {
  const category = groups.has("category");
  const tags = groups.has("tags");
  const series = groups.has("series");
  return (r) => {
    if (category) r.category = categorySlugOf(maps, r.categoryId ?? null);
    if (series) {
      const f = seriesConditionFields(r.series ?? null);
      r.series = f.series;
      r.inSeries = f.in_series;
    }
    let tagIds = NO_TAGS;
    if (tags) {
      if (r.tagIdsText) tagIds = r.tagIdsText.split(",");
      r.tags = tagIds.length === 0 ? NO_TAGS : tagIds.flatMap((id) => maps.tags.get(id) ?? []);
    }
    return {
      id: r.id ?? "",
      shortId: r.shortId,
      day: r.day,
      context: r,
      state:
        r.id === undefined
          ? NO_STATE
          : {
              categoryId: r.categoryId ?? null,
              categorySource: r.categorySource ?? null,
              counterpartyId: r.counterpartyId ?? null,
            },
      tagIds,
      seq: r.seq ?? "",
    };
  };
}

/**
 * The full contexts of these transactions (deleted ones are left out), in id
 * order. With `lock`, the rows stay locked until the surrounding database
 * transaction ends, so what the pipeline read is what it changes.
 */
export async function loadContexts(
  em: Em,
  ids: readonly string[],
  maps: ReferenceMaps,
  opts: { lock?: boolean } = {},
): Promise<LoadedTransaction[]> {
  if (ids.length === 0) return [];
  return (await contextRowsByIds(em, ALL_GROUPS, ids, opts)).map(loader(ALL_GROUPS, maps));
}

/** A transaction about to be inserted (by a sync page), with the values it will be stored with. */
export interface NewTransactionValues {
  id: string;
  shortId: string;
  accountId: string;
  /** Canonical decimal text, e.g. "12.50". */
  amount: string;
  /** YYYY-MM-DD. */
  date: string;
  provider: string;
  providerName: string;
  providerMerchantName: string | null;
  providerCategoryPrimary: string | null;
  providerCategoryDetailed: string | null;
  pending: boolean;
  categoryId: string | null;
  categorySource: CategorySource | null;
}

/** Days since 1970-01-01 of a "YYYY-MM-DD" date, as PostgreSQL's `date - date '1970-01-01'` (any year). */
function dayNumber(date: string): number {
  const d = new Date(0);
  d.setUTCFullYear(Number(date.slice(0, 4)), Number(date.slice(5, 7)) - 1, Number(date.slice(8, 10)));
  return d.getTime() / 86_400_000;
}

/**
 * The full contexts of transactions not stored yet, as they will be once
 * inserted with these values (no tags, metadata, counterparty or series
 * yet): the rows loadContexts would read after the insert, built here from
 * the values and their accounts (one read for the batch), so a sync page's
 * new rows are judged without sending them to the database and back. The
 * same row mapping as loadContexts; a test pins that both agree.
 */
export async function loadNewContexts(
  em: Em,
  rows: readonly NewTransactionValues[],
  maps: ReferenceMaps,
): Promise<LoadedTransaction[]> {
  if (rows.length === 0) return [];
  const owners = new Map((await accountOwners(em, [...new Set(rows.map((r) => r.accountId))])).map((a) => [a.id, a]));
  const toLoaded = loader(ALL_GROUPS, maps);
  const out: LoadedTransaction[] = [];
  // In id order, as loadContexts reads them (a UUID's text order is its order in PostgreSQL).
  for (const r of [...rows].sort((x, y) => (x.id < y.id ? -1 : x.id > y.id ? 1 : 0))) {
    const a = owners.get(r.accountId);
    // A row of an unknown account cannot be stored (its foreign key): it has no context, as in the join.
    if (!a) continue;
    const row: Row = {
      shortId: r.shortId,
      day: dayNumber(r.date),
      id: r.id,
      seq: "0",
      providerName: r.providerName,
      providerMerchantName: r.providerMerchantName,
      amountCents: Number(amountCents(r.amount)),
      providerCategoryPrimary: r.providerCategoryPrimary,
      providerCategoryDetailed: r.providerCategoryDetailed,
      pending: r.pending,
      provider: r.provider,
      accountId: a.short_id,
      accountName: a.name,
      userId: a.user_short_id,
      userName: a.user_name,
      categoryId: r.categoryId,
      categorySource: r.categorySource,
      tagIdsText: "",
      counterpartyId: null,
      counterparty: null,
      metadata: {},
    };
    out.push(toLoaded(row));
  }
  return out;
}

/**
 * Reads the non-deleted transactions matching `where` in batches through a
 * server-side cursor, with only the columns `fields` need. Must run inside a
 * database transaction (em.transactional). `onBatch` may stop the scan by
 * returning false.
 */
export async function scanContexts(
  tx: Em,
  scan: {
    where: TransactionPredicate;
    fields: ReadonlySet<string> | "all";
    maps: ReferenceMaps;
    /** Read the UUID and the row version too (the rows will be written); else rows carry their short id only. */
    withIds?: boolean;
    batchSize?: number;
    /** Runs before each statement (e.g. to check the time left). */
    beforeFetch?: () => Promise<void>;
    onBatch: (batch: LoadedTransaction[]) => boolean | void | Promise<boolean | void>;
  },
): Promise<void> {
  const groups = groupsFor(scan.fields);
  const toLoaded = loader(groups, scan.maps);
  await scanContextRows(tx, {
    where: scan.where,
    groups,
    full: scan.withIds === true,
    batchSize: scan.batchSize,
    beforeFetch: scan.beforeFetch,
    onBatch: (rows) => scan.onBatch(rows.map(toLoaded)),
  });
}
