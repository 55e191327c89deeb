import { useQueryClient } from "@tanstack/react-query";
import { useCallback, useMemo } from "react";
import { api, call } from "../../app/api";
import { navigate, useLocation } from "../../app/router";
import type { Transaction } from "../../api/schemas";
import { TransactionFilters } from "../../components/transactions/filters";
import { TransactionGrid } from "../../components/transactions/grid";
import { COUNT_KEY, filtersFrom, removeFromList, REVIEW_TAG, type Filters } from "../../components/transactions/query";

import { queryOf } from "../transactions/transactions-page";

/** The review queue: the grid filtered to the needs-review tag; accepting drops the tag. */
export default function ReviewPage() {
  const qc = useQueryClient();
  const { pathname, search } = useLocation();
  const filters = useMemo<Filters>(() => ({ ...filtersFrom(search), tags: REVIEW_TAG }), [search]);
  const onAccept = useCallback(
    async (t: Transaction) => {
      await call(
        api.DELETE("/api/v1/transactions/{id}/tags/{slug}", { params: { path: { id: t.short_id, slug: REVIEW_TAG } } }),
      );
      removeFromList(qc, filters, t.id);
      void qc.invalidateQueries({ queryKey: [COUNT_KEY] });
    },
    [qc, filters],
  );
  const review = useMemo(() => ({ tag: REVIEW_TAG, onAccept }), [onAccept]);
  return (
    <>
      <h1>Review queue</h1>
      <p className="muted">
        New transactions carry the <code>{REVIEW_TAG}</code> tag until someone looks at them.
      </p>
      <details className="card">
        <summary>Filters</summary>
        <TransactionFilters
          key={search.toString()}
          value={filtersFrom(search)}
          fixed={{ tags: REVIEW_TAG }}
          onApply={(f) => navigate(pathname + queryOf(f))}
        />
      </details>
      <TransactionGrid filters={filters} review={review} caption="Transactions to review" />
    </>
  );
}
