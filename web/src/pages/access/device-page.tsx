import { useState, type FormEvent } from "react";
import { api, call } from "../../app/api";
import { ErrorMessage } from "../../app/errors";
import { Link, useSearchParams } from "../../app/router";
import "../connect/forms.css";

/**
 * /device?user_code=…: the device-code flow's verification_url. The person checks the code the device
 * shows, picks the scope of the key the device will get, and approves or denies
 * (POST /api/v1/auth/device-code/approve | deny).
 */
export default function DevicePage() {
  const [search] = useSearchParams();
  const [code, setCode] = useState(search.get("user_code") ?? "");
  const [scope, setScope] = useState<"read_only" | "full_access">("read_only");
  const [name, setName] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [decided, setDecided] = useState<"approved" | "denied" | null>(null);

  const decide = async (approve: boolean) => {
    setBusy(true);
    setError(null);
    try {
      const user_code = code.trim().toUpperCase();
      if (approve) {
        await call(
          api.POST("/api/v1/auth/device-code/approve", {
            body: { user_code, scope, ...(name.trim() ? { name: name.trim() } : {}) },
          }),
        );
      } else {
        await call(api.POST("/api/v1/auth/device-code/deny", { body: { user_code } }));
      }
      setDecided(approve ? "approved" : "denied");
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  const submit = (e: FormEvent) => {
    e.preventDefault();
    void decide(true);
  };

  return (
    <section className="page-narrow">
      <h1>Device approval</h1>
      {decided ? (
        <div className="card" role="status">
          <p>
            {decided === "approved"
              ? `Approved. The device gets a ${scope} key the next time it asks; you can revoke it under Access.`
              : "Denied. The device gets no key."}
          </p>
          <p>
            <Link to="/access">Access</Link>
          </p>
        </div>
      ) : (
        <form className="card stack" onSubmit={submit}>
          <p>
            A device or agent asks to use this Coffer. Approve only if it shows you <strong>the same code</strong>.
          </p>
          <label>
            Code shown by the device
            <input
              required
              autoComplete="off"
              spellCheck={false}
              placeholder="BDXZ-DMQZ"
              value={code}
              onChange={(e) => setCode(e.target.value)}
            />
          </label>
          <fieldset>
            <legend>What the device may do</legend>
            <label className="inline">
              <input type="radio" name="scope" checked={scope === "read_only"} onChange={() => setScope("read_only")} />
              Read only (read_only)
            </label>
            <label className="inline">
              <input
                type="radio"
                name="scope"
                checked={scope === "full_access"}
                onChange={() => setScope("full_access")}
              />
              Read and change data (full_access)
            </label>
          </fieldset>
          <label>
            Key name (optional)
            <input maxLength={200} value={name} onChange={(e) => setName(e.target.value)} />
          </label>
          <ErrorMessage error={error} />
          <div className="actions">
            <button type="submit" className="primary" disabled={busy || !code.trim()}>
              Approve
            </button>
            <button type="button" className="danger" disabled={busy || !code.trim()} onClick={() => void decide(false)}>
              Deny
            </button>
          </div>
        </form>
      )}
    </section>
  );
}
