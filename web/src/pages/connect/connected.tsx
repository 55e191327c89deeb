import { Link } from "../../app/router";
import type { ConnectionDetail } from "./common";

/** What a finished connect (or reconnect) shows: the connection, and that its first sync is on its way. */
export function Connected({ connection, reauth }: { connection: ConnectionDetail; reauth?: boolean }) {
  const name = connection.institution_name || connection.provider;
  return (
    <div role="status" className="card">
      <h2>{reauth ? `Reconnected: ${name}` : `Connected: ${name}`}</h2>
      {reauth ? <p>The login works again.</p> : null}
      <p>Coffer is syncing its accounts and transactions now.</p>
      <p>
        Follow it on the <Link to="/connections">Connections</Link> page, or look at your{" "}
        <Link to="/transactions">transactions</Link>.
      </p>
    </div>
  );
}
