import { useMutation, useQuery, useQueryClient } from "@tanstack/react-query";
import { lazy, Suspense, useMemo } from "react";
import { api, call } from "../../app/api";
import { ErrorMessage, Loading } from "../../app/errors";
import { thisMonth, when } from "../../app/format";
import { Link } from "../../app/router";
import type { Connection } from "../../api/schemas";
import { REVIEW_TAG } from "../../components/transactions/query";

// uPlot loads only when the chart is drawn, not with the first page.
const SpendingChart = lazy(() => import("../../components/spending-chart"));

function ConnectionRow({ c }: { c: Connection }) {
  const qc = useQueryClient();
  const sync = useMutation({
    mutationFn: () =>
      call(api.POST("/api/v1/connections/{id}/sync", { params: { path: { id: c.short_id } }, body: {} })),
    onSuccess: () => qc.invalidateQueries({ queryKey: ["connections"] }),
  });
  return (
    <li className="card">
      <div className="spread">
        <strong>{c.institution_name}</strong>
        <span className={`status status-${c.status}`}>{c.status.replace("_", " ")}</span>
      </div>
      <p className="muted">
        {c.provider} · {c.user_name} · last sync {when(c.last_synced_at)}
      </p>
      {c.error_message ? (
        <p className="error">
          {c.error_code ? <code>{c.error_code}</code> : null} {c.error_message}
        </p>
      ) : null}
      <button
        type="button"
        onClick={() => sync.mutate()}
        disabled={sync.isPending || c.status === "disconnected"}
        aria-label={`Sync ${c.institution_name} now`}
      >
        {sync.isPending ? "Queuing…" : "Sync now"}
      </button>
      {sync.isSuccess ? <span role="status"> Sync queued.</span> : null}
      <ErrorMessage error={sync.error} />
    </li>
  );
}

function Connections() {
  const q = useQuery({
    queryKey: ["connections"],
    queryFn: () => call(api.GET("/api/v1/connections", {})),
  });
  return (
    <section className="card" aria-labelledby="h-connections">
      <h2 id="h-connections">Connections</h2>
      {q.isPending ? <Loading what="connections" /> : null}
      <ErrorMessage error={q.error} />
      {q.data && q.data.length === 0 ? <p className="muted">No bank connected yet.</p> : null}
      <ul className="plain-list">
        {q.data?.map((c) => (
          <ConnectionRow key={c.id} c={c} />
        ))}
      </ul>
    </section>
  );
}

function ReviewCount() {
  const q = useQuery({
    queryKey: ["transactions-count", { tags: REVIEW_TAG }],
    queryFn: () => call(api.GET("/api/v1/transactions/count", { params: { query: { tags: REVIEW_TAG } } })),
  });
  return (
    <section className="card" aria-labelledby="h-review">
      <h2 id="h-review">Review queue</h2>
      <ErrorMessage error={q.error} />
      {q.data ? (
        <p>
          <span className="big-number">{q.data.count.toLocaleString()}</span>{" "}
          {q.data.count === 1 ? "transaction needs" : "transactions need"} review. <Link to="/review">Review them</Link>
        </p>
      ) : q.isPending ? (
        <Loading />
      ) : null}
    </section>
  );
}

function Spending() {
  const { start, end } = thisMonth();
  const q = useQuery({
    queryKey: ["summary", "category", start, end],
    queryFn: () =>
      call(
        api.GET("/api/v1/transactions/summary", {
          params: { query: { group_by: "category", start_date: start, end_date: end } },
        }),
      ),
  });
  // One chart per currency: amounts in different currencies are never put on one scale.
  const perCurrency = useMemo(() => {
    const out = new Map<string, { label: string; value: number }[]>();
    for (const g of q.data?.groups ?? []) {
      for (const t of g.totals) {
        if (t.money_out === null || t.money_out <= 0) continue;
        const list = out.get(t.iso_currency_code) ?? [];
        list.push({ label: g.label || g.key || "Uncategorized", value: t.money_out });
        out.set(t.iso_currency_code, list);
      }
    }
    for (const list of out.values()) list.sort((a, b) => b.value - a.value);
    return [...out.entries()];
  }, [q.data]);
  return (
    <section className="card" aria-labelledby="h-spending">
      <h2 id="h-spending">Spending this month</h2>
      {q.isPending ? <Loading what="spending" /> : null}
      <ErrorMessage error={q.error} />
      {q.data && perCurrency.length === 0 ? <p className="muted">No spending this month yet.</p> : null}
      <Suspense fallback={<Loading what="the chart" />}>
        {perCurrency.map(([currency, bars]) => (
          <div key={currency}>
            <h3>{currency}</h3>
            <SpendingChart currency={currency} bars={bars} />
          </div>
        ))}
      </Suspense>
    </section>
  );
}

function SyncLogs() {
  const q = useQuery({
    queryKey: ["sync-logs", "latest"],
    queryFn: () => call(api.GET("/api/v1/sync/logs", { params: { query: { limit: 10 } } })),
  });
  return (
    <section className="card" aria-labelledby="h-logs">
      <h2 id="h-logs">Latest syncs</h2>
      {q.isPending ? <Loading what="sync logs" /> : null}
      <ErrorMessage error={q.error} />
      {q.data && q.data.sync_logs.length === 0 ? <p className="muted">No sync has run yet.</p> : null}
      <ul className="log">
        {q.data?.sync_logs.map((l) => (
          <li key={l.id}>
            {when(l.started_at)} · {l.provider} {l.connection_id} · {l.trigger} ·{" "}
            <span className={`status status-${l.status}`}>{l.status}</span> · +{l.added} ~{l.modified} −{l.removed}
            {l.skipped_count ? ` · ${l.skipped_count} skipped` : ""}
            {l.error_message ? ` · ${l.error_code ?? ""} ${l.error_message}` : ""}
          </li>
        ))}
      </ul>
    </section>
  );
}

export default function Home() {
  return (
    <>
      <h1>Home</h1>
      <div className="grid-2">
        <Connections />
        <ReviewCount />
      </div>
      <Spending />
      <SyncLogs />
    </>
  );
}
