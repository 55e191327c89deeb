/**
 * The Content-Security-Policy of the REST gateway. Every answer gets the
 * strict policy (helmet); the console's link pages (/connect/plaid,
 * /connect/teller and below) also allow their widget's origins, and only
 * they: a page elsewhere in the console cannot load a third-party script.
 * The console has no inline script or style (its configuration is a meta
 * tag), so neither 'unsafe-inline' nor nonces are needed.
 */

export type Directives = Record<string, string[]>;

export const STRICT_DIRECTIVES: Directives = {
  "default-src": ["'self'"],
  "script-src": ["'self'"],
  "style-src": ["'self'"],
  "img-src": ["'self'", "data:"],
  "font-src": ["'self'", "data:"],
  "connect-src": ["'self'"],
  "frame-src": ["'none'"],
  "object-src": ["'none'"],
  "base-uri": ["'none'"],
  "form-action": ["'self'"],
  "frame-ancestors": ["'none'"],
};

/** Which script setting each link page loads. */
const LINK_PAGES = [
  { prefix: "/connect/plaid", script: "plaid_link_script_url" },
  { prefix: "/connect/teller", script: "teller_connect_script_url" },
] as const;

type ScriptUrls = Record<(typeof LINK_PAGES)[number]["script"], string>;

/**
 * The origins a widget needs: its script's origin, and for a vendor's host
 * (cdn.plaid.com) the vendor's other hosts as well (its frames are served
 * from them); a test's fake on 127.0.0.1:port is only its own origin.
 */
export function widgetOrigins(scriptUrl: string): string[] {
  const url = new URL(scriptUrl);
  const labels = url.hostname.split(".");
  const isName = labels.length >= 2 && !/^\d+$/.test(labels[labels.length - 1]) && !url.hostname.includes(":");
  if (!isName) return [url.origin];
  const site = labels.slice(-2).join(".");
  return [...new Set([url.origin, `${url.protocol}//${site}`, `${url.protocol}//*.${site}`])];
}

/** The link page a path belongs to, if any ("/connect/plaid", "/connect/plaid/update/x"; not "/connect/plaidx"). */
function linkPageOf(path: string) {
  return LINK_PAGES.find((p) => path === p.prefix || path.startsWith(`${p.prefix}/`));
}

export const cspText = (d: Directives) =>
  Object.entries(d)
    .map(([k, v]) => `${k} ${v.join(" ")}`)
    .join("; ");

/** The policy for a console page at `path`. */
export function consoleCsp(path: string, scripts: ScriptUrls): string {
  const page = linkPageOf(path);
  if (!page) return cspText(STRICT_DIRECTIVES);
  const origins = widgetOrigins(scripts[page.script]);
  return cspText({
    ...STRICT_DIRECTIVES,
    "script-src": ["'self'", ...origins],
    "frame-src": origins,
    "connect-src": ["'self'", ...origins],
  });
}
