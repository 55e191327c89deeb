import { useMutation, useQueryClient } from "@tanstack/react-query";
import { useState } from "react";
import { api, call } from "../../app/api";
import { ErrorMessage } from "../../app/errors";
import type { Transaction } from "../../app/types";
import { CategorySelect } from "../taxonomy";
import { COUNT_KEY, replaceInLists } from "./query";

/** Sets one transaction's category (PATCH …/category); the row is updated in place. */
export function useSetCategory() {
  const qc = useQueryClient();
  return useMutation({
    mutationFn: ({ t, slug }: { t: Transaction; slug: string }) =>
      call<Transaction>(
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
 * The category of a row: a button showing it, which turns into a picker while editing (one picker
 * at a time, so a grid of thousands of rows stays light). Escape cancels.
 */
export function CategoryCell({
  t,
  editing,
  onEdit,
  onDone,
}: {
  t: Transaction;
  editing: boolean;
  onEdit: () => void;
  onDone: () => void;
}) {
  const setCategory = useSetCategory();
  const [error, setError] = useState<unknown>(null);
  const current = t.category_slug ?? "uncategorized";
  const shown = t.category_display_name ?? (t.category_slug ? t.category_slug : "Uncategorized");
  if (!editing) {
    return (
      <>
        <button
          type="button"
          className="cell-button"
          onClick={() => {
            setError(null);
            onEdit();
          }}
          aria-label={`Category of ${t.name}: ${shown}. Change`}
        >
          {shown}
        </button>
        <ErrorMessage error={error} />
      </>
    );
  }
  const save = (slug: string) => {
    if (slug === current) return onDone();
    setError(null);
    setCategory.mutate(
      { t, slug },
      {
        onSuccess: onDone,
        onError: (e) => {
          setError(e);
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
