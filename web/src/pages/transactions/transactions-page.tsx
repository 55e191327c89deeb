import { useMemo } from "react";
import { navigate, useLocation } from "../../app/router";
import { TransactionFilters } from "../../components/transactions/filters";
import { TransactionGrid } from "../../components/transactions/grid";
import { filtersFrom, type Filters } from "../../components/transactions/query";

/** The query string of a set of filters. */
export function queryOf(f: Filters): string {
  const q = new URLSearchParams(f).toString();
  return q ? `?${q}` : "";
}

export default function TransactionsPage() {
  const { pathname, search } = useLocation();
  const filters = useMemo(() => filtersFrom(search), [search]);
  return (
    <>
      <h1>Transactions</h1>
      <details className="card" open={window.innerWidth > 720}>
        <summary>Filters</summary>
        {/* Keyed by the applied filters, so Back/Forward shows the filters of that URL. */}
        <TransactionFilters
          key={search.toString()}
          value={filters}
          onApply={(f) => navigate(pathname + queryOf(f), { replace: false })}
        />
      </details>
      <TransactionGrid filters={filters} caption="Transactions" />
    </>
  );
}
