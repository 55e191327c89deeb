import { useQuery } from "@tanstack/react-query";
import { useState } from "react";
import { api, call } from "../../app/api";
import { consoleConfig } from "../../app/config";
import { ErrorMessage, Loading } from "../../app/errors";
import { Link, useSearchParams } from "../../app/router";
import {
  createConnection,
  getConnection,
  loadScript,
  MemberSelect,
  useDefaultMember,
  type ConnectionDetail,
} from "./common";
import { Connected } from "./connected";
import "./forms.css";

/** What Plaid Link's onExit hands over when something went wrong. */
interface PlaidLinkError {
  error_type: string;
  error_code: string;
  error_message: string;
  display_message: string | null;
}

interface PlaidHandler {
  open(): void;
  destroy(): void;
}

declare global {
  interface Window {
    Plaid?: {
      create(config: {
        token: string;
        onSuccess(publicToken: string, metadata: { institution?: { name: string } | null }): void;
        onExit(error: PlaidLinkError | null, metadata: { status?: string | null }): void;
        onEvent?(name: string, metadata: unknown): void;
      }): PlaidHandler;
    };
  }
}

/** Link's own words for a failure, else its code. */
function linkError(e: PlaidLinkError): Error {
  return new Error(`Plaid Link: ${e.display_message ?? e.error_message} (${e.error_code})`);
}

/** Opens Plaid Link with a link token; resolves the public token, or null when the person left. */
async function runLink(linkToken: string): Promise<string | null> {
  await loadScript(consoleConfig().plaid_link_script_url);
  if (!window.Plaid) throw new Error("Plaid Link did not load (no window.Plaid).");
  const plaid = window.Plaid;
  return new Promise((resolve, reject) => {
    const handler = plaid.create({
      token: linkToken,
      onSuccess: (publicToken) => {
        handler.destroy();
        resolve(publicToken);
      },
      onExit: (error) => {
        handler.destroy();
        if (error) reject(linkError(error));
        else resolve(null);
      },
    });
    handler.open();
  });
}

/**
 * /connect/plaid: link session → Plaid Link → public token → POST /connections.
 * /connect/plaid?reauth=<connection>: update mode. POST /connections/{id}/reauth gives an update-mode
 * link token; after Link the login works again with the same token, and a sync is queued.
 */
export default function PlaidPage() {
  const [search] = useSearchParams();
  const reauthId = search.get("reauth");
  const [member, setMember] = useState(useDefaultMember());
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [left, setLeft] = useState(false);
  const [done, setDone] = useState<ConnectionDetail | null>(null);
  const existing = useQuery({
    queryKey: ["connection", reauthId],
    queryFn: () => getConnection(reauthId!),
    enabled: reauthId !== null,
  });

  const start = async () => {
    setBusy(true);
    setError(null);
    setLeft(false);
    try {
      if (reauthId) {
        const r = await call(
          api.POST("/api/v1/connections/{id}/reauth", { params: { path: { id: reauthId } }, body: {} }),
        );
        // No link session: the provider needs no widget to sign in again; the sync below proves it.
        const publicToken = r.link_token === null ? "" : await runLink(r.link_token);
        if (publicToken === null) return setLeft(true);
        // Update mode keeps the same access token: nothing to store, a sync proves the login works.
        await call(api.POST("/api/v1/connections/{id}/sync", { params: { path: { id: reauthId } }, body: {} }));
        setDone(await getConnection(reauthId));
      } else {
        const session = await call(
          api.POST("/api/v1/providers/{name}/link-session", {
            params: { path: { name: "plaid" } },
            body: { user_id: member },
          }),
        );
        const publicToken = await runLink(session.link_token);
        if (publicToken === null) return setLeft(true);
        setDone(
          await createConnection({ provider: "plaid", user_id: member, credentials: { public_token: publicToken } }),
        );
      }
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section>
      <h1>{reauthId ? "Reconnect with Plaid" : "Connect a bank with Plaid"}</h1>
      <p>
        <Link to={reauthId ? "/connections" : "/connect"}>← {reauthId ? "Connections" : "All providers"}</Link>
      </p>
      {done ? (
        <Connected connection={done} reauth={reauthId !== null} />
      ) : (
        <div className="card stack">
          {reauthId ? (
            existing.isPending ? (
              <Loading what="the connection" />
            ) : existing.data ? (
              <p>
                <strong>{existing.data.institution_name}</strong> asks you to log in again
                {existing.data.error_message ? `: ${existing.data.error_message}` : "."} Plaid Link opens in update
                mode; your accounts and transactions stay as they are.
              </p>
            ) : (
              <ErrorMessage error={existing.error} />
            )
          ) : (
            <>
              <p>Plaid Link opens in this page. Log in to your bank there; Coffer never sees your bank password.</p>
              <MemberSelect value={member} onChange={setMember} />
            </>
          )}
          {left ? <p role="status">You closed Plaid Link before finishing. Nothing was connected.</p> : null}
          <ErrorMessage error={error} />
          <button type="button" className="primary" disabled={busy} onClick={() => void start()}>
            {busy ? "Plaid Link is open…" : reauthId ? "Log in again with Plaid" : "Open Plaid Link"}
          </button>
        </div>
      )}
    </section>
  );
}
