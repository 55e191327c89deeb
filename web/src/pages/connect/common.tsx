import { useQuery } from "@tanstack/react-query";
import { api, call } from "../../app/api";
import { useSession } from "../../app/session";
import type { Provider } from "../../api/schemas";

/** GET /api/v1/providers: one entry per provider this server has. */
export type ProviderEntry = Provider;

export type { ConnectionDetail } from "../../api/schemas";

/** Where each provider's configuration is described, for unconfigured providers. */
export const HOW_TO_CONFIGURE: Record<string, string> = {
  plaid:
    "Set PLAID_CLIENT_ID and PLAID_SECRET (from the Plaid dashboard) and PLAID_ENV=sandbox or production in the " +
    "server's environment, then restart Coffer.",
  teller:
    "Set TELLER_APPLICATION_ID (from the Teller dashboard); outside the sandbox also TELLER_ENV and the " +
    "application's certificate as TELLER_CERT and TELLER_KEY. Then restart Coffer.",
};

export const PROVIDER_TITLES: Record<string, string> = {
  plaid: "Plaid",
  teller: "Teller",
  simplefin: "SimpleFIN Bridge",
  csv: "CSV file",
};

export function useProviders() {
  return useQuery({
    queryKey: ["providers"],
    queryFn: () => call(api.GET("/api/v1/providers", {})),
  });
}

export function useUsers() {
  return useQuery({
    queryKey: ["users"],
    queryFn: () => call(api.GET("/api/v1/users", {})),
  });
}

/** The household member a new connection belongs to: a select, the signed-in person first. */
export function MemberSelect({ value, onChange }: { value: string; onChange: (id: string) => void }) {
  const users = useUsers();
  const session = useSession();
  const list = users.data?.users ?? [];
  // The session names the member by id or short id; the options use short ids.
  const selected = list.find((u) => u.short_id === value || u.id === value)?.short_id ?? value;
  return (
    <label>
      For household member
      <select value={selected} onChange={(e) => onChange(e.target.value)} disabled={!users.data}>
        {list.length === 0 ? <option value={value}>{session.user_name}</option> : null}
        {list.map((u) => (
          <option key={u.id} value={u.short_id}>
            {u.name}
          </option>
        ))}
      </select>
    </label>
  );
}

/** The signed-in person's member id, as the default owner of a new connection. */
export function useDefaultMember(): string {
  return useSession().user_id;
}

/** POST /api/v1/connections. */
export function createConnection(body: { provider: string; user_id: string; credentials: Record<string, unknown> }) {
  return call(api.POST("/api/v1/connections", { body }));
}

export function getConnection(id: string) {
  return call(api.GET("/api/v1/connections/{id}", { params: { path: { id } } }));
}

const loaded = new Map<string, Promise<void>>();

/**
 * Loads a vendor's widget script once (Plaid Link, Teller Connect). The URL is the server's setting
 * (PLAID_LINK_SCRIPT_URL, TELLER_CONNECT_SCRIPT_URL); the CSP allows it on the link pages only, which the
 * console therefore opens with a full page load.
 */
export function loadScript(url: string): Promise<void> {
  if (!url) return Promise.reject(new Error("The server gave no script URL for this widget."));
  let p = loaded.get(url);
  if (!p) {
    p = new Promise<void>((resolve, reject) => {
      const s = document.createElement("script");
      s.src = url;
      s.async = true;
      s.onload = () => resolve();
      s.onerror = () => {
        loaded.delete(url);
        reject(new Error(`Could not load ${url}. Check the network, or the server's script URL setting.`));
      };
      document.head.appendChild(s);
    });
    loaded.set(url, p);
  }
  return p;
}
