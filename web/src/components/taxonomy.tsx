import { useQuery } from "@tanstack/react-query";
import { api, call } from "../app/api";
import type { Category } from "../api/schemas";

/** A category with its depth in the two-level tree, for <select> lists. */
export interface FlatCategory {
  slug: string;
  display_name: string;
  depth: number;
  parent_slug: string | null;
  id: string;
}

export function flatten(tree: Category[]): FlatCategory[] {
  const out: FlatCategory[] = [];
  for (const c of tree) {
    out.push({ slug: c.slug, display_name: c.display_name, depth: 0, parent_slug: null, id: c.id });
    for (const k of c.children ?? []) {
      out.push({ slug: k.slug, display_name: k.display_name, depth: 1, parent_slug: c.slug, id: k.id });
    }
  }
  return out;
}

export const CATEGORIES_KEY = ["categories"] as const;
export const TAGS_KEY = ["tags"] as const;

/** The category tree, cached for every page that offers a category. */
export function useCategories() {
  return useQuery({
    queryKey: CATEGORIES_KEY,
    queryFn: () => call(api.GET("/api/v1/categories", {})),
    staleTime: 60_000,
    select: (r) => ({ tree: r.categories, flat: flatten(r.categories) }),
  });
}

export function useTags() {
  return useQuery({
    queryKey: TAGS_KEY,
    queryFn: () => call(api.GET("/api/v1/tags", {})),
    staleTime: 60_000,
    select: (r) => r.tags,
  });
}

/** A labelled category picker; `emptyLabel` adds a first option with the value "". */
export function CategorySelect({
  label,
  value,
  onChange,
  emptyLabel,
  hideLabel,
  id,
  autoFocus,
}: {
  label: string;
  value: string;
  onChange: (slug: string) => void;
  emptyLabel?: string;
  hideLabel?: boolean;
  id?: string;
  autoFocus?: boolean;
}) {
  const cats = useCategories();
  const select = (
    <select
      id={id}
      autoFocus={autoFocus}
      aria-label={hideLabel ? label : undefined}
      value={value}
      onChange={(e) => onChange(e.target.value)}
      disabled={!cats.data}
    >
      {emptyLabel !== undefined ? <option value="">{emptyLabel}</option> : null}
      {/* A value the list does not have yet (loading, or a slug just renamed) still shows. */}
      {value && cats.data && !cats.data.flat.some((c) => c.slug === value) ? (
        <option value={value}>{value}</option>
      ) : null}
      {cats.data?.flat.map((c) => (
        <option key={c.slug} value={c.slug}>
          {c.depth ? "\u00a0\u00a0– " : ""}
          {c.display_name}
        </option>
      ))}
    </select>
  );
  if (hideLabel) return select;
  return (
    <label>
      {label}
      {select}
    </label>
  );
}
