import { useQuery } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { api, call } from "../../app/api";
import { CategorySelect } from "../taxonomy";
import { FILTER_KEYS, type FilterKey, type Filters } from "./query";
import { FilterActions } from "../filter-actions";

/** The lists the filter pickers offer (accounts, members, recurring series). */
function usePickers() {
  const accounts = useQuery({
    queryKey: ["accounts"],
    queryFn: () => call(api.GET("/api/v1/accounts", {})),
    staleTime: 60_000,
  });
  const users = useQuery({
    queryKey: ["users"],
    queryFn: () => call(api.GET("/api/v1/users", {})),
    staleTime: 60_000,
  });
  const series = useQuery({
    queryKey: ["series"],
    queryFn: () => call(api.GET("/api/v1/series", {})),
    staleTime: 60_000,
  });
  return { accounts: accounts.data?.accounts, users: users.data?.users, series: series.data?.series };
}

/**
 * Every filter of GET /transactions. The form keeps what is typed and applies it on submit (Enter or
 * "Apply"), writing it to the URL so a filtered grid can be bookmarked. `fixed` filters are not shown.
 */
export function TransactionFilters({
  value,
  onApply,
  fixed = {},
}: {
  value: Filters;
  onApply: (f: Filters) => void;
  fixed?: Filters;
}) {
  const [draft, setDraft] = useState<Filters>(value);
  const { accounts, users, series } = usePickers();
  const set = (k: FilterKey) => (v: string) => setDraft((d) => ({ ...d, [k]: v }));
  const text = (k: FilterKey, label: string, props: Record<string, string> = {}) =>
    k in fixed ? null : (
      <label>
        {label}
        <input value={draft[k] ?? ""} onChange={(e) => set(k)(e.target.value)} {...props} />
      </label>
    );
  const choice = (k: FilterKey, label: string, options: [string, string][]) =>
    k in fixed ? null : (
      <label>
        {label}
        <select value={draft[k] ?? ""} onChange={(e) => set(k)(e.target.value)}>
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
    const clean: Filters = {};
    for (const k of FILTER_KEYS) if (draft[k]?.trim()) clean[k] = draft[k].trim();
    onApply(clean);
  };
  return (
    <form className="filters" onSubmit={submit} aria-label="Filters">
      <div className="row">
        {text("search", "Search", { type: "search", placeholder: "merchant or name; commas = or" })}
        {choice("search_mode", "Search mode", [
          ["", "contains"],
          ["words", "whole words"],
          ["fuzzy", "fuzzy (typos)"],
        ])}
        {text("start_date", "From", { type: "date" })}
        {text("end_date", "Until (not including)", { type: "date" })}
        {choice("account_id", "Account", [
          ["", "All accounts"],
          ...(accounts ?? []).map((a) => [a.short_id, a.name] as [string, string]),
        ])}
        {choice("user_id", "Member", [
          ["", "Everyone"],
          ...(users ?? []).map((u) => [u.short_id, u.name] as [string, string]),
        ])}
        {"category_slug" in fixed ? null : (
          <CategorySelect
            label="Category"
            emptyLabel="Any category"
            value={draft.category_slug ?? ""}
            onChange={set("category_slug")}
          />
        )}
        {text("min_amount", "Min amount", { inputMode: "decimal", placeholder: "-50.00", size: "8" })}
        {text("max_amount", "Max amount", { inputMode: "decimal", placeholder: "200", size: "8" })}
        {choice("pending", "Pending", [
          ["", "Any"],
          ["true", "Pending only"],
          ["false", "Posted only"],
        ])}
        {text("tags", "All of these tags", { placeholder: "work,trip" })}
        {text("any_tag", "Any of these tags", { placeholder: "work,trip" })}
        {choice("series_id", "Recurring series", [
          ["", "Any"],
          ...(series ?? []).map((s) => [s.short_id, s.name] as [string, string]),
        ])}
        {choice("in_series", "In a series", [
          ["", "Either"],
          ["true", "In a series"],
          ["false", "In none"],
        ])}
        {choice("sort_by", "Sort by", [
          ["", "Date"],
          ["amount", "Amount (top 500)"],
          ["name", "Name (top 500)"],
        ])}
        {choice("sort_order", "Order", [
          ["", "Default"],
          ["desc", "Descending"],
          ["asc", "Ascending"],
        ])}
      </div>
      <FilterActions
        onClear={() => {
          setDraft({});
          onApply({});
        }}
      />
    </form>
  );
}
