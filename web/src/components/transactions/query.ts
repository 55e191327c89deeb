import { useInfiniteQuery, useQuery, type InfiniteData, type QueryClient } from "@tanstack/react-query";
import { api, call } from "../../app/api";
import type { Transaction, TransactionPage } from "../../api/schemas";

/** Every filter and sort GET /transactions takes (docs/transactions.md), as URL query keys of the grid. */
export const FILTER_KEYS = [
  "search",
  "search_mode",
  "start_date",
  "end_date",
  "account_id",
  "user_id",
  "category_slug",
  "min_amount",
  "max_amount",
  "pending",
  "tags",
  "any_tag",
  "series_id",
  "in_series",
  "sort_by",
  "sort_order",
] as const;
export type FilterKey = (typeof FILTER_KEYS)[number];
export type Filters = Partial<Record<FilterKey, string>>;

/** Sorting is not a filter of /transactions/count. */
const COUNT_EXCLUDED = new Set<FilterKey>(["sort_by", "sort_order"]);

/** The filters named in a query string (empty values dropped). */
export function filtersFrom(search: URLSearchParams): Filters {
  const out: Filters = {};
  for (const k of FILTER_KEYS) {
    const v = search.get(k);
    if (v) out[k] = v;
  }
  return out;
}

/**
 * The filters as GET /transactions types them: booleans as booleans, the closed sets as their literals.
 * Values outside a set are passed on for the server to refuse with INVALID_PARAMETER, shown in place.
 */
export function txQuery(f: Filters) {
  const { pending, in_series, search_mode, sort_by, sort_order, ...rest } = f;
  return {
    ...rest,
    ...(pending ? { pending: pending === "true" } : {}),
    ...(in_series ? { in_series: in_series === "true" } : {}),
    ...(search_mode ? { search_mode: search_mode as "contains" | "words" | "fuzzy" } : {}),
    ...(sort_by ? { sort_by: sort_by as "date" | "amount" | "name" } : {}),
    ...(sort_order ? { sort_order: sort_order as "asc" | "desc" } : {}),
  };
}

/** Rows fetched per page: a screenful and a half, so a scroll asks for few pages. */
export const PAGE_SIZE = 100;

/** The amount and name sorts are one page of the top 500 (no cursor): ask for all of it. */
function pageSize(f: Filters): number {
  return f.sort_by && f.sort_by !== "date" ? 500 : PAGE_SIZE;
}

export const LIST_KEY = "transactions";
export const COUNT_KEY = "transactions-count";

/** The grid's rows, one cursor page at a time; the next page is fetched only when asked (on scroll). */
export function useTransactionPages(filters: Filters) {
  return useInfiniteQuery({
    queryKey: [LIST_KEY, "list", filters],
    initialPageParam: "",
    queryFn: ({ pageParam }) =>
      call(
        api.GET("/api/v1/transactions", {
          params: {
            query: { ...txQuery(filters), limit: pageSize(filters), ...(pageParam ? { cursor: pageParam } : {}) },
          },
        }),
      ),
    getNextPageParam: (last) => (last.has_more && last.next_cursor ? last.next_cursor : undefined),
    staleTime: 60_000,
  });
}

export function useTransactionCount(filters: Filters) {
  const countFilters: Filters = {};
  for (const [k, v] of Object.entries(filters) as [FilterKey, string][])
    if (!COUNT_EXCLUDED.has(k)) countFilters[k] = v;
  return useQuery({
    queryKey: [COUNT_KEY, countFilters],
    queryFn: () => call(api.GET("/api/v1/transactions/count", { params: { query: txQuery(countFilters) } })),
  });
}

type Pages = InfiniteData<TransactionPage, string>;

/** Puts a changed transaction into every loaded list in place, without refetching the pages. */
export function replaceInLists(qc: QueryClient, t: Transaction): void {
  qc.setQueriesData<Pages>({ queryKey: [LIST_KEY, "list"] }, (old) =>
    old
      ? {
          ...old,
          pages: old.pages.map((p) => ({
            ...p,
            transactions: p.transactions.map((x) => (x.id === t.id ? t : x)),
          })),
        }
      : old,
  );
  qc.setQueryData([LIST_KEY, "one", t.short_id], t);
}

/** Drops a transaction from the loaded lists (it left the filter, e.g. accepted out of the review queue). */
export function removeFromList(qc: QueryClient, filters: Filters, id: string): void {
  qc.setQueryData<Pages>([LIST_KEY, "list", filters], (old) =>
    old
      ? { ...old, pages: old.pages.map((p) => ({ ...p, transactions: p.transactions.filter((x) => x.id !== id) })) }
      : old,
  );
}

/** The tag of the review queue (the built-in rule adds it to new transactions; docs/rules.md). */
export const REVIEW_TAG = "needs_review";
