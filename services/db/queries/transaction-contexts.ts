import { randomBytes } from "node:crypto";
import type { CategorySource, TransactionContext } from "../../rules/engine/index.js";
import type { Em } from "../orm.js";
import { pgArray, query } from "../sql.js";
import type { TransactionPredicate } from "./transaction-filter.js";

/**
 * The reads of the rules' context loader (services/rules/context-loader.ts):
 * stored transactions as the rows conditions are judged on, whole or only the
 * column groups the conditions need, by id or in batches through a cursor.
 */

/** Column groups: what a condition field needs read, beyond short_id and date (always read). */
export type ContextGroup =
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

/*
 * Each column is named as the context field it fills, so a row the driver
 * returns is already the context: a scan builds a million of them, and
 * copying each into another object cost more than judging it.
 */
const COLUMNS: Record<ContextGroup, string[]> = {
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

/** A row as these reads return it: the context's fields, and what identifies and versions the row. */
export type ContextRow = TransactionContext & {
  /** With `full` reads only. */
  id?: string;
  shortId: string;
  /** The date as days since 1970-01-01. */
  day: number;
  /** transactions.seq as text, with `full` reads only. */
  seq?: string;
  categoryId?: string | null;
  categorySource?: CategorySource | null;
  /** The tag ids joined with commas ("" for none). */
  tagIdsText?: string;
  counterpartyId?: string | null;
};

/**
 * SELECT … FROM transactions t (+ the joins the groups need) WHERE `where`.
 * `full` adds what writing needs (the UUID and the row version); a scan that
 * only judges rows names them by short id.
 */
function contextSql(groups: ReadonlySet<ContextGroup>, where: string, tail: string, full: boolean): string {
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
  return `select ${cols.join(", ")} from transactions t ${joins.join(" ")} where ${where} ${tail}`;
}

/**
 * The full rows (every group, with ids) of these transactions, deleted ones
 * left out, in id order. With `lock`, the rows stay locked until the
 * surrounding database transaction ends.
 */
export async function contextRowsByIds(
  em: Em,
  groups: ReadonlySet<ContextGroup>,
  ids: readonly string[],
  opts: { lock?: boolean } = {},
): Promise<ContextRow[]> {
  const sql = contextSql(
    groups,
    "t.id = any(?::uuid[]) and t.deleted_at is null",
    `order by t.id${opts.lock ? " for update of t" : ""}`,
    true,
  );
  return query<ContextRow>(em, sql, [pgArray(ids)]);
}

/**
 * Rows per FETCH. Small enough that a batch dies young (larger ones survive
 * into the old generation and the garbage collector's cost doubles), large
 * enough that round trips stay few; measured on a million rows.
 */
const SCAN_BATCH = 1000;

/**
 * Reads the live transactions matching `where` in batches through a
 * server-side cursor, with the columns of `groups`. Must run inside a database
 * transaction (em.transactional). `onBatch` may stop the scan by returning false.
 */
export async function scanContextRows(
  tx: Em,
  scan: {
    where: TransactionPredicate;
    groups: ReadonlySet<ContextGroup>;
    /** Read the UUID and the row version too; else rows carry their short id only. */
    full: boolean;
    batchSize?: number;
    /** Runs before each statement (e.g. to check the time left). */
    beforeFetch?: () => Promise<void>;
    onBatch: (rows: ContextRow[]) => boolean | void | Promise<boolean | void>;
  },
): Promise<void> {
  const cursor = `rules_scan_${randomBytes(6).toString("hex")}`;
  await scan.beforeFetch?.();
  const select = contextSql(scan.groups, `t.deleted_at is null and (${scan.where.sql})`, "", scan.full);
  await query(tx, `declare ${cursor} no scroll cursor for ${select}`, [...scan.where.params]);
  const fetch = async () => {
    await scan.beforeFetch?.();
    return query<ContextRow>(tx, `fetch forward ${scan.batchSize ?? SCAN_BATCH} from ${cursor}`);
  };
  // The next batch is asked for before this one is judged, so the database and the evaluation overlap.
  let next: Promise<ContextRow[]> | null = fetch();
  try {
    for (;;) {
      const rows: ContextRow[] = await next;
      next = null;
      if (rows.length === 0) return;
      next = fetch();
      if ((await scan.onBatch(rows)) === false) return;
    }
  } finally {
    // A batch still on its way when the scan stops (or fails) is waited for, so its failure is not left unhandled.
    await next?.catch(() => undefined);
    await query(tx, `close ${cursor}`).catch(() => undefined);
  }
}
