import type { Em } from "../../db/orm.js";
import { pgArray, query } from "../../db/sql.js";
import { findAccountId } from "../../db/tables/accounts.js";
import { categoryAndChildrenIds } from "../../db/tables/categories.js";
import { findTagsBySlug } from "../../db/tables/tags.js";
import { CofferError, notFound } from "../../errors/coffer-error.js";
import { parseId } from "../../ids/resolve-id.js";
import { amountCents, canonicalAmount, isSlug, parseDate, searchTerm } from "../../shared/validate.js";
import { UNCATEGORIZED } from "../taxonomy.js";

/** The filters list, count and summary take: GET /transactions's query parameters. */
export interface TransactionFilterInput {
  startDate?: string;
  endDate?: string;
  accountId?: string;
  userId?: string;
  categorySlug?: string;
  minAmount?: string;
  maxAmount?: string;
  pending?: boolean;
  search?: string;
  searchMode?: string;
  tags?: string[];
  anyTag?: string[];
  seriesId?: string;
  inSeries?: boolean;
}

import { SEARCH_MODES } from "../../../common/enums.js";
export { SEARCH_MODES };
export type SearchMode = (typeof SEARCH_MODES)[number];

const MAX_SEARCH_TERMS = 20;
const MAX_SEARCH_LENGTH = 500;
const MAX_TAGS = 50;

/**
 * The filters shared by list, count and summary, validated and resolved:
 * - `canonical` is what the caller asked for in one normal form (UUIDs for
 *   ids, 2-decimal amounts, sorted slugs); cursors carry its hash, so the same
 *   filters written differently still continue the same pagination.
 * - `sql` is a predicate over rows aliased `t` with `?` params. It reads only
 *   columns that `transactions` and `transaction_versions` share, so snapshot
 *   pages apply it to old row versions too. Ids of accounts, categories and
 *   tags are resolved here from the current rows of those small tables.
 */
export interface ResolvedFilter {
  canonical: Record<string, unknown>;
  sql: string;
  params: unknown[];
}

const invalid = (message: string) => new CofferError("INVALID_PARAMETER", message);

const present = (s: string | undefined): s is string => s !== undefined && s.trim() !== "";

/** Comma-separated slugs (each list entry may itself hold several), deduplicated and sorted. */
function parseSlugs(raw: string[], field: string): string[] {
  const slugs = new Set<string>();
  for (const entry of raw) {
    for (const part of entry.split(",")) {
      const slug = part.trim();
      if (slug === "") continue;
      if (!isSlug(slug)) throw invalid(`${field} must be tag slugs ([a-z0-9_]) separated by commas`);
      slugs.add(slug);
    }
  }
  if (slugs.size > MAX_TAGS) throw invalid(`${field} accepts at most ${MAX_TAGS} tags`);
  return [...slugs].sort();
}

export function parseSearch(raw: string): string[] {
  if (raw.length > MAX_SEARCH_LENGTH) throw invalid(`search must be at most ${MAX_SEARCH_LENGTH} characters`);
  const terms = [
    ...new Set(
      raw
        .split(",")
        .map((t) => searchTerm(t).toLowerCase())
        .filter((t) => t !== ""),
    ),
  ];
  if (terms.length > MAX_SEARCH_TERMS)
    throw invalid(`search accepts at most ${MAX_SEARCH_TERMS} comma-separated terms`);
  return terms;
}

export function parseSearchMode(raw: string | undefined): SearchMode {
  if (!present(raw)) return "contains";
  const mode = raw.trim();
  if (!(SEARCH_MODES as readonly string[]).includes(mode))
    throw invalid(`search_mode must be one of ${SEARCH_MODES.join(", ")}`);
  return mode as SearchMode;
}

/** LIKE pattern matching `term` anywhere, with LIKE's own wildcards taken literally. */
export const containsPattern = (term: string) => `%${term.replace(/[\\%_]/g, "\\$&")}%`;

/**
 * A POSIX regex (for ~*) matching `word` as a whole word: not preceded or
 * followed by a letter or digit. Regex metacharacters in the word are escaped.
 */
export const wholeWordPattern = (word: string) =>
  `(^|[^[:alnum:]])${word.replace(/[\\^$.|?*+()[\]{}]/g, "\\$&")}([^[:alnum:]]|$)`;

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

async function resolveAccount(em: Em, raw: string): Promise<string> {
  const lookup = parseId(raw.trim());
  const id = lookup ? await findAccountId(em, lookup) : null;
  if (id === null) throw notFound("Account");
  return id;
}

async function resolveSeries(em: Em, raw: string): Promise<string> {
  const lookup = parseId(raw.trim());
  const rows = lookup
    ? await query<{ id: string }>(em, `select id from series where ${lookup.column} = ?`, [lookup.value])
    : [];
  if (!rows[0]) throw notFound("Series");
  return rows[0].id;
}

async function resolveUser(em: Em, raw: string): Promise<string> {
  const lookup = parseId(raw.trim());
  const rows = lookup
    ? await query<{ id: string }>(em, `select id from users where ${lookup.column} = ?`, [lookup.value])
    : [];
  if (!rows[0]) throw notFound("User");
  return rows[0].id;
}

/** The category and, for a parent, its children. */
async function categoryIds(em: Em, slug: string): Promise<string[]> {
  const ids = await categoryAndChildrenIds(em, slug);
  if (ids.length === 0) throw invalid(`category_slug: no category "${slug}"`);
  return ids;
}

async function tagIds(em: Em, slugs: string[]): Promise<string[]> {
  return (await findTagsBySlug(em, slugs)).map((r) => r.id);
}

/** Validates every filter (syntax first, then lookups) and builds the predicate. */
export async function resolveFilter(em: Em, f: TransactionFilterInput | undefined): Promise<ResolvedFilter> {
  f = f ?? {};
  const canonical: Record<string, unknown> = {};
  const clauses: string[] = [];
  const params: unknown[] = [];
  const add = (sql: string, ...p: unknown[]) => {
    clauses.push(sql);
    params.push(...p);
  };

  // Syntax, before any lookup.
  const startDate = present(f.startDate) ? parseDate(f.startDate, "start_date") : undefined;
  const endDate = present(f.endDate) ? parseDate(f.endDate, "end_date") : undefined;
  const minAmount = present(f.minAmount) ? canonicalAmount(f.minAmount, "min_amount", "INVALID_PARAMETER") : undefined;
  const maxAmount = present(f.maxAmount) ? canonicalAmount(f.maxAmount, "max_amount", "INVALID_PARAMETER") : undefined;
  const categorySlug = present(f.categorySlug) ? f.categorySlug.trim() : undefined;
  if (categorySlug !== undefined && !isSlug(categorySlug))
    throw invalid("category_slug must be a category slug ([a-z0-9_])");
  const searchTerms = present(f.search) ? parseSearch(f.search) : [];
  const searchMode = parseSearchMode(f.searchMode);
  const allTags = parseSlugs(f.tags ?? [], "tags");
  const anyTags = parseSlugs(f.anyTag ?? [], "any_tag");
  // Ranges that can hold nothing are a mistake worth naming (end_date is exclusive).
  if (startDate !== undefined && endDate !== undefined && startDate >= endDate) {
    throw invalid("start_date must be before end_date (end_date is exclusive)");
  }
  if (minAmount !== undefined && maxAmount !== undefined && amountCents(minAmount) > amountCents(maxAmount)) {
    throw invalid("min_amount must not be greater than max_amount");
  }

  if (startDate !== undefined) {
    canonical.start_date = startDate;
    add(`t.date >= ?::date`, startDate);
  }
  if (endDate !== undefined) {
    canonical.end_date = endDate;
    add(`t.date < ?::date`, endDate);
  }
  if (present(f.accountId)) {
    canonical.account_id = await resolveAccount(em, f.accountId);
    add(`t.account_id = ?::uuid`, canonical.account_id);
  }
  if (present(f.userId)) {
    canonical.user_id = await resolveUser(em, f.userId);
    add(`t.account_id in (select id from accounts where user_id = ?::uuid)`, canonical.user_id);
  }
  if (categorySlug !== undefined) {
    canonical.category_slug = categorySlug;
    const ids = pgArray(await categoryIds(em, categorySlug));
    // A transaction without a category is uncategorized.
    if (categorySlug === UNCATEGORIZED) add(`(t.category_id is null or t.category_id = any(?::uuid[]))`, ids);
    else add(`t.category_id = any(?::uuid[])`, ids);
  }
  if (minAmount !== undefined) {
    canonical.min_amount = minAmount;
    add(`t.amount >= ?::numeric`, minAmount);
  }
  if (maxAmount !== undefined) {
    canonical.max_amount = maxAmount;
    add(`t.amount <= ?::numeric`, maxAmount);
  }
  if (f.pending !== undefined) {
    canonical.pending = f.pending;
    add(`t.pending = ?`, f.pending);
  }
  if (searchTerms.length > 0) {
    canonical.search = searchTerms;
    canonical.search_mode = searchMode;
    const parts = searchTerms.map((term) => searchTermSql(term, searchMode));
    add(`(${parts.map((p) => p.sql).join(" or ")})`, ...parts.flatMap((p) => p.params));
  }
  if (allTags.length > 0) {
    canonical.tags = allTags;
    const ids = await tagIds(em, allTags);
    // A tag that does not exist is on no transaction, so "has all of them" matches nothing.
    if (ids.length < allTags.length) add(`false`);
    else add(`t.tag_ids @> ?::uuid[]`, pgArray(ids));
  }
  if (present(f.seriesId)) {
    canonical.series_id = await resolveSeries(em, f.seriesId);
    add(`t.series_id = ?::uuid`, canonical.series_id);
  }
  if (f.inSeries !== undefined) {
    canonical.in_series = f.inSeries;
    add(f.inSeries ? `t.series_id is not null` : `t.series_id is null`);
  }
  if (anyTags.length > 0) {
    canonical.any_tag = anyTags;
    // Unknown slugs can match nothing; with none known, nothing matches (the filter never widens).
    add(`t.tag_ids && ?::uuid[]`, pgArray(await tagIds(em, anyTags)));
  }
  return { canonical, sql: clauses.length > 0 ? clauses.join(" and ") : "true", params };
}
