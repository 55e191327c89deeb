import { keepPreviousData, useQuery } from "@tanstack/react-query";
import { api, call } from "../../app/api";
import { ErrorMessage } from "../../app/errors";
import { money } from "../../app/format";
import type { ConditionNode } from "./grammar";
import { useDebounced } from "../use-debounced";

/** Debounce of the live preview: one request once typing pauses. */
export const PREVIEW_DEBOUNCE_MS = 300;

/**
 * The live preview of a condition tree (POST /rules/preview): how many stored transactions match, out
 * of how many, and the newest matches. Sent ~300 ms after the last change; it writes nothing.
 */
export function RulePreview({ conditions, currency }: { conditions: ConditionNode | null; currency?: string }) {
  const json = conditions === null ? null : JSON.stringify(conditions);
  const settled = useDebounced(json, PREVIEW_DEBOUNCE_MS);
  const q = useQuery({
    queryKey: ["rule-preview", settled],
    enabled: settled !== null,
    queryFn: () =>
      call(
        api.POST("/api/v1/rules/preview", { body: { conditions: JSON.parse(settled!) as unknown, sample_size: 10 } }),
      ),
    placeholderData: keepPreviousData,
    staleTime: 30_000,
    retry: false,
  });
  const stale = json !== settled || q.isFetching;
  return (
    <section className="card" aria-labelledby="h-preview" aria-busy={stale}>
      <h2 id="h-preview">Preview</h2>
      {conditions === null ? <p className="muted">Fix the JSON to see a preview.</p> : null}
      <ErrorMessage error={q.error} />
      {q.data && !q.error ? (
        <>
          <p role="status" aria-live="polite" className={stale ? "muted" : undefined}>
            <strong data-testid="match-count">{q.data.match_count.toLocaleString()}</strong> of{" "}
            {q.data.total_scanned.toLocaleString()} transactions match{stale ? " (updating…)" : "."}
          </p>
          {q.data.sample_matches.length ? (
            <div className="table-wrap">
              <table aria-label="Newest matches">
                <thead>
                  <tr>
                    <th scope="col">Date</th>
                    <th scope="col">Name</th>
                    <th scope="col" className="num">
                      Amount
                    </th>
                    <th scope="col">Category now</th>
                  </tr>
                </thead>
                <tbody>
                  {q.data.sample_matches.map((m) => (
                    <tr key={m.transaction_id}>
                      <td className="nowrap">{m.date}</td>
                      <td>{m.name}</td>
                      <td className="num">{currency ? money(m.amount, currency) : (m.amount?.toFixed(2) ?? "—")}</td>
                      <td>{m.current_category_slug || "uncategorized"}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
          ) : null}
        </>
      ) : q.isFetching ? (
        <p role="status">Previewing…</p>
      ) : null}
    </section>
  );
}
