import { randomBytes } from "node:crypto";
import type { Em } from "../db/orm.js";
import { pgArray, query } from "../db/sql.js";
import type { CategorySource, TransactionContext } from "./engine/index.js";
import type { TransactionState } from "./engine/pipeline.js";
import { categorySlugOf, type ReferenceMaps } from "./references.js";
import { seriesOf } from "./series.js";

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
  /** YYYY-MM-DD */
  date: string;
  context: TransactionContext;
  /** The stored values the pipeline may change (full loads only). */
  state: TransactionState;
  /** The stored tag ids, in their order (full loads only). */
  tagIds: string[];
}

/** Column groups: what a field needs read, beyond id, short_id and date (always read). */
type Group =
  | "names"
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
  provider_name: "names",
  provider_merchant_name: "names",
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

const COLUMNS: Record<Group, string[]> = {
  names: ["t.provider_name", "t.provider_merchant_name"],
  // Integer cents, computed exactly by PostgreSQL (numeric × 100 has no fraction left).
  amount: ["(t.amount * 100)::bigint::text as cents"],
  providerCategory: ["t.provider_category_primary", "t.provider_category_detailed"],
  pending: ["t.pending"],
  provider: ["t.provider"],
  account: ["a.short_id as account_short_id", "a.name as account_name"],
  user: ["u.short_id as user_short_id", "u.name as user_name"],
  category: ["t.category_id", "t.category_source"],
  tags: ["t.tag_ids::text[] as tag_ids"],
  counterparty: ["t.counterparty_id", "cp.name as counterparty_name"],
  metadata: ["t.metadata"],
  series: [],
};

interface Row {
  id: string;
  short_id: string;
  date: string;
  provider_name?: string;
  provider_merchant_name?: string | null;
  cents?: string;
  provider_category_primary?: string | null;
  provider_category_detailed?: string | null;
  pending?: boolean;
  provider?: string;
  account_short_id?: string;
  account_name?: string;
  user_short_id?: string;
  user_name?: string;
  category_id?: string | null;
  category_source?: CategorySource | null;
  tag_ids?: string[];
  counterparty_id?: string | null;
  counterparty_name?: string | null;
  metadata?: Record<string, unknown>;
}

/** SELECT … FROM transactions t (+ the joins the groups need) WHERE `where`. */
export function contextSql(groups: ReadonlySet<Group>, where: string, tail = ""): string {
  const cols = ["t.id", "t.short_id", "to_char(t.date, 'YYYY-MM-DD') as date"];
  for (const g of groups) cols.push(...COLUMNS[g]);
  const joins = [
    groups.has("account") || groups.has("user") ? "join accounts a on a.id = t.account_id" : "",
    groups.has("user") ? "join users u on u.id = a.user_id" : "",
    groups.has("counterparty") ? "left join counterparties cp on cp.id = t.counterparty_id" : "",
  ];
  return `select ${cols.join(", ")} from transactions t ${joins.join(" ")} where ${where} ${tail}`;
}

function toLoaded(r: Row, groups: ReadonlySet<Group>, maps: ReferenceMaps): LoadedTransaction {
  const ctx: TransactionContext = { date: r.date };
  if (groups.has("names")) {
    ctx.providerName = r.provider_name;
    ctx.providerMerchantName = r.provider_merchant_name;
  }
  if (groups.has("amount")) ctx.amountCents = Number(r.cents);
  if (groups.has("providerCategory")) {
    ctx.providerCategoryPrimary = r.provider_category_primary;
    ctx.providerCategoryDetailed = r.provider_category_detailed;
  }
  if (groups.has("pending")) ctx.pending = r.pending;
  if (groups.has("provider")) ctx.provider = r.provider;
  if (groups.has("account")) {
    ctx.accountId = r.account_short_id;
    ctx.accountName = r.account_name;
  }
  if (groups.has("user")) {
    ctx.userId = r.user_short_id;
    ctx.userName = r.user_name;
  }
  if (groups.has("category")) ctx.category = categorySlugOf(maps, r.category_id ?? null);
  if (groups.has("tags")) ctx.tags = r.tag_ids!.flatMap((id) => maps.tags.get(id) ?? []);
  if (groups.has("counterparty")) ctx.counterparty = r.counterparty_name ?? null;
  if (groups.has("metadata")) ctx.metadata = r.metadata;
  return {
    id: r.id,
    shortId: r.short_id,
    date: r.date,
    context: ctx,
    state: {
      categoryId: r.category_id ?? null,
      categorySource: r.category_source ?? null,
      counterpartyId: r.counterparty_id ?? null,
    },
    tagIds: r.tag_ids ?? [],
  };
}

async function withSeries(em: Em, loaded: LoadedTransaction[], groups: ReadonlySet<Group>): Promise<void> {
  if (!groups.has("series") || loaded.length === 0) return;
  const facts = await seriesOf(
    em,
    loaded.map((l) => l.id),
  );
  for (const l of loaded) {
    const f = facts.get(l.id);
    l.context.series = f?.series ?? "";
    l.context.inSeries = f?.inSeries ?? false;
  }
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
  const loaded = rows.map((r) => toLoaded(r, ALL_GROUPS, maps));
  await withSeries(em, loaded, ALL_GROUPS);
  return loaded;
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
    batchSize?: number;
    /** Runs before each statement (e.g. to set the remaining statement timeout). */
    beforeFetch?: () => Promise<void>;
    onBatch: (batch: LoadedTransaction[]) => boolean | void | Promise<boolean | void>;
  },
): Promise<void> {
  const groups = groupsFor(scan.fields);
  const cursor = `rules_scan_${randomBytes(6).toString("hex")}`;
  await scan.beforeFetch?.();
  await query(
    tx,
    `declare ${cursor} no scroll cursor for ${contextSql(groups, `t.deleted_at is null and (${scan.where})`)}`,
    scan.params,
  );
  try {
    for (;;) {
      await scan.beforeFetch?.();
      const rows = await query<Row>(tx, `fetch forward ${scan.batchSize ?? 5000} from ${cursor}`);
      if (rows.length === 0) return;
      const batch = rows.map((r) => toLoaded(r, groups, scan.maps));
      await withSeries(tx, batch, groups);
      if ((await scan.onBatch(batch)) === false) return;
    }
  } finally {
    await query(tx, `close ${cursor}`).catch(() => undefined);
  }
}
