import { useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { api, call } from "../../app/api";
import { ErrorMessage } from "../../app/errors";
import { navigate, useSearchParams } from "../../app/router";
import { SESSION_KEY } from "../../app/session";

/** Where to go after signing in: a path inside the console only (never another site). */
export function safeNext(next: string | null): string {
  return next && next.startsWith("/") && !next.startsWith("//") ? next : "/";
}

/** /login: email and password → POST /api/v1/auth/login, which sets the session cookie. */
export default function LoginPage() {
  const [search] = useSearchParams();
  const queryClient = useQueryClient();
  const [email, setEmail] = useState("");
  const [password, setPassword] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      await call(api.POST("/api/v1/auth/login", { body: { email, password } }));
      await queryClient.resetQueries({ queryKey: SESSION_KEY });
      navigate(safeNext(search.get("next")), { replace: true });
    } catch (err) {
      // The email stays; the password is kept too, so a person can fix a typo and send again.
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section className="card">
      <h1>Sign in to Coffer</h1>
      <form onSubmit={(e) => void submit(e)} className="stack">
        <label>
          Email
          <input
            type="email"
            autoComplete="username"
            required
            value={email}
            onChange={(e) => setEmail(e.target.value)}
          />
        </label>
        <label>
          Password
          <input
            type="password"
            autoComplete="current-password"
            required
            value={password}
            onChange={(e) => setPassword(e.target.value)}
          />
        </label>
        <ErrorMessage error={error} />
        <button type="submit" className="primary" disabled={busy}>
          {busy ? "Signing in…" : "Sign in"}
        </button>
      </form>
      <p className="muted">
        No password yet? Ask whoever runs this Coffer for a setup link (<code>coffer users create-login</code>).
      </p>
    </section>
  );
}
