import { useState, type FormEvent } from "react";
import { api, call } from "../../app/api";
import { ErrorMessage } from "../../app/errors";
import { Link, useSearchParams } from "../../app/router";
import { createConnection, MemberSelect, useDefaultMember, type ConnectionDetail } from "./common";
import { Connected } from "./connected";
import "./forms.css";

/**
 * /connect/simplefin: paste the setup token made at the SimpleFIN Bridge → POST /connections.
 * ?reauth=<connection>: a new token replaces the stored access (POST /connections/{id}/reauth).
 */
export default function SimplefinPage() {
  const [search] = useSearchParams();
  const reauthId = search.get("reauth");
  const [member, setMember] = useState(useDefaultMember());
  const [token, setToken] = useState("");
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [done, setDone] = useState<ConnectionDetail | null>(null);

  const submit = async (e: FormEvent) => {
    e.preventDefault();
    setBusy(true);
    setError(null);
    try {
      const credentials = { setup_token: token.trim() };
      if (reauthId) {
        const r = await call(
          api.POST("/api/v1/connections/{id}/reauth", { params: { path: { id: reauthId } }, body: { credentials } }),
        );
        setDone(r.connection);
      } else {
        setDone(await createConnection({ provider: "simplefin", user_id: member, credentials }));
      }
    } catch (err) {
      setError(err);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section>
      <h1>{reauthId ? "Reconnect SimpleFIN" : "Connect with SimpleFIN Bridge"}</h1>
      <p>
        <Link to={reauthId ? "/connections" : "/connect"}>← {reauthId ? "Connections" : "All providers"}</Link>
      </p>
      {done ? (
        <Connected connection={done} reauth={reauthId !== null} />
      ) : (
        <form className="card stack" onSubmit={(e) => void submit(e)}>
          <p>
            At the SimpleFIN Bridge, connect your banks and create a setup token for Coffer, then paste it here. A token
            works once; if Coffer says it was already claimed, disable it at the Bridge (someone else may have it).
          </p>
          {reauthId ? null : <MemberSelect value={member} onChange={setMember} />}
          <label>
            Setup token
            <textarea
              required
              rows={4}
              spellCheck={false}
              autoComplete="off"
              value={token}
              onChange={(e) => setToken(e.target.value)}
            />
          </label>
          <ErrorMessage error={error} />
          <button type="submit" className="primary" disabled={busy || token.trim() === ""}>
            {busy ? "Connecting…" : "Connect"}
          </button>
        </form>
      )}
    </section>
  );
}
