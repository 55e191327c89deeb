/**
 * The console's configuration, delivered by the REST gateway in
 * `<meta name="coffer-config" content="{json}">` (no inline script: the CSP forbids them).
 */
export interface ConsoleConfig {
  plaid_link_script_url: string;
  teller_connect_script_url: string;
  teller_application_id: string;
  teller_environment: string;
  public_url: string;
  version: string;
}

const EMPTY: ConsoleConfig = {
  plaid_link_script_url: "",
  teller_connect_script_url: "",
  teller_application_id: "",
  teller_environment: "",
  public_url: "",
  version: "",
};

let cached: ConsoleConfig | null = null;

/** Reads the meta tag once; a missing or malformed tag (the Vite dev server) gives empty values. */
export function consoleConfig(): ConsoleConfig {
  if (cached) return cached;
  const raw = document.querySelector<HTMLMetaElement>('meta[name="coffer-config"]')?.content;
  let parsed: Partial<ConsoleConfig> = {};
  if (raw) {
    try {
      const value: unknown = JSON.parse(raw);
      if (value && typeof value === "object") parsed = value;
    } catch {
      // A broken tag is the server's bug; the console still runs, without the widgets' settings.
      console.error("coffer-config meta tag is not JSON");
    }
  }
  cached = { ...EMPTY, ...parsed };
  return cached;
}
