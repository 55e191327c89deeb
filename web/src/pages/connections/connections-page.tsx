import { useMutation, useQueries, useQuery, useQueryClient } from "@tanstack/react-query";
import { useEffect, useState } from "react";
import { api, call } from "../../app/api";
import { ErrorMessage, Loading } from "../../app/errors";
import { when } from "../../app/format";
import { Link } from "../../app/router";
import type { Connection } from "../../api/schemas";
import { getConnection, PROVIDER_TITLES, type ConnectionDetail } from "../connect/common";
import "../connect/forms.css";

const STATUS_TEXT: Record<string, string> = {
  active: "active",
  error: "error",
  pending_reauth: "needs login",
  disconnected: "disconnected",
};

/** Where a connection's login is repaired; Plaid and Teller pages need a full page load (their CSP). */
const REAUTH_PAGE: Record<string, string> = {
  plaid: "/connect/plaid",
  teller: "/connect/teller",
  simplefin: "/connect/simplefin",
};

/** How long after "Sync now" the logs are polled for the queued sync to show up. */
const WAIT_FOR_QUEUED_MS = 30_000;

function SyncLogs({ connection, askedAt }: { connection: Connection; askedAt: number | null }) {
  const queryClient = useQueryClient();
  const logs = useQuery({
    queryKey: ["sync-logs", connection.id],
    queryFn: () =>
      call(api.GET("/api/v1/sync/logs", { params: { query: { connection_id: connection.id, limit: 10 } } })),
    // Poll while a sync runs, and after "Sync now" until the queued sync has started.
    refetchInterval: (q) => {
      const list = q.state.data?.sync_logs ?? [];
      if (list.some((l) => l.status === "running")) return 1000;
      const waiting =
        askedAt !== null &&
        Date.now() - askedAt < WAIT_FOR_QUEUED_MS &&
        !list.some((l) => l.started_at !== null && Date.parse(l.started_at) >= askedAt - 1000);
      return waiting ? 1000 : false;
    },
  });
  // When the newest sync finishes, the connection's status and last sync have changed too.
  const newest = logs.data?.sync_logs[0];
  const newestState = newest ? `${newest.id}:${newest.status}` : "";
  useEffect(() => {
    if (newestState) void queryClient.invalidateQueries({ queryKey: ["connections"] });
  }, [newestState, queryClient]);
  if (logs.isPending) return <Loading what="sync logs" />;
  if (logs.error) return <ErrorMessage error={logs.error} />;
  const list = logs.data.sync_logs;
  if (list.length === 0) return <p className="muted">No sync has run yet.</p>;
  return (
    <div className="table-wrap">
      <table aria-label={`Sync logs of ${connection.institution_name}`}>
        <thead>
          <tr>
            <th>Started</th>
            <th>Trigger</th>
            <th>Status</th>
            <th className="num">Added</th>
            <th className="num">Changed</th>
            <th className="num">Removed</th>
            <th className="num">Skipped</th>
            <th>Error</th>
          </tr>
        </thead>
        <tbody>
          {list.map((l) => (
            <tr key={l.id}>
              <td>{when(l.started_at)}</td>
              <td>{l.trigger}</td>
              <td>
                <span className={`status status-${l.status}`}>{l.status}</span>
              </td>
              <td className="num">{l.added}</td>
              <td className="num">{l.modified}</td>
              <td className="num">{l.removed}</td>
              <td className="num">{l.skipped_count}</td>
              <td>{l.error_message ?? ""}</td>
            </tr>
          ))}
        </tbody>
      </table>
    </div>
  );
}

function ConnectionCard({ connection, detail }: { connection: Connection; detail: ConnectionDetail | undefined }) {
  const queryClient = useQueryClient();
  const [confirming, setConfirming] = useState(false);
  const [showLogs, setShowLogs] = useState(false);
  const [askedAt, setAskedAt] = useState<number | null>(null);
  const refresh = () =>
    Promise.all([
      queryClient.invalidateQueries({ queryKey: ["connections"] }),
      queryClient.invalidateQueries({ queryKey: ["connection", connection.id] }),
      queryClient.invalidateQueries({ queryKey: ["sync-logs", connection.id] }),
    ]);
  const id = connection.id;
  const action = useMutation({
    mutationFn: async (what: "sync" | "pause" | "resume" | "disconnect") => {
      if (what === "sync") {
        await call(api.POST("/api/v1/connections/{id}/sync", { params: { path: { id } }, body: {} }));
        setAskedAt(Date.now());
        setShowLogs(true);
      } else if (what === "disconnect") {
        await call(api.DELETE("/api/v1/connections/{id}", { params: { path: { id } } }));
        setConfirming(false);
      } else {
        await call(
          api.POST("/api/v1/connections/{id}/paused", {
            params: { path: { id } },
            body: { paused: what === "pause" },
          }),
        );
      }
    },
    onSettled: () => void refresh(),
  });
  const name = connection.institution_name || PROVIDER_TITLES[connection.provider] || connection.provider;
  const live = connection.status !== "disconnected";
  const paused = detail?.paused === true;
  const reauthPage = REAUTH_PAGE[connection.provider];
  const needsLogin = connection.status === "pending_reauth" || connection.status === "error";

  return (
    <li className="card" aria-label={name}>
      <div className="conn-head">
        <h2>{name}</h2>
        <span className={`status status-${connection.status}`}>
          {STATUS_TEXT[connection.status] ?? connection.status}
        </span>
        {paused && live ? <span className="status">paused</span> : null}
      </div>
      <p className="muted">
        {PROVIDER_TITLES[connection.provider] ?? connection.provider} · {connection.user_name} · last synced{" "}
        {when(connection.last_synced_at)}
      </p>
      {connection.error_message ? (
        <p className="error">
          {connection.error_message} {connection.error_code ? <code>{connection.error_code}</code> : null}
        </p>
      ) : null}
      {connection.warnings > 0 ? <Warnings connection={connection} /> : null}
      {live ? (
        <div className="actions">
          <button type="button" disabled={action.isPending} onClick={() => action.mutate("sync")}>
            Sync now
          </button>
          {detail ? (
            <button
              type="button"
              disabled={action.isPending}
              onClick={() => action.mutate(paused ? "resume" : "pause")}
            >
              {paused ? "Resume" : "Pause"}
            </button>
          ) : null}
          {reauthPage && needsLogin ? (
            <a className="button-link" href={`${reauthPage}?reauth=${encodeURIComponent(connection.id)}`}>
              Log in again
            </a>
          ) : null}
          <button type="button" className="danger" disabled={action.isPending} onClick={() => setConfirming(true)}>
            Disconnect
          </button>
        </div>
      ) : null}
      {confirming ? (
        <div className="confirm" role="alertdialog" aria-label={`Disconnect ${name}?`}>
          <p>
            <strong>Disconnect {name}?</strong> Coffer ends its login at the provider and stops syncing it. Its accounts
            and transactions are kept. You cannot undo this; connecting the bank again makes a new connection.
          </p>
          <div className="actions">
            <button type="button" className="danger" onClick={() => action.mutate("disconnect")}>
              Disconnect, keep the data
            </button>
            <button type="button" onClick={() => setConfirming(false)}>
              Cancel
            </button>
          </div>
        </div>
      ) : null}
      <ErrorMessage error={action.error} />
      <button type="button" className="link-button" aria-expanded={showLogs} onClick={() => setShowLogs((s) => !s)}>
        {showLogs ? "Hide sync logs" : "Sync logs"}
      </button>
      {showLogs ? <SyncLogs connection={connection} askedAt={askedAt} /> : null}
    </li>
  );
}

/**
 * What the newest sync that skipped rows could not store (an amount that is not a whole number of cents, …):
 * the connection stays active, so this is where a person learns of them.
 */
function Warnings({ connection }: { connection: Connection }) {
  const rows = connection.warning_rows;
  return (
    <div className="warning" role="note" aria-label="Skipped rows">
      <p>
        <strong>
          {connection.warnings} {connection.warnings === 1 ? "row was" : "rows were"} not imported
        </strong>{" "}
        by a sync
        {connection.warnings_sync_log_id ? (
          <>
            {" "}
            (log <code>{connection.warnings_sync_log_id}</code>)
          </>
        ) : null}
        ; add {connection.warnings === 1 ? "it" : "them"} by hand if needed.
      </p>
      <ul>
        {rows.map((r, i) => (
          <li key={i}>
            {r.row}: {r.reason}
            {r.amount ? (
              <>
                {" "}
                (amount <code>{r.amount}</code>)
              </>
            ) : null}
          </li>
        ))}
      </ul>
      {connection.warnings > rows.length ? <p className="muted">and {connection.warnings - rows.length} more</p> : null}
    </div>
  );
}

/** /connections: every connection with its status and error, its actions, and its sync logs. */
export default function ConnectionsPage() {
  const list = useQuery({
    queryKey: ["connections"],
    queryFn: () => call(api.GET("/api/v1/connections", {})),
  });
  // The listing has no `paused`: each live connection's own answer has it.
  const live = (list.data ?? []).filter((c) => c.status !== "disconnected");
  const details = useQueries({
    queries: live.map((c) => ({ queryKey: ["connection", c.id], queryFn: () => getConnection(c.id) })),
  });
  const detailOf = new Map(live.map((c, i) => [c.id, details[i]?.data]));
  return (
    <section>
      <div className="spread">
        <h1>Connections</h1>
        <Link className="button-link" to="/connect">
          Connect a bank
        </Link>
      </div>
      {list.isPending ? <Loading what="connections" /> : null}
      <ErrorMessage error={list.error} />
      {list.data && list.data.length === 0 ? (
        <p>
          No connections yet. <Link to="/connect">Connect a bank</Link> or import a CSV file.
        </p>
      ) : null}
      <ul className="plain-list" aria-label="Connections">
        {(list.data ?? []).map((c) => (
          <ConnectionCard key={c.id} connection={c} detail={detailOf.get(c.id)} />
        ))}
      </ul>
    </section>
  );
}
