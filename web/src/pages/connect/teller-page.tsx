import { useState } from "react";
import { api, call } from "../../app/api";
import { consoleConfig } from "../../app/config";
import { ErrorMessage } from "../../app/errors";
import { Link, useSearchParams } from "../../app/router";
import { createConnection, loadScript, MemberSelect, useDefaultMember, type ConnectionDetail } from "./common";
import { Connected } from "./connected";
import "./forms.css";

/** Teller Connect's onSuccess payload. */
interface TellerEnrollment {
  accessToken: string;
  user?: { id: string };
  enrollment: { id: string; institution: { name: string } };
}

interface TellerFailure {
  type: string;
  code: string;
  message: string;
}

declare global {
  interface Window {
    TellerConnect?: {
      setup(config: {
        applicationId: string;
        environment?: string;
        products?: string[];
        enrollmentId?: string;
        onSuccess(enrollment: TellerEnrollment): void;
        onExit?(): void;
        onFailure?(failure: TellerFailure): void;
      }): { open(): void; destroy?(): void };
    };
  }
}

/** Opens Teller Connect; resolves the enrollment, or null when the person left. */
async function runConnect(): Promise<TellerEnrollment | null> {
  const config = consoleConfig();
  await loadScript(config.teller_connect_script_url);
  if (!window.TellerConnect) throw new Error("Teller Connect did not load (no window.TellerConnect).");
  if (!config.teller_application_id) throw new Error("The server gave no Teller application id.");
  const teller = window.TellerConnect;
  return new Promise((resolve, reject) => {
    teller
      .setup({
        applicationId: config.teller_application_id,
        environment: config.teller_environment || "sandbox",
        products: ["transactions", "balance"],
        onSuccess: resolve,
        onExit: () => resolve(null),
        onFailure: (f) => reject(new Error(`Teller Connect: ${f.message} (${f.type} ${f.code})`)),
      })
      .open();
  });
}

/**
 * /connect/teller: Teller Connect → enrollment → POST /connections.
 * /connect/teller?reauth=<connection>: Teller Connect again, and the new access token replaces the stored
 * one through POST /connections/{id}/reauth {credentials}.
 */
export default function TellerPage() {
  const [search] = useSearchParams();
  const reauthId = search.get("reauth");
  const [member, setMember] = useState(useDefaultMember());
  const [busy, setBusy] = useState(false);
  const [error, setError] = useState<unknown>(null);
  const [left, setLeft] = useState(false);
  const [done, setDone] = useState<ConnectionDetail | null>(null);

  const start = async () => {
    setBusy(true);
    setError(null);
    setLeft(false);
    try {
      const enrollment = await runConnect();
      if (!enrollment) return setLeft(true);
      const credentials = {
        access_token: enrollment.accessToken,
        enrollment_id: enrollment.enrollment.id,
        institution_name: enrollment.enrollment.institution.name,
      };
      if (reauthId) {
        const r = await call(
          api.POST("/api/v1/connections/{id}/reauth", { params: { path: { id: reauthId } }, body: { credentials } }),
        );
        setDone(r.connection);
      } else {
        setDone(await createConnection({ provider: "teller", user_id: member, credentials }));
      }
    } catch (e) {
      setError(e);
    } finally {
      setBusy(false);
    }
  };

  return (
    <section>
      <h1>{reauthId ? "Reconnect with Teller" : "Connect a bank with Teller"}</h1>
      <p>
        <Link to={reauthId ? "/connections" : "/connect"}>← {reauthId ? "Connections" : "All providers"}</Link>
      </p>
      {done ? (
        <Connected connection={done} reauth={reauthId !== null} />
      ) : (
        <div className="card stack">
          <p>Teller Connect opens in this page. Log in to your bank there; Coffer never sees your bank password.</p>
          {reauthId ? null : <MemberSelect value={member} onChange={setMember} />}
          {left ? <p role="status">You closed Teller Connect before finishing. Nothing was connected.</p> : null}
          <ErrorMessage error={error} />
          <button type="button" className="primary" disabled={busy} onClick={() => void start()}>
            {busy ? "Teller Connect is open…" : "Open Teller Connect"}
          </button>
        </div>
      )}
    </section>
  );
}
