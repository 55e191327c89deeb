import { randomBytes } from "node:crypto";
import type { Em } from "../db/orm.js";
import { pgArray, query } from "../db/sql.js";
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

/** Column groups: what a field needs read, beyond id, short_id and date (always read). */
type Group =
  | "name"
  | "merchant"
  | "amount"
  | "providerCategory"
  | "pending"
  | "provider"
  | "account"
  | "user"
  | "category"
  | "tags"
  | "counterparty"
  | "metadata"
  | "series";

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

/*
 * Each column is named as the context field it fills, so a row the driver
 * returns is already the context: a scan builds a million of them, and
 * copying each into another object cost more than judging it.
 */
const COLUMNS: Record<Group, string[]> = {
  name: [`t.provider_name as "providerName"`],
  merchant: [`t.provider_merchant_name as "providerMerchantName"`],
  // An integer number of cents, computed exactly by PostgreSQL; a float8 holds it exactly (it is below 2^53).
  amount: [`(t.amount * 100)::float8 as "amountCents"`],
  providerCategory: [
    `t.provider_category_primary as "providerCategoryPrimary"`,
    `t.provider_category_detailed as "providerCategoryDetailed"`,
  ],
  pending: ["t.pending"],
  provider: ["t.provider"],
  account: [`a.short_id as "accountId"`, `a.name as "accountName"`],
  user: [`u.short_id as "userId"`, `u.name as "userName"`],
  category: [`t.category_id as "categoryId"`, `t.category_source as "categorySource"`],
  // Text, split in JavaScript: cheaper than the driver's array parser on a million rows.
  tags: [`array_to_string(t.tag_ids, ',') as "tagIdsText"`],
  counterparty: [`t.counterparty_id as "counterpartyId"`, "cp.name as counterparty"],
  metadata: ["t.metadata"],
  series: [`s.short_id as "series"`],
};

/** A row as contextSql reads it: the context's fields, and what identifies and versions the row. */
type Row = TransactionContext & {
  id?: string;
  shortId: string;
  day: number;
  seq?: string;
  categoryId?: string | null;
  categorySource?: CategorySource | null;
  tagIdsText?: string;
  counterpartyId?: string | null;
};

/**
 * SELECT … FROM transactions t (+ the joins the groups need) WHERE `where`.
 * `full` adds what writing needs (the UUID and the row version); a scan that
 * only judges rows names them by short id.
 */
export function contextSql(
  groups: ReadonlySet<Group>,
  where: string,
  tail = "",
  full = true,
  from = "transactions t",
): string {
  // The date as a day number: far cheaper for PostgreSQL to produce than text, and for us to take apart.
  const cols = [`t.short_id as "shortId"`, "t.date - date '1970-01-01' as day"];
  if (full) cols.push("t.id", "t.seq::text as seq");
  for (const g of groups) cols.push(...COLUMNS[g]);
  const joins = [
    groups.has("account") || groups.has("user") ? "join accounts a on a.id = t.account_id" : "",
    groups.has("user") ? "join users u on u.id = a.user_id" : "",
    groups.has("counterparty") ? "left join counterparties cp on cp.id = t.counterparty_id" : "",
    groups.has("series") ? "left join series s on s.id = t.series_id" : "",
  ];
  return `select ${cols.join(", ")} from ${from} ${joins.join(" ")} where ${where} ${tail}`;
}

/**
 * Rows per FETCH. Small enough that a batch dies young (larger ones survive
 * into the old generation and the garbage collector's cost doubles), large
 * enough that round trips stay few; measured on a million rows.
 */
const SCAN_BATCH = 1000;

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
  const sql = contextSql(
    ALL_GROUPS,
    "t.id = any(?::uuid[]) and t.deleted_at is null",
    `order by t.id${opts.lock ? " for update of t" : ""}`,
  );
  const rows = await query<Row>(em, sql, [pgArray(ids)]);
  return rows.map(loader(ALL_GROUPS, maps));
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
 * Reads the non-deleted transactions matching `where` (a predicate over `t`)
 * in batches through a server-side cursor, with only the columns `fields`
 * need. Must run inside a database transaction (em.transactional). `onBatch`
 * may stop the scan by returning false.
 */
export async function scanContexts(
  tx: Em,
  scan: {
    where: string;
    params: unknown[];
    fields: ReadonlySet<string> | "all";
    maps: ReferenceMaps;
    /** Read the UUID and the row version too (the rows will be written); else rows carry their short id only. */
    withIds?: boolean;
    batchSize?: number;
    /** Runs before each statement (e.g. to set the remaining statement timeout). */
    beforeFetch?: () => Promise<void>;
    onBatch: (batch: LoadedTransaction[]) => boolean | void | Promise<boolean | void>;
  },
): Promise<void> {
  const groups = groupsFor(scan.fields);
  const full = scan.withIds === true;
  const cursor = `rules_scan_${randomBytes(6).toString("hex")}`;
  await scan.beforeFetch?.();
  const select = contextSql(groups, `t.deleted_at is null and (${scan.where})`, "", full);
  const toLoaded = loader(groups, scan.maps);
  await query(tx, `declare ${cursor} no scroll cursor for ${select}`, scan.params);
  const fetch = async () => {
    await scan.beforeFetch?.();
    return query<Row>(tx, `fetch forward ${scan.batchSize ?? SCAN_BATCH} from ${cursor}`);
  };
  // The next batch is asked for before this one is judged, so the database and the evaluation overlap.
  let next: Promise<Row[]> | null = fetch();
  try {
    for (;;) {
      const rows: Row[] = await next;
      next = null;
      if (rows.length === 0) return;
      next = fetch();
      const batch = rows.map(toLoaded);
      if ((await scan.onBatch(batch)) === false) return;
    }
  } finally {
    // A batch still on its way when the scan stops (or fails) is waited for, so its failure is not left unhandled.
    await next?.catch(() => undefined);
    await query(tx, `close ${cursor}`).catch(() => undefined);
  }
}
