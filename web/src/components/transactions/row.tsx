import { FlexRender, type Row, type TableFeatures } from "@tanstack/react-table";
import { createContext, memo } from "react";
import { ErrorMessage } from "../../app/errors";
import type { Transaction } from "../../api/schemas";

/** Whether this row's category is being edited: a per-row value, so toggling it re-renders two rows, not all. */
export const RowEditingContext = createContext(false);

interface Props<F extends TableFeatures> {
  row: Row<F, Transaction>;
  /** aria-rowindex: 1 is the header row. */
  index: number;
  selected: boolean;
  editing: boolean;
  error: unknown;
}

/**
 * One row of the grid. Memoized on the transaction object itself (the query cache keeps unchanged rows
 * identical), its place, selection, editing state and error: a scroll or a new page renders only the
 * rows that came into the window.
 */
function GridRowImpl<F extends TableFeatures>({ row, index, selected, editing, error }: Props<F>) {
  return (
    <div
      role="row"
      aria-rowindex={index}
      data-id={row.id}
      tabIndex={0}
      aria-selected={selected}
      className={selected ? "tx-row selected-row" : "tx-row"}
    >
      <RowEditingContext.Provider value={editing}>
        {row.getAllCells().map((cell) => (
          <div
            role="cell"
            key={cell.column.id}
            className={`tx-${cell.column.id}${cell.column.id === "amount" ? " num" : ""}`}
          >
            <FlexRender cell={cell} />
            {cell.column.id === "category_slug" && error ? <ErrorMessage error={error} /> : null}
          </div>
        ))}
      </RowEditingContext.Provider>
    </div>
  );
}

export const GridRow = memo(
  GridRowImpl,
  (a, b) =>
    a.row.original === b.row.original &&
    a.index === b.index &&
    a.selected === b.selected &&
    a.editing === b.editing &&
    a.error === b.error,
) as typeof GridRowImpl;
