import { useMutation, useQueryClient } from "@tanstack/react-query";
import {
  createColumnHelper,
  rowSelectionFeature,
  tableFeatures,
  useTable,
  type RowSelectionState,
} from "@tanstack/react-table";
import { useCallback, useEffect, useMemo, useRef, useState, type KeyboardEvent } from "react";
import { api, call } from "../../app/api";
import { ErrorMessage, Loading } from "../../app/errors";
import { money } from "../../app/format";
import type { Transaction } from "../../api/schemas";
import { CategorySelect } from "../taxonomy";
import { CategoryCell, CategoryEditingContext, type CategoryEditing } from "./category-cell";
import { TransactionPanel } from "./panel";
import { GridRow } from "./row";
import { useRowWindow } from "./window";
import { COUNT_KEY, LIST_KEY, useTransactionCount, useTransactionPages, type Filters } from "./query";

const features = tableFeatures({ rowSelectionFeature });
const col = createColumnHelper<typeof features, Transaction>();

/** The height of a grid row in px: rows are one line (styles.css, .tx-body .tx-row). */
const ROW_HEIGHT = 35;

/** Batch categorize takes at most 500 ids a call. */
const BATCH = 500;

export interface GridProps {
  filters: Filters;
  /** The review queue: one-key accept (a) and categorize (c), and an Accept button per row. */
  review?: { tag: string; onAccept: (t: Transaction) => Promise<void> };
  caption: string;
}

/**
 * The transaction grid: TanStack Table over cursor pages, the next page fetched only when the end
 * of the list scrolls into view; inline category change, a side panel per row, bulk categorize.
 */
export function TransactionGrid({ filters, review, caption }: GridProps) {
  const qc = useQueryClient();
  const pages = useTransactionPages(filters);
  const count = useTransactionCount(filters);
  const rows = useMemo(() => pages.data?.pages.flatMap((p) => p.transactions) ?? [], [pages.data]);
  const [selection, setSelection] = useState<RowSelectionState>({});
  const [editing, setEditing] = useState<string | null>(null);
  const [panel, setPanel] = useState<string | null>(null);
  const [rowError, setRowError] = useState<{ id: string; error: unknown } | null>(null);
  const opener = useRef<HTMLElement | null>(null);

  // A new filter is a new list: what was selected or being edited belongs to the old one.
  useEffect(() => {
    setSelection({});
    setEditing(null);
  }, [filters]);

  const columns = useMemo(
    () =>
      col.columns([
        col.display({
          id: "select",
          header: ({ table }) => (
            <input
              type="checkbox"
              aria-label="Select all loaded rows"
              checked={table.getIsAllRowsSelected()}
              onChange={table.getToggleAllRowsSelectedHandler()}
            />
          ),
          cell: ({ row }) => (
            <input
              type="checkbox"
              aria-label={`Select ${row.original.name} on ${row.original.date}`}
              checked={row.getIsSelected()}
              onChange={row.getToggleSelectedHandler()}
            />
          ),
        }),
        col.accessor("date", { header: "Date", cell: (c) => <span className="nowrap">{c.getValue()}</span> }),
        col.accessor("name", {
          header: "Name",
          cell: ({ row }) => (
            <button
              type="button"
              className="cell-button name-button"
              onClick={(e) => {
                opener.current = e.currentTarget;
                setPanel(row.original.short_id);
              }}
              aria-label={`Details of ${row.original.name} on ${row.original.date}`}
            >
              {row.original.name}
              {row.original.pending ? <span className="muted"> (pending)</span> : null}
            </button>
          ),
        }),
        col.accessor("account_name", { header: "Account" }),
        col.accessor("amount", {
          header: () => <span className="num">Amount</span>,
          cell: ({ row }) => (
            <span className={(row.original.amount ?? 0) < 0 ? "money-in" : ""}>
              {money(row.original.amount, row.original.iso_currency_code)}
            </span>
          ),
        }),
        col.accessor("category_slug", {
          header: "Category",
          cell: ({ row }) => <CategoryCell t={row.original} />,
        }),
        col.accessor("tags", {
          header: "Tags",
          cell: ({ row }) => (
            <span className="tags">
              {row.original.tags.map((t) => (
                <span key={t} className="tag">
                  {t}
                </span>
              ))}
            </span>
          ),
        }),
        ...(review
          ? [
              col.display({
                id: "accept",
                header: "Review",
                cell: ({ row }) => (
                  <button
                    type="button"
                    onClick={() => {
                      review
                        .onAccept(row.original)
                        .catch((error: unknown) => setRowError({ id: row.original.id, error }));
                    }}
                    aria-label={`Accept ${row.original.name} on ${row.original.date}`}
                  >
                    Accept
                  </button>
                ),
              }),
            ]
          : []),
      ]),
    [review],
  );

  const table = useTable({
    features,
    columns,
    data: rows,
    getRowId: (t) => t.id,
    state: { rowSelection: selection },
    onRowSelectionChange: setSelection,
  });

  // Infinite scroll: a sentinel after the last row. When it comes within a screen of the viewport
  // and there is a next page, fetch it; never more than one page per approach.
  const sentinel = useRef<HTMLDivElement>(null);
  const { hasNextPage, isFetchingNextPage, fetchNextPage } = pages;
  const maybeFetch = useCallback(() => {
    const el = sentinel.current;
    if (!el || !hasNextPage || isFetchingNextPage) return;
    const near = el.getBoundingClientRect().top < window.innerHeight + 400;
    if (near) void fetchNextPage();
  }, [hasNextPage, isFetchingNextPage, fetchNextPage]);
  useEffect(() => {
    const el = sentinel.current;
    if (!el) return;
    const io = new IntersectionObserver((entries) => entries.some((e) => e.isIntersecting) && maybeFetch(), {
      rootMargin: "0px 0px 400px 0px",
    });
    io.observe(el);
    return () => io.disconnect();
  }, [maybeFetch]);
  // After a page lands the sentinel may still be in view (a tall screen): check once more.
  useEffect(() => {
    if (!isFetchingNextPage) maybeFetch();
  }, [isFetchingNextPage, rows.length, maybeFetch]);

  // Keyboard: arrows move between rows; in the review queue "a" accepts and "c" categorizes the focused row.
  const onKeyDown = (e: KeyboardEvent<HTMLDivElement>) => {
    const tr = (e.target as HTMLElement).closest<HTMLElement>("[data-id]");
    if (!tr || e.altKey || e.ctrlKey || e.metaKey) return;
    const target = e.target as HTMLElement;
    const typing = target.tagName === "INPUT" && (target as HTMLInputElement).type !== "checkbox";
    if (typing || target.tagName === "SELECT" || target.tagName === "TEXTAREA") return;
    const id = tr.dataset.id!;
    const t = rows.find((r) => r.id === id);
    if (e.key === "ArrowDown" || e.key === "ArrowUp") {
      e.preventDefault();
      const next = (e.key === "ArrowDown" ? tr.nextElementSibling : tr.previousElementSibling) as HTMLElement | null;
      next?.focus();
    } else if (review && t && e.key === "a") {
      e.preventDefault();
      const next = (tr.nextElementSibling ?? tr.previousElementSibling) as HTMLElement | null;
      review
        .onAccept(t)
        .then(() => next?.focus())
        .catch((error: unknown) => setRowError({ id, error }));
    } else if (t && e.key === "c") {
      e.preventDefault();
      setEditing(id);
    }
  };

  const selectedIds = Object.keys(selection).filter((k) => selection[k]);
  const [bulkSlug, setBulkSlug] = useState("");
  const bulk = useMutation({
    mutationFn: async ({ ids, slug }: { ids: string[]; slug: string }) => {
      let updated = 0;
      for (let i = 0; i < ids.length; i += BATCH) {
        const r = await call(
          api.POST("/api/v1/transactions/batch-categorize", {
            body: { transaction_ids: ids.slice(i, i + BATCH), category_slug: slug },
          }),
        );
        updated += r.updated;
      }
      return updated;
    },
    onSuccess: () => {
      setSelection({});
      void qc.invalidateQueries({ queryKey: [LIST_KEY] });
      void qc.invalidateQueries({ queryKey: [COUNT_KEY] });
    },
  });

  const editingContext = useMemo<CategoryEditing>(
    () => ({
      setEditing: (id) => {
        if (id) setRowError(null);
        setEditing(id);
      },
      reportError: (id, error) => setRowError({ id, error }),
    }),
    [],
  );

  const loaded = rows.length;
  // Only the rows near the viewport are drawn (see window.ts); rows are one line of ROW_HEIGHT px.
  const body = useRef<HTMLDivElement>(null);
  const { start, end } = useRowWindow(body, loaded, ROW_HEIGHT);
  const modelRows = table.getRowModel().rows;
  return (
    <CategoryEditingContext.Provider value={editingContext}>
      <div className="spread grid-status">
        <p role="status" aria-live="polite">
          {count.data ? (
            <>
              <strong>{count.data.count.toLocaleString()}</strong> transactions
              {loaded ? ` · ${loaded.toLocaleString()} loaded` : ""}
            </>
          ) : count.isPending ? (
            "Counting…"
          ) : null}
        </p>
        {review ? (
          <p className="muted">
            Keys: ↑/↓ move between rows, <kbd>a</kbd> accept (removes the {review.tag} tag), <kbd>c</kbd> change the
            category.
          </p>
        ) : null}
      </div>
      <ErrorMessage error={count.error} />

      {selectedIds.length ? (
        <form
          className="bulk-bar row"
          aria-label="Bulk categorize"
          onSubmit={(e) => {
            e.preventDefault();
            if (bulkSlug) bulk.mutate({ ids: selectedIds, slug: bulkSlug });
          }}
        >
          <span>{selectedIds.length} selected</span>
          <CategorySelect
            label="Category for the selected"
            emptyLabel="Choose a category"
            value={bulkSlug}
            onChange={setBulkSlug}
          />
          <button type="submit" className="primary" disabled={!bulkSlug || bulk.isPending}>
            {bulk.isPending ? "Categorizing…" : `Categorize ${selectedIds.length} selected`}
          </button>
          <button type="button" onClick={() => setSelection({})}>
            Clear selection
          </button>
        </form>
      ) : null}
      {bulk.isSuccess ? <p role="status">Updated {bulk.data} transactions.</p> : null}
      <ErrorMessage error={bulk.error} />

      <ErrorMessage error={pages.error} />
      {/* ARIA table of CSS grid rows: block layout appends rows without re-measuring the ones above. */}
      <div className="table-wrap">
        <div
          role="table"
          className={review ? "tx-grid with-review" : "tx-grid"}
          aria-label={caption}
          aria-rowcount={count.data ? count.data.count + 1 : -1}
          data-loaded={loaded}
        >
          <div role="rowgroup" className="tx-head">
            {table.getHeaderGroups().map((hg) => (
              <div role="row" key={hg.id} className="tx-row">
                {hg.headers.map((h) => (
                  <div
                    role="columnheader"
                    key={h.id}
                    className={`tx-${h.column.id}${h.column.id === "amount" ? " num" : ""}`}
                  >
                    <table.FlexRender header={h} />
                  </div>
                ))}
              </div>
            ))}
          </div>
          <div role="rowgroup" className="tx-body" onKeyDown={onKeyDown} ref={body}>
            <div style={{ height: start * ROW_HEIGHT }} aria-hidden="true" />
            {modelRows.slice(start, end).map((row, i) => (
              <GridRow
                key={row.id}
                index={start + i + 2}
                row={row}
                selected={row.getIsSelected()}
                editing={editing === row.id}
                error={rowError?.id === row.id ? rowError.error : null}
              />
            ))}
            <div style={{ height: Math.max(0, loaded - end) * ROW_HEIGHT }} aria-hidden="true" />
          </div>
        </div>
      </div>
      {pages.isPending ? <Loading what="transactions" /> : null}
      {pages.data && loaded === 0 ? <p className="muted">No transactions match.</p> : null}
      <div ref={sentinel} className="sentinel" aria-hidden="true" />
      {isFetchingNextPage ? <Loading what="more" /> : null}
      {pages.data && !hasNextPage && loaded > 0 ? <p className="muted">End of the list.</p> : null}
      {panel ? (
        <TransactionPanel
          id={panel}
          onClose={() => {
            setPanel(null);
            opener.current?.focus();
          }}
        />
      ) : null}
    </CategoryEditingContext.Provider>
  );
}
