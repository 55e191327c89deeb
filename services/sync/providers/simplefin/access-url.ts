import { createHash } from "node:crypto";
import { ProviderError } from "../provider.js";

/**
 * SimpleFIN's two URLs: the claim URL a setup token encodes (base64), and
 * the access URL the claim returns, `https://user:pass@host/root`, which is
 * the connection's whole credential. Both must be https; plain http is
 * allowed only for a loopback host (a local fake in tests).
 */

const invalid = (message: string) => new ProviderError("invalid_input", "INVALID_CREDENTIALS", message);

function isLoopback(hostname: string): boolean {
  return hostname === "localhost" || hostname === "[::1]" || /^127\.\d{1,3}\.\d{1,3}\.\d{1,3}$/.test(hostname);
}

function checkScheme(url: URL, what: string): void {
  if (url.protocol === "https:") return;
  if (url.protocol === "http:" && isLoopback(url.hostname)) return;
  throw invalid(`the SimpleFIN ${what} must be an https URL`);
}

/** The claim URL inside a setup token (base64 text, surrounding whitespace ignored). */
export function claimUrl(setupToken: string): URL {
  const token = setupToken.trim();
  if (!token || !/^[A-Za-z0-9+/_-]+={0,2}$/.test(token)) throw invalid("setup_token is not a SimpleFIN setup token");
  let url: URL;
  try {
    url = new URL(Buffer.from(token, "base64").toString("utf8").trim());
  } catch {
    throw invalid("setup_token is not a SimpleFIN setup token");
  }
  checkScheme(url, "claim URL");
  return url;
}

export interface AccessUrl {
  /** The URL without its user info: `fetch` refuses URLs that carry credentials. */
  root: string;
  authorization: string;
}

/** Splits an access URL into its root and the Basic authorization its user info makes. */
export function parseAccessUrl(raw: string): AccessUrl {
  let url: URL;
  try {
    url = new URL(raw.trim());
  } catch {
    throw invalid("the SimpleFIN access URL is not a URL");
  }
  checkScheme(url, "access URL");
  if (!url.username) throw invalid("the SimpleFIN access URL has no credentials");
  const user = decodeURIComponent(url.username);
  const password = decodeURIComponent(url.password);
  url.username = "";
  url.password = "";
  url.search = "";
  url.hash = "";
  return {
    root: url.toString().replace(/\/+$/, ""),
    authorization: `Basic ${Buffer.from(`${user}:${password}`).toString("base64")}`,
  };
}

/** A stable, secret-free id for the login an access URL stands for (its host, root and user, hashed). */
export function accessUrlId(raw: string): string {
  const url = new URL(raw.trim());
  return createHash("sha256")
    .update(`${url.host}${url.pathname}\n${decodeURIComponent(url.username)}`)
    .digest("hex")
    .slice(0, 32);
}
