import { useMutation, useQueries, useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { api, ApiError, call } from "../../app/api";
import { ErrorMessage, Loading } from "../../app/errors";
import { when } from "../../app/format";
import { useSession } from "../../app/session";
import type { User } from "../../api/schemas";
import { useUsers } from "../connect/common";
import "../connect/forms.css";
import { ShownOnce } from "./secret";
import type { ApiKey, Login as LoginAccount } from "../../api/schemas";

const ROLES = ["admin", "editor", "viewer"] as const;
type Role = (typeof ROLES)[number];

function ApiKeys() {
  const queryClient = useQueryClient();
  const keys = useQuery({
    queryKey: ["api-keys"],
    queryFn: () => call(api.GET("/api/v1/api-keys", {})),
  });
  const [name, setName] = useState("");
  const [scope, setScope] = useState<"read_only" | "full_access">("read_only");
  const [made, setMade] = useState<(ApiKey & { key: string }) | null>(null);
  const [revoking, setRevoking] = useState<ApiKey | null>(null);
  const create = useMutation({
    mutationFn: () => call(api.POST("/api/v1/api-keys", { body: { name, scope } })),
    onSuccess: (k) => {
      setMade(k);
      setName("");
      void queryClient.invalidateQueries({ queryKey: ["api-keys"] });
    },
  });
  const revoke = useMutation({
    mutationFn: (id: string) => call(api.DELETE("/api/v1/api-keys/{id}", { params: { path: { id } } })),
    onSuccess: () => {
      setRevoking(null);
      void queryClient.invalidateQueries({ queryKey: ["api-keys"] });
    },
  });
  const submit = (e: FormEvent) => {
    e.preventDefault();
    setMade(null);
    create.mutate();
  };
  const active = (keys.data?.api_keys ?? []).filter((k) => !k.revoked_at);
  const revoked = (keys.data?.api_keys ?? []).filter((k) => k.revoked_at);

  return (
    <section className="card" aria-labelledby="keys-h">
      <h2 id="keys-h">API keys</h2>
      <p className="muted">
        Keys let scripts and AI agents use Coffer. <code>read_only</code> reads everything; <code>full_access</code> may
        also change data and manage keys.
      </p>
      <form className="row" onSubmit={submit}>
        <label>
          Key name
          <input required maxLength={200} value={name} onChange={(e) => setName(e.target.value)} />
        </label>
        <label>
          Scope
          <select value={scope} onChange={(e) => setScope(e.target.value as typeof scope)}>
            <option value="read_only">read_only</option>
            <option value="full_access">full_access</option>
          </select>
        </label>
        <button type="submit" className="primary" disabled={create.isPending}>
          Create key
        </button>
      </form>
      <ErrorMessage error={create.error} />
      {made ? (
        <ShownOnce
          label={`New key “${made.name}”`}
          value={made.key}
          note="Copy it now: Coffer stores only its hash and cannot show it again."
        />
      ) : null}
      {keys.isPending ? <Loading what="keys" /> : null}
      <ErrorMessage error={keys.error} />
      {keys.data ? (
        <div className="table-wrap">
          <table aria-label="API keys">
            <thead>
              <tr>
                <th>Name</th>
                <th>Scope</th>
                <th>Starts with</th>
                <th>Created</th>
                <th>Last used</th>
                <th />
              </tr>
            </thead>
            <tbody>
              {active.map((k) => (
                <tr key={k.id}>
                  <td>{k.name}</td>
                  <td>{k.scope}</td>
                  <td>
                    <code>{k.key_prefix}…</code>
                  </td>
                  <td>{when(k.created_at)}</td>
                  <td>{when(k.last_used_at)}</td>
                  <td>
                    <button
                      type="button"
                      className="danger"
                      aria-label={`Revoke ${k.name}`}
                      onClick={() => setRevoking(k)}
                    >
                      Revoke
                    </button>
                  </td>
                </tr>
              ))}
            </tbody>
          </table>
        </div>
      ) : null}
      {revoking ? (
        <div className="confirm" role="alertdialog" aria-label={`Revoke ${revoking.name}?`}>
          <p>
            <strong>Revoke “{revoking.name}”?</strong> Whatever uses it is refused from now on. This cannot be undone.
          </p>
          <div className="actions">
            <button type="button" className="danger" onClick={() => revoke.mutate(revoking.id)}>
              Revoke the key
            </button>
            <button type="button" onClick={() => setRevoking(null)}>
              Cancel
            </button>
          </div>
        </div>
      ) : null}
      <ErrorMessage error={revoke.error} />
      {revoked.length > 0 ? (
        <details>
          <summary>{revoked.length} revoked keys</summary>
          <ul className="plain-list" aria-label="Revoked keys">
            {revoked.map((k) => (
              <li key={k.id}>
                {k.name} ({k.scope}), revoked {when(k.revoked_at)}
              </li>
            ))}
          </ul>
        </details>
      ) : null}
    </section>
  );
}

function MemberLogin({ user, login }: { user: User; login: LoginAccount | null | undefined }) {
  const queryClient = useQueryClient();
  const me = useSession();
  const [email, setEmail] = useState(user.email ?? "");
  const [role, setRole] = useState<Role>("viewer");
  const [setupUrl, setSetupUrl] = useState<string | null>(null);
  const id = user.short_id;
  const refresh = () => queryClient.invalidateQueries({ queryKey: ["login", id] });
  const act = useMutation({
    mutationFn: async (what: { kind: "create" } | { kind: "role"; role: Role } | { kind: "reset" | "delete" }) => {
      const path = { params: { path: { id } } };
      if (what.kind === "create") {
        const r = await call(api.POST("/api/v1/users/{id}/login", { ...path, body: { email, role } }));
        setSetupUrl(r.setup_url);
      } else if (what.kind === "reset") {
        const r = await call(api.POST("/api/v1/users/{id}/login/reset-password", { ...path, body: {} }));
        setSetupUrl(r.setup_url);
      } else if (what.kind === "role") {
        await call(api.PATCH("/api/v1/users/{id}/login", { ...path, body: { role: what.role } }));
      } else {
        await call(api.DELETE("/api/v1/users/{id}/login", path));
        setSetupUrl(null);
      }
    },
    onSettled: () => void refresh(),
  });
  const self = login?.user_id === me.user_id || user.id === me.user_id || user.short_id === me.user_id;

  return (
    <li className="card" aria-label={`Login of ${user.name}`}>
      <h3>{user.name}</h3>
      {login === undefined ? (
        <Loading what="the login" />
      ) : login === null ? (
        <form
          className="row"
          onSubmit={(e) => {
            e.preventDefault();
            act.mutate({ kind: "create" });
          }}
        >
          <label>
            Email
            <input type="email" required value={email} onChange={(e) => setEmail(e.target.value)} />
          </label>
          <label>
            Role
            <select value={role} onChange={(e) => setRole(e.target.value as Role)}>
              {ROLES.map((r) => (
                <option key={r}>{r}</option>
              ))}
            </select>
          </label>
          <button type="submit" className="primary" disabled={act.isPending}>
            Create login
          </button>
        </form>
      ) : (
        <>
          <p>
            {login.email} · {login.password_set ? `last sign-in ${when(login.last_login_at)}` : "password not set yet"}
          </p>
          <div className="row">
            <label>
              Role
              <select
                value={login.role}
                disabled={act.isPending || self}
                onChange={(e) => act.mutate({ kind: "role", role: e.target.value as Role })}
              >
                {ROLES.map((r) => (
                  <option key={r}>{r}</option>
                ))}
              </select>
            </label>
            <button type="button" disabled={act.isPending} onClick={() => act.mutate({ kind: "reset" })}>
              New setup link
            </button>
            {self ? null : (
              <button
                type="button"
                className="danger"
                disabled={act.isPending}
                onClick={() => act.mutate({ kind: "delete" })}
              >
                Remove login
              </button>
            )}
          </div>
        </>
      )}
      <ErrorMessage error={act.error} />
      {setupUrl ? (
        <ShownOnce
          label={`Setup link for ${user.name}`}
          value={setupUrl}
          note="Send it to them: it works once, for an hour, and lets them choose a password."
        />
      ) : null}
    </li>
  );
}

function LoginAccounts() {
  const users = useUsers();
  const list = users.data?.users ?? [];
  const logins = useQueries({
    queries: list.map((u) => ({
      queryKey: ["login", u.short_id],
      queryFn: () =>
        call(api.GET("/api/v1/users/{id}/login", { params: { path: { id: u.short_id } } })).catch((e: unknown) => {
          if (e instanceof ApiError && e.status === 404) return null;
          throw e;
        }),
    })),
  });
  return (
    <section className="card" aria-labelledby="logins-h">
      <h2 id="logins-h">Login accounts</h2>
      <p className="muted">
        Who may sign in to this console. Admins and editors may change data; viewers only read. Only admins manage
        logins.
      </p>
      {users.isPending ? <Loading what="household members" /> : null}
      <ErrorMessage error={users.error} />
      {logins.map((l, i) => (l.error ? <ErrorMessage key={list[i]?.id ?? i} error={l.error} /> : null))}
      <ul className="plain-list" aria-label="Login accounts">
        {list.map((u, i) => (
          <MemberLogin key={u.id} user={u} login={logins[i]?.error ? null : logins[i]?.data} />
        ))}
      </ul>
    </section>
  );
}

/** /access, for admins: API keys (create with the plaintext shown once, list, revoke) and login accounts. */
export default function AccessPage() {
  const session = useSession();
  return (
    <section>
      <h1>Access</h1>
      {session.role === "admin" ? (
        <>
          <p className="muted">
            Approving a device or agent that shows you a code? Open <a href="/device">Device approval</a>.
          </p>
          <ApiKeys />
          <LoginAccounts />
        </>
      ) : (
        // Minting keys, approving devices and managing logins could raise anyone to full access: admins only.
        <p className="card">
          {`API keys, device approval and login accounts are managed by the household's admins. `}
          {`You are signed in as ${session.role}.`}
        </p>
      )}
    </section>
  );
}
