import { useInfiniteQuery, useMutation, useQueryClient } from "@tanstack/react-query";
import { useMemo, useState, type FormEvent } from "react";
import { api, call } from "../../app/api";
import { ErrorMessage, Loading } from "../../app/errors";
import { when } from "../../app/format";
import { Link, navigate, useLocation } from "../../app/router";
import type { RulePage } from "../../api/schemas";
import { CategorySelect } from "../../components/taxonomy";
import { FilterActions } from "../../components/filter-actions";

/** The filters of GET /rules, which are query_transaction_rules' arguments (docs/rules.md). */
const RULE_FILTERS = [
  "search",
  "search_mode",
  "category_slug",
  "enabled",
  "trigger",
  "creator_type",
  "min_hit_count",
  "only_unused",
  "sort_by",
  "sort_order",
] as const;
type RuleFilters = Partial<Record<(typeof RULE_FILTERS)[number], string>>;

function filtersFrom(search: URLSearchParams): RuleFilters {
  const out: RuleFilters = {};
  for (const k of RULE_FILTERS) {
    const v = search.get(k);
    if (v) out[k] = v;
  }
  return out;
}

/** The filters as GET /rules types them (booleans, numbers, the closed sets as their literals). */
function rulesQuery(f: RuleFilters) {
  const { enabled, only_unused, min_hit_count, creator_type, trigger, sort_by, sort_order, search_mode, ...rest } = f;
  return {
    ...rest,
    ...(enabled ? { enabled: enabled === "true" } : {}),
    ...(only_unused ? { only_unused: only_unused === "true" } : {}),
    ...(min_hit_count ? { min_hit_count: Number(min_hit_count) } : {}),
    ...(creator_type ? { creator_type: creator_type as "user" | "agent" | "system" } : {}),
    ...(trigger ? { trigger: trigger as "on_create" | "on_change" | "on_update" | "always" } : {}),
    ...(sort_by ? { sort_by: sort_by as "priority" | "hit_count" | "last_hit_at" | "created_at" | "name" } : {}),
    ...(sort_order ? { sort_order: sort_order as "asc" | "desc" } : {}),
    ...(search_mode ? { search_mode: search_mode as "contains" | "words" | "fuzzy" } : {}),
  };
}

function RuleFiltersForm({ value, onApply }: { value: RuleFilters; onApply: (f: RuleFilters) => void }) {
  const [d, setD] = useState<RuleFilters>(value);
  const choice = (k: keyof RuleFilters, label: string, options: [string, string][]) => (
    <label>
      {label}
      <select value={d[k] ?? ""} onChange={(e) => setD({ ...d, [k]: e.target.value })}>
        {options.map(([v, l]) => (
          <option key={v} value={v}>
            {l}
          </option>
        ))}
      </select>
    </label>
  );
  const submit = (e: FormEvent) => {
    e.preventDefault();
    const clean: RuleFilters = {};
    for (const k of RULE_FILTERS) if (d[k]?.trim()) clean[k] = d[k].trim();
    onApply(clean);
  };
  return (
    <form onSubmit={submit} aria-label="Rule filters">
      <div className="row">
        <label>
          Search names
          <input type="search" value={d.search ?? ""} onChange={(e) => setD({ ...d, search: e.target.value })} />
        </label>
        {choice("search_mode", "Search mode", [
          ["", "contains"],
          ["words", "whole words"],
          ["fuzzy", "fuzzy"],
        ])}
        <CategorySelect
          label="Sets category"
          emptyLabel="Any"
          value={d.category_slug ?? ""}
          onChange={(v) => setD({ ...d, category_slug: v })}
        />
        {choice("enabled", "State", [
          ["", "Enabled and disabled"],
          ["true", "Enabled"],
          ["false", "Disabled"],
        ])}
        {choice("trigger", "Trigger", [
          ["", "Any"],
          ["always", "always"],
          ["on_create", "on_create"],
          ["on_change", "on_change"],
        ])}
        {choice("creator_type", "Created by", [
          ["", "Anyone"],
          ["user", "a person"],
          ["agent", "an agent"],
          ["system", "Coffer"],
        ])}
        <label>
          Hits at least
          <input
            inputMode="numeric"
            size={6}
            value={d.min_hit_count ?? ""}
            onChange={(e) => setD({ ...d, min_hit_count: e.target.value })}
          />
        </label>
        {choice("only_unused", "Unused", [
          ["", "All"],
          ["true", "Only never hit"],
        ])}
        {choice("sort_by", "Sort by", [
          ["", "Priority"],
          ["hit_count", "Hits"],
          ["last_hit_at", "Last hit"],
          ["created_at", "Created"],
          ["name", "Name"],
        ])}
        {choice("sort_order", "Order", [
          ["", "Default"],
          ["asc", "Ascending"],
          ["desc", "Descending"],
        ])}
      </div>
      <FilterActions
        onClear={() => {
          setD({});
          onApply({});
        }}
      />
    </form>
  );
}

/** A rule as the list shows it: the fields asked for (all of them, as this page asks for no projection). */
type ListedRule = RulePage["rules"][number];

function RuleRow({ r }: { r: ListedRule }) {
  const id = r.short_id ?? "";
  const qc = useQueryClient();
  const toggle = useMutation({
    mutationFn: () =>
      r.enabled
        ? call(api.POST("/api/v1/rules/{id}/disable", { params: { path: { id } } }))
        : call(api.POST("/api/v1/rules/{id}/enable", { params: { path: { id } } })),
    onSuccess: () => qc.invalidateQueries({ queryKey: ["rules"] }),
  });
  return (
    <tr>
      <td>
        <Link to={`/rules/${id}`}>{r.name}</Link>
        <ErrorMessage error={toggle.error} />
      </td>
      <td className="num">{r.priority}</td>
      <td>{r.trigger}</td>
      <td>{r.category_display_name || r.category_slug || "—"}</td>
      <td className="num">{r.hit_count?.toLocaleString() ?? "—"}</td>
      <td>{when(r.last_hit_at)}</td>
      <td>
        <button
          type="button"
          aria-pressed={r.enabled}
          onClick={() => toggle.mutate()}
          disabled={toggle.isPending}
          aria-label={`${r.enabled ? "Disable" : "Enable"} ${r.name}`}
        >
          {r.enabled ? "Enabled" : "Disabled"}
        </button>
      </td>
    </tr>
  );
}

/** /rules: the rules with the filters of query_transaction_rules, paged by cursor ("Load more"). */
export default function RulesPage() {
  const { pathname, search } = useLocation();
  const filters = useMemo(() => filtersFrom(search), [search]);
  const q = useInfiniteQuery({
    queryKey: ["rules", filters],
    initialPageParam: "",
    queryFn: ({ pageParam }) =>
      call(
        api.GET("/api/v1/rules", {
          params: { query: { ...rulesQuery(filters), limit: 100, ...(pageParam ? { cursor: pageParam } : {}) } },
        }),
      ),
    getNextPageParam: (last) => (last.has_more && last.next_cursor ? last.next_cursor : undefined),
  });
  const rules = q.data?.pages.flatMap((p) => p.rules) ?? [];
  return (
    <>
      <div className="spread">
        <h1>Rules</h1>
        <Link to="/rules/new" className="button-link primary">
          New rule
        </Link>
      </div>
      <details className="card">
        <summary>Filters</summary>
        <RuleFiltersForm
          key={search.toString()}
          value={filters}
          onApply={(f) => {
            const s = new URLSearchParams(f).toString();
            navigate(pathname + (s ? `?${s}` : ""));
          }}
        />
      </details>
      {q.data ? (
        <p role="status">
          {q.data.pages[0].total.toLocaleString()} rules{q.data.pages.length > 1 ? `, ${rules.length} shown` : ""}
        </p>
      ) : null}
      {q.isPending ? <Loading what="rules" /> : null}
      <ErrorMessage error={q.error} />
      <div className="table-wrap">
        <table aria-label="Rules">
          <thead>
            <tr>
              <th scope="col">Name</th>
              <th scope="col" className="num">
                Priority
              </th>
              <th scope="col">Trigger</th>
              <th scope="col">Sets category</th>
              <th scope="col" className="num">
                Hits
              </th>
              <th scope="col">Last hit</th>
              <th scope="col">State</th>
            </tr>
          </thead>
          <tbody>
            {rules.map((r) => (
              <RuleRow key={r.id} r={r} />
            ))}
          </tbody>
        </table>
      </div>
      {q.hasNextPage ? (
        <button type="button" onClick={() => void q.fetchNextPage()} disabled={q.isFetchingNextPage}>
          {q.isFetchingNextPage ? "Loading…" : "Load more rules"}
        </button>
      ) : null}
      <ErrorMessage error={q.isFetchNextPageError ? q.error : null} />
    </>
  );
}
