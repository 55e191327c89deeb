import { useQueryClient } from "@tanstack/react-query";
import { useState, type FormEvent } from "react";
import { api, call } from "../../app/api";
import { ErrorMessage } from "../../app/errors";
import { navigate, useSearchParams } from "../../app/router";
import { SESSION_KEY } from "../../app/session";

const MIN_PASSWORD = 12;

/**
 * /setup?token=…: the one-time link `coffer start` or `coffer users create-login` prints. Choosing a
 * password sends POST /api/v1/auth/setup, which consumes the token and signs the person in.
 */
export default function SetupPage() {
  const [search] = useSearchParams();
  const token = search.get("token") ?? "";
  const queryClient = useQueryClient();
  const [password, setPassword] = useState("");
  const [repeat, setRepeat] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const mismatch = repeat !== "" && repeat !== password;

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    // The length rule is the server's (400 VALIDATION_ERROR, shown in place); the hint above states it.
    if (mismatch) return;
    setBusy(true);
    setError(null);
    try {
      await call<unknown>(api.POST("/api/v1/auth/setup", { body: { token, password } }));
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
      <h1>Set your password</h1>
      <p className="muted">Choose a password of at least {MIN_PASSWORD} characters. The link works once.</p>
      <form onSubmit={(e) => void submit(e)} className="stack">
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
    </section>
  );
}
