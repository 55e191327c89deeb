import type { SEARCH_MODES } from "../../../common/enums.js";
import { containsPattern, wholeWordPattern } from "../search-patterns.js";
import { pgArray } from "../sql.js";

/**
 * The WHERE builder of every read that selects transactions by filters (the
 * list's pages, the count, the summary, the rules' scans). The caller hands
 * over filters already validated and resolved to ids; this module alone turns
 * them into SQL. The predicate reads only columns that `transactions` and
 * `transaction_versions` share, over rows aliased `t`, so snapshot pages apply
 * it to old row versions too.
 */

export type SearchMode = (typeof SEARCH_MODES)[number];

/** Resolved filters; each one left out does not narrow. */
export interface TransactionFilterSpec {
  /** Inclusive, YYYY-MM-DD. */
  startDate?: string;
  /** Exclusive, YYYY-MM-DD. */
  endDate?: string;
  accountId?: string;
  /** The owner's UUID: transactions of that person's accounts. */
  userId?: string;
  /** A category and its children; `orUncategorized` also matches a transaction without one. */
  category?: { ids: readonly string[]; orUncategorized: boolean };
  /** Canonical decimal text. */
  minAmount?: string;
  maxAmount?: string;
  pending?: boolean;
  /** Lower-cased terms, any of which matches. */
  search?: { terms: readonly string[]; mode: SearchMode };
  /** Every one of these tags; null when one of the tags asked for does not exist (nothing matches). */
  allTagIds?: readonly string[] | null;
  seriesId?: string;
  inSeries?: boolean;
  /** Any of these tags (none: nothing matches). */
  anyTagIds?: readonly string[];
}

/** A predicate over transactions `t` with its `?` parameters; only this folder reads or writes its text. */
export interface TransactionPredicate {
  readonly sql: string;
  readonly params: readonly unknown[];
}

export const MATCH_ALL: TransactionPredicate = { sql: "true", params: [] };

/** Both predicates. */
export function bothPredicates(a: TransactionPredicate, b: TransactionPredicate | null): TransactionPredicate {
  if (b === null) return a;
  return { sql: `(${a.sql}) and (${b.sql})`, params: [...a.params, ...b.params] };
}

/**
 * The SQL (and params) matching one search term in the name or the merchant
 * name. `search_text` is both names lower-cased (Migration0004SearchText);
 * the pattern is lower-cased by PostgreSQL too, so both sides fold alike.
 */
function searchTermSql(term: string, mode: SearchMode): { sql: string; params: unknown[] } {
  switch (mode) {
    case "contains":
      return { sql: `t.search_text like lower(?)`, params: [containsPattern(term)] };
    case "words": {
      // Every word of the term, as a whole word, in the same field. The LIKE prefilter reads
      // only the index; the regexes run on the rows that contain every word at all.
      const split = term.split(" ");
      const words = split.map(wholeWordPattern);
      const all = (col: string) => words.map(() => `${col} ~* ?`).join(" and ");
      const prefilter = split.map(() => `t.search_text like lower(?)`).join(" and ");
      return {
        sql: `(${prefilter} and ((${all("t.provider_name")}) or (${all("t.provider_merchant_name")})))`,
        params: [...split.map(containsPattern), ...words, ...words],
      };
    }
    case "fuzzy":
      // pg_trgm word similarity (threshold pg_trgm.word_similarity_threshold, default 0.6); uses the trigram indexes.
      return { sql: `(? <% t.provider_name or ? <% t.provider_merchant_name)`, params: [term, term] };
  }
}

/** The predicate of these filters, in a fixed clause order (the same filters give the same statement text). */
export function transactionPredicate(f: TransactionFilterSpec): TransactionPredicate {
  const clauses: string[] = [];
  const params: unknown[] = [];
  const add = (sql: string, ...p: unknown[]) => {
    clauses.push(sql);
    params.push(...p);
  };
  if (f.startDate !== undefined) add(`t.date >= ?::date`, f.startDate);
  if (f.endDate !== undefined) add(`t.date < ?::date`, f.endDate);
  if (f.accountId !== undefined) add(`t.account_id = ?::uuid`, f.accountId);
  if (f.userId !== undefined) add(`t.account_id in (select id from accounts where user_id = ?::uuid)`, f.userId);
  if (f.category !== undefined) {
    const ids = pgArray(f.category.ids);
    if (f.category.orUncategorized) add(`(t.category_id is null or t.category_id = any(?::uuid[]))`, ids);
    else add(`t.category_id = any(?::uuid[])`, ids);
  }
  if (f.minAmount !== undefined) add(`t.amount >= ?::numeric`, f.minAmount);
  if (f.maxAmount !== undefined) add(`t.amount <= ?::numeric`, f.maxAmount);
  if (f.pending !== undefined) add(`t.pending = ?`, f.pending);
  if (f.search !== undefined && f.search.terms.length > 0) {
    const mode = f.search.mode;
    const parts = f.search.terms.map((term) => searchTermSql(term, mode));
    add(`(${parts.map((p) => p.sql).join(" or ")})`, ...parts.flatMap((p) => p.params));
  }
  if (f.allTagIds === null) add(`false`);
  else if (f.allTagIds !== undefined) add(`t.tag_ids @> ?::uuid[]`, pgArray(f.allTagIds));
  if (f.seriesId !== undefined) add(`t.series_id = ?::uuid`, f.seriesId);
  if (f.inSeries !== undefined) add(f.inSeries ? `t.series_id is not null` : `t.series_id is null`);
  if (f.anyTagIds !== undefined) add(`t.tag_ids && ?::uuid[]`, pgArray(f.anyTagIds));
  return { sql: clauses.length > 0 ? clauses.join(" and ") : "true", params };
}
