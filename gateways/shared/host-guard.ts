import { isIP } from "node:net";
import { envelope, type MappedError } from "./error-map.js";

/**
 * The DNS-rebinding guard: a web page on another site can point its own name
 * at 127.0.0.1 and have the browser talk to a local gateway. Its requests then
 * carry that foreign name in Host (and the page's origin in Origin), which is
 * what this refuses.
 */
export interface HostGuardConfig {
  /** The address the gateway listens on (COFFER_HOST). */
  listenHost: string;
  /** COFFER_PUBLIC_URL: its host is always allowed, its origin too. */
  publicUrl: string;
  /** COFFER_ALLOWED_HOSTS: further host names (behind a proxy). */
  allowedHosts: readonly string[];
  /** MCP only: further browser origins (COFFER_MCP_ALLOWED_ORIGINS). Undefined: no Origin check. */
  allowedOrigins?: readonly string[];
}

const LOOPBACK_NAMES = new Set(["localhost", "127.0.0.1", "[::1]"]);

/** True for an address only this machine can reach: localhost, 127.0.0.0/8, ::1. */
export function isLoopback(address: string): boolean {
  const a = address.toLowerCase().replace(/^\[|\]$/g, "");
  if (a === "localhost" || a === "::1") return true;
  return isIP(a) === 4 && a.startsWith("127.");
}

/** The host name of a Host header value, lower-cased, without the port ("[::1]" keeps its brackets). */
export function hostNameOf(hostHeader: string): string {
  const h = hostHeader.trim().toLowerCase();
  if (h.startsWith("[")) return h.slice(0, h.indexOf("]") + 1);
  const colon = h.indexOf(":");
  return colon === -1 ? h : h.slice(0, colon);
}

/**
 * The check for one request's Host and Origin headers: null when it may
 * proceed, else the 403 to answer.
 *
 * - Host: while the gateway listens on a loopback address, only loopback names
 *   (any port), the public URL's host and COFFER_ALLOWED_HOSTS; on any other
 *   address the same list when COFFER_ALLOWED_HOSTS is set, else any host.
 * - Origin (MCP): absent (not a browser) passes; otherwise it must be the
 *   public URL's origin, one of COFFER_MCP_ALLOWED_ORIGINS, or, while listening
 *   on loopback, an http(s) origin on a loopback name.
 */
export function hostGuard(
  config: HostGuardConfig,
): (host: string | undefined, origin: string | undefined) => MappedError | null {
  const loopback = isLoopback(config.listenHost);
  const publicUrl = new URL(config.publicUrl);
  const hosts = new Set([...LOOPBACK_NAMES, publicUrl.hostname.toLowerCase(), ...config.allowedHosts]);
  const checkHost = loopback || config.allowedHosts.length > 0;
  const origins = config.allowedOrigins ? new Set([publicUrl.origin, ...config.allowedOrigins]) : null;

  const originAllowed = (origin: string): boolean => {
    if (origins!.has(origin)) return true;
    if (!loopback) return false;
    try {
      const url = new URL(origin);
      return (
        (url.protocol === "http:" || url.protocol === "https:") && LOOPBACK_NAMES.has(url.host.replace(/:\d+$/, ""))
      );
    } catch {
      return false; // "null" (an opaque origin) and anything unreadable
    }
  };

  return (host, origin) => {
    if (checkHost && host !== undefined && !hosts.has(hostNameOf(host))) {
      return envelope("INVALID_HOST", `This server does not answer to the host ${JSON.stringify(host.slice(0, 100))}`);
    }
    if (origins && origin !== undefined && !originAllowed(origin)) {
      return envelope(
        "ORIGIN_MISMATCH",
        `Requests from the origin ${JSON.stringify(origin.slice(0, 100))} are not allowed`,
      );
    }
    return null;
  };
}
