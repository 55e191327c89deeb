import type { Em } from "../../db/orm.js";
import {
  transactionPredicate,
  type TransactionFilterSpec,
  type TransactionPredicate,
} from "../../db/queries/transaction-filter.js";
import { findAccountId } from "../../db/tables/accounts.js";
import { categoryAndChildrenIds } from "../../db/tables/categories.js";
import { seriesIdByLookup } from "../../db/tables/series.js";
import { findTagsBySlug } from "../../db/tables/tags.js";
import { userIdByLookup } from "../../db/tables/users.js";
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
 * - `predicate` selects the matching rows (services/db/queries/transaction-filter.ts
 *   writes its SQL). Ids of accounts, categories and tags are resolved here from
 *   the current rows of those small tables.
 */
export interface ResolvedFilter {
  canonical: Record<string, unknown>;
  predicate: TransactionPredicate;
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

async function resolveAccount(em: Em, raw: string): Promise<string> {
  const lookup = parseId(raw.trim());
  const id = lookup ? await findAccountId(em, lookup) : null;
  if (id === null) throw notFound("Account");
  return id;
}

async function resolveSeries(em: Em, raw: string): Promise<string> {
  const lookup = parseId(raw.trim());
  const id = lookup ? await seriesIdByLookup(em, lookup) : undefined;
  if (id === undefined) throw notFound("Series");
  return id;
}

async function resolveUser(em: Em, raw: string): Promise<string> {
  const lookup = parseId(raw.trim());
  const id = lookup ? await userIdByLookup(em, lookup) : undefined;
  if (id === undefined) throw notFound("User");
  return id;
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

/** Validates every filter (syntax first, then lookups) and resolves it into the predicate's terms. */
export async function resolveFilter(em: Em, f: TransactionFilterInput | undefined): Promise<ResolvedFilter> {
  f = f ?? {};
  const canonical: Record<string, unknown> = {};
  const spec: TransactionFilterSpec = {};

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

  if (startDate !== undefined) spec.startDate = canonical.start_date = startDate;
  if (endDate !== undefined) spec.endDate = canonical.end_date = endDate;
  if (present(f.accountId)) spec.accountId = canonical.account_id = await resolveAccount(em, f.accountId);
  if (present(f.userId)) spec.userId = canonical.user_id = await resolveUser(em, f.userId);
  if (categorySlug !== undefined) {
    canonical.category_slug = categorySlug;
    // A transaction without a category is uncategorized.
    spec.category = { ids: await categoryIds(em, categorySlug), orUncategorized: categorySlug === UNCATEGORIZED };
  }
  if (minAmount !== undefined) spec.minAmount = canonical.min_amount = minAmount;
  if (maxAmount !== undefined) spec.maxAmount = canonical.max_amount = maxAmount;
  if (f.pending !== undefined) spec.pending = canonical.pending = f.pending;
  if (searchTerms.length > 0) {
    canonical.search = searchTerms;
    canonical.search_mode = searchMode;
    spec.search = { terms: searchTerms, mode: searchMode };
  }
  if (allTags.length > 0) {
    canonical.tags = allTags;
    const ids = await tagIds(em, allTags);
    // A tag that does not exist is on no transaction, so "has all of them" matches nothing.
    spec.allTagIds = ids.length < allTags.length ? null : ids;
  }
  if (present(f.seriesId)) spec.seriesId = canonical.series_id = await resolveSeries(em, f.seriesId);
  if (f.inSeries !== undefined) spec.inSeries = canonical.in_series = f.inSeries;
  if (anyTags.length > 0) {
    canonical.any_tag = anyTags;
    // Unknown slugs can match nothing; with none known, nothing matches (the filter never widens).
    spec.anyTagIds = await tagIds(em, anyTags);
  }
  return { canonical, predicate: transactionPredicate(spec) };
}
