import { useMutation, useQueryClient } from "@tanstack/react-query";
import { createContext, useContext, useState } from "react";
import { api, call } from "../../app/api";
import type { Transaction } from "../../api/schemas";
import { RowEditingContext } from "./row";
import { CategorySelect } from "../taxonomy";
import { COUNT_KEY, replaceInLists } from "./query";

/** Sets one transaction's category (PATCH …/category); the row is updated in place. */
export function useSetCategory() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ t, slug }: { t: Transaction; slug: string }) =>
      call(
        api.PATCH("/api/v1/transactions/{id}/category", {
          params: { path: { id: t.short_id } },
          body: { category_slug: slug },
        }),
      ),
    onSuccess: (updated) => {
      replaceInLists(qc, updated);
      void qc.invalidateQueries({ queryKey: [COUNT_KEY] });
      void qc.invalidateQueries({ queryKey: ["summary"] });
    },
  });
}

/**
 * How a category cell starts and ends editing and reports a refusal: stable functions in a context, so
 * the grid's column definitions never change (changing them would remount every cell).
 */
export interface CategoryEditing {
  setEditing: (id: string | null) => void;
  reportError: (id: string, error: unknown) => void;
}
export const CategoryEditingContext = createContext<CategoryEditing>({
  setEditing: () => undefined,
  reportError: () => undefined,
});

/**
 * The category of a row: a button showing it, which turns into a picker while editing (one picker
 * at a time, so a grid of thousands of rows stays light). Escape cancels; a refusal is reported to the grid.
 */
export function CategoryCell({ t }: { t: Transaction }) {
  const { setEditing, reportError } = useContext(CategoryEditingContext);
  const editing = useContext(RowEditingContext);
  const setCategory = useSetCategory();
  const current = t.category_slug ?? "uncategorized";
  const shown = t.category_display_name ?? (t.category_slug ? t.category_slug : "Uncategorized");
  const onDone = () => setEditing(null);
  if (!editing) {
    return (
      <button
        type="button"
        className="cell-button"
        onClick={() => setEditing(t.id)}
        aria-label={`Category of ${t.name}: ${shown}. Change`}
      >
        {shown}
      </button>
    );
  }
  const save = (slug: string) => {
    if (slug === current) return onDone();
    setCategory.mutate(
      { t, slug },
      {
        onSuccess: onDone,
        onError: (e) => {
          reportError(t.id, e);
          onDone();
        },
      },
    );
  };
  return (
    <CategoryEditor name={t.name} current={current} saving={setCategory.isPending} onSave={save} onCancel={onDone} />
  );
}

/** A picker with Save (or Enter) and Cancel (or Escape): arrowing through the options saves nothing. */
function CategoryEditor({
  name,
  current,
  saving,
  onSave,
  onCancel,
}: {
  name: string;
  current: string;
  saving: boolean;
  onSave: (slug: string) => void;
  onCancel: () => void;
}) {
  const [choice, setChoice] = useState(current);
  return (
    <span
      className="row"
      onKeyDown={(e) => {
        if (e.key === "Escape") {
          e.stopPropagation();
          onCancel();
        } else if (e.key === "Enter") {
          e.preventDefault();
          e.stopPropagation();
          onSave(choice);
        } else {
          // Keys typed here (letters jump through the options) are not the grid's shortcuts.
          e.stopPropagation();
        }
      }}
    >
      <CategorySelect label={`Category for ${name}`} hideLabel autoFocus value={choice} onChange={setChoice} />
      <button type="button" onClick={() => onSave(choice)} disabled={saving}>
        {saving ? "Saving…" : "Save"}
      </button>
      <button type="button" onClick={onCancel}>
        Cancel
      </button>
    </span>
  );
}
