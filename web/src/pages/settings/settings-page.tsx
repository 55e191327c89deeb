import { useQuery } from "@tanstack/react-query";
import { api, ApiError, call } from "../../app/api";
import { consoleConfig } from "../../app/config";
import { ErrorMessage, Loading } from "../../app/errors";
import { useSession } from "../../app/session";

/** GET /health/ready: 200 while the core answers and reaches its database, else 503 with the envelope. */
async function readiness(): Promise<{ status: string }> {
  const r = await fetch("/health/ready", { headers: { Accept: "application/json" } });
  const body = (await r.json().catch(() => ({}))) as { status?: string; error?: { code?: string; message?: string } };
  if (!r.ok) throw new ApiError(r.status, body.error?.code ?? `HTTP_${r.status}`, body.error?.message ?? r.statusText);
  return { status: body.status ?? "ok" };
}

/** /settings: configured providers, versions, whether the database answers and its migrations. */
export default function SettingsPage() {
  const session = useSession();
  const providers = useQuery({
    queryKey: ["providers"],
    queryFn: () => call(api.GET("/api/v1/providers", {})),
  });
  const version = useQuery({
    queryKey: ["version"],
    queryFn: () => call(api.GET("/api/v1/version", {})),
  });
  const ready = useQuery({ queryKey: ["ready"], queryFn: readiness, retry: false, refetchInterval: 30_000 });
  const database = useQuery({
    queryKey: ["database"],
    queryFn: () => call(api.GET("/api/v1/system/database", {})),
  });
  const config = consoleConfig();
  return (
    <>
      <h1>Settings</h1>
      <div className="grid-2">
        <section className="card" aria-labelledby="h-version">
          <h2 id="h-version">Version</h2>
          {version.isPending ? <Loading /> : null}
          <ErrorMessage error={version.error} />
          <dl className="facts">
            <dt>Coffer</dt>
            <dd>{version.data?.version ?? "…"}</dd>
            <dt>API contract</dt>
            <dd>{version.data?.contract_version ?? "…"}</dd>
            <dt>This console</dt>
            <dd>{config.version || "—"}</dd>
            <dt>Public URL</dt>
            <dd>{config.public_url || window.location.origin}</dd>
          </dl>
        </section>
        <section className="card" aria-labelledby="h-db">
          <h2 id="h-db">Database</h2>
          {ready.isPending ? <Loading what="the database status" /> : null}
          {ready.data ? (
            <p>
              <span className="status status-active">{ready.data.status}</span> The core answers and its database is
              reachable; migrations ran when the core started (a core does not serve before they have all applied).
            </p>
          ) : null}
          <ErrorMessage error={ready.error} />
          <ErrorMessage error={database.error} />
          {database.data ? (
            <>
              <dl className="facts">
                <dt>PostgreSQL</dt>
                <dd>{database.data.server_version}</dd>
                <dt>Migrations</dt>
                <dd>
                  {database.data.applied.length} applied, latest {database.data.applied.at(-1)?.name ?? "none"}
                </dd>
                <dt>Pending</dt>
                <dd>{database.data.pending.length === 0 ? "none" : database.data.pending.join(", ")}</dd>
              </dl>
              <details>
                <summary>Every migration</summary>
                <ul>
                  {database.data.applied.map((m) => (
                    <li key={m.name}>
                      {m.name}{" "}
                      <span className="muted">{m.executed_at ? new Date(m.executed_at).toLocaleString() : ""}</span>
                    </li>
                  ))}
                </ul>
              </details>
            </>
          ) : null}
        </section>
        <section className="card" aria-labelledby="h-session">
          <h2 id="h-session">You</h2>
          <dl className="facts">
            <dt>Name</dt>
            <dd>{session.user_name}</dd>
            <dt>Email</dt>
            <dd>{session.email}</dd>
            <dt>Role</dt>
            <dd>
              {session.role} ({session.scope === "full_access" ? "may change data" : "read only"})
            </dd>
          </dl>
        </section>
      </div>
      <section className="card" aria-labelledby="h-providers">
        <h2 id="h-providers">Providers</h2>
        {providers.isPending ? <Loading what="providers" /> : null}
        <ErrorMessage error={providers.error} />
        <div className="table-wrap">
          <table aria-label="Providers">
            <thead>
              <tr>
                <th scope="col">Provider</th>
                <th scope="col">Configured</th>
                <th scope="col">Can do</th>
                <th scope="col">Browser widget</th>
              </tr>
            </thead>
            <tbody>
              {providers.data?.providers.map((p) => (
                <tr key={p.name}>
                  <td>{p.name}</td>
                  <td>
                    {p.configured ? (
                      <span className="status status-active">configured</span>
                    ) : (
                      <span className="status status-error">not configured</span>
                    )}
                  </td>
                  <td>{p.capabilities.join(", ")}</td>
                  <td>{p.needs_link_session ? "yes" : "no"}</td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
        <p className="muted">
          Plaid needs <code>PLAID_CLIENT_ID</code> and <code>PLAID_SECRET</code>; Teller needs{" "}
          <code>TELLER_APPLICATION_ID</code> (and a certificate outside the sandbox). SimpleFIN and CSV need nothing.
          Set them in the server&apos;s environment and restart.
        </p>
      </section>
    </>
  );
}
