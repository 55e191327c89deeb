import { useQuery, useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { api, call } from "../../app/api";
import { ErrorMessage, Loading } from "../../app/errors";
import { navigate, useSearchParams } from "../../app/router";
import { SESSION_KEY } from "../../app/session";
import "../connect/forms.css";

const MIN_PASSWORD = 12;

/**
 * /setup?token=…: the one-time link `coffer start` or `coffer users create-login` prints. The page first asks
 * what the link is for (GET /auth/setup); choosing a password sends POST /api/v1/auth/setup, which consumes the
 * token and signs the person in. The first-run link also takes the admin's email and name.
 */
export default function SetupPage() {
  const [search] = useSearchParams();
  const token = search.get("token") ?? "";
  const queryClient = useQueryClient();
  const link = useQuery({
    queryKey: ["setup-link", token],
    queryFn: () => call(api.GET("/api/v1/auth/setup", { params: { query: { token } } })),
    enabled: token !== "",
    retry: false,
    staleTime: Infinity,
  });
  const [email, setEmail] = useState("");
  const [name, setName] = useState("");
  const [password, setPassword] = useState("");
  const [repeat, setRepeat] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const mismatch = repeat !== "" && repeat !== password;
  const firstRun = link.data?.first_run === true;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    // The length rule is the server's (400 VALIDATION_ERROR, shown in place); the hint above states it.
    if (mismatch) return;
    setBusy(true);
    setError(null);
    try {
      const body = firstRun
        ? { token, password, email: email.trim(), ...(name.trim() ? { name: name.trim() } : {}) }
        : { token, password };
      await call(api.POST("/api/v1/auth/setup", { body }));
      await queryClient.resetQueries({ queryKey: SESSION_KEY });
      navigate("/", { replace: true });
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  if (!token) {
    return (
      <section className="card">
        <h1>Set your password</h1>
        <p role="alert">
          This page needs the setup link you were given (it ends in <code>?token=…</code>). Ask whoever runs this Coffer
          for a new one: <code>coffer users create-login --email you@example.com --role admin</code>.
        </p>
      </section>
    );
  }

  return (
    <section className="card">
      <h1>{firstRun ? "Create the admin account" : "Set your password"}</h1>
      {link.isPending ? <Loading what="the setup link" /> : null}
      {link.error ? (
        <>
          <ErrorMessage error={link.error} />
          <p>
            A setup link works once, for an hour. Ask whoever runs this Coffer for a new one (
            <code>coffer users create-login</code>, or “New setup link” on the Access page).
          </p>
        </>
      ) : null}
      {link.data ? (
        <form onSubmit={(e) => void submit(e)} className="stack">
          {firstRun ? (
            <>
              <p className="muted">
                No one can sign in yet. This account will be the household&apos;s first admin. Choose a password of at
                least {MIN_PASSWORD} characters. The link works once.
              </p>
              <label>
                Email (you sign in with it)
                <input
                  type="email"
                  autoComplete="username"
                  required
                  value={email}
                  onChange={(e) => setEmail(e.target.value)}
                />
              </label>
              <label>
                Your name (optional)
                <input autoComplete="name" value={name} onChange={(e) => setName(e.target.value)} />
              </label>
            </>
          ) : (
            <p className="muted">
              For <strong>{link.data.email}</strong> ({link.data.role}).{" "}
              {`Choose a password of at least ${MIN_PASSWORD} characters. The link works once.`}
            </p>
          )}
          <label>
            New password
            <input
              type="password"
              autoComplete="new-password"
              required
              value={password}
              onChange={(e) => setPassword(e.target.value)}
            />
          </label>
          <label>
            Repeat the password
            <input
              type="password"
              autoComplete="new-password"
              required
              value={repeat}
              aria-invalid={mismatch}
              aria-describedby={mismatch ? "setup-mismatch" : undefined}
              onChange={(e) => setRepeat(e.target.value)}
            />
          </label>
          {mismatch ? (
            <p id="setup-mismatch" className="error">
              The two passwords differ.
            </p>
          ) : null}
          <ErrorMessage error={error} />
          <button type="submit" className="primary" disabled={busy || mismatch}>
            {busy ? "Saving…" : "Set password and sign in"}
          </button>
        </form>
      ) : null}
    </section>
  );
}
