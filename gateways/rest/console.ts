import { readFileSync, statSync } from "node:fs";
import { join } from "node:path";
import fastifyStatic from "@fastify/static";
import type { FastifyInstance, FastifyReply, FastifyRequest } from "fastify";
import type { CofferEnv } from "../../common/env.js";
import { projectRoot } from "../../common/project-root.js";
import { consoleCsp } from "./csp.js";

/** Where `npm run build:web` writes the console (web/vite.config.ts's outDir). */
export const DEFAULT_DIST_DIR = join(projectRoot(), "web", "dist");

/** What the console reads from <meta name="coffer-config"> (web/src/app/config.ts): no inline script needed. */
export interface ConsoleConfig {
  plaid_link_script_url: string;
  teller_connect_script_url: string;
  teller_application_id: string | null;
  teller_environment: string | null;
  public_url: string;
  version: string;
}

/** The console's configuration from the gateway's settings. */
export function consoleConfigOf(env: CofferEnv, version: string): ConsoleConfig {
  return {
    plaid_link_script_url: env.plaidLinkScriptUrl,
    teller_connect_script_url: env.tellerConnectScriptUrl,
    teller_application_id: env.teller?.applicationId ?? null,
    teller_environment: env.teller?.environment ?? null,
    public_url: env.publicUrl,
    version,
  };
}

export interface ConsoleOptions {
  /** The built console; DEFAULT_DIST_DIR unless a test serves a fixture. */
  distDir?: string;
  config: ConsoleConfig;
}

/** Paths that are never the console's, whatever the request accepts: the API, the probes, provider webhooks. */
const NOT_CONSOLE = /^\/(api|health|webhooks)(\/|$)/;

/** Vite's content-hashed output: a changed file gets a new name, so it may be cached for a year. */
const HASHED_ASSET = /[\\/]assets[\\/]/;

/** &, <, >, " and ' as entities: the JSON is placed inside a double-quoted attribute. */
const escapeAttribute = (text: string) =>
  text.replace(/[&<>"']/g, (c) => ({ "&": "&amp;", "<": "&lt;", ">": "&gt;", '"': "&quot;", "'": "&#39;" })[c]!);

/** index.html with the configuration meta tag placed first in <head>. */
export function injectConfig(html: string, config: ConsoleConfig): string {
  const meta = `<meta name="coffer-config" content="${escapeAttribute(JSON.stringify(config))}">`;
  const head = /<head(\s[^>]*)?>/i.exec(html);
  if (!head) return `${meta}\n${html}`;
  const at = head.index + head[0].length;
  return `${html.slice(0, at)}\n    ${meta}${html.slice(at)}`;
}

const NOT_BUILT_HTML = `<!doctype html>
<html lang="en"><head><meta charset="utf-8"><title>Coffer: console not built</title></head>
<body><h1>The Coffer console is not built</h1>
<p>The API at <code>/api/v1</code> works. To build the web console, run <code>npm run build:web</code>
in the Coffer folder (or restart <code>npm start</code>, which builds it when it is missing), then reload this page.</p>
</body></html>
`;

const NOT_BUILT_MESSAGE =
  "The web console is not built: run `npm run build:web` (or restart `npm start`, which builds it when missing)";

/** Does this request want a page (a browser navigating), rather than JSON? */
export const wantsHtml = (req: FastifyRequest) => (req.headers.accept ?? "").includes("text/html");

/**
 * The built console at `/`: hashed assets from web/dist with a year's cache,
 * and index.html (no-cache, the configuration injected, the page's CSP) for
 * `/` and every deep link a browser opens (/transactions, /device?user_code=…).
 * Without a build, those answer 503 with how to build it, never a 500.
 */
export async function registerConsole(app: FastifyInstance, opts: ConsoleOptions) {
  const dist = opts.distDir ?? DEFAULT_DIST_DIR;
  const indexPath = join(dist, "index.html");
  let cached: { mtimeMs: number; html: string } | undefined;

  /** index.html as served, read again only when the file changes (a rebuild while running). */
  const indexHtml = (): string | undefined => {
    let mtimeMs: number;
    try {
      mtimeMs = statSync(indexPath).mtimeMs;
    } catch {
      return undefined;
    }
    if (cached?.mtimeMs !== mtimeMs)
      cached = { mtimeMs, html: injectConfig(readFileSync(indexPath, "utf8"), opts.config) };
    return cached.html;
  };

  const serveIndex = (req: FastifyRequest, reply: FastifyReply) => {
    const html = indexHtml();
    const path = req.url.split("?")[0];
    if (html === undefined) {
      reply.status(503).header("cache-control", "no-store");
      if (wantsHtml(req)) return reply.type("text/html; charset=utf-8").send(NOT_BUILT_HTML);
      return reply.type("application/json").send({ error: { code: "UNAVAILABLE", message: NOT_BUILT_MESSAGE } });
    }
    return reply
      .header("cache-control", "no-cache")
      .header("content-security-policy", consoleCsp(path, opts.config))
      .type("text/html; charset=utf-8")
      .send(html);
  };

  await app.register(fastifyStatic, {
    root: dist,
    prefix: "/",
    index: false,
    // index.html always goes through serveIndex (injection, no-cache, CSP); a folder is not a file; a NUL
    // byte is no file name (send would throw on it).
    allowedPath: (pathname) =>
      !pathname.endsWith("/") && !pathname.includes("\0") && !/(^|\/)index\.html$/.test(pathname),
    dotfiles: "ignore",
    cacheControl: false,
    setHeaders: (res, path) => {
      res.setHeader("cache-control", HASHED_ASSET.test(path) ? "public, max-age=31536000, immutable" : "no-cache");
    },
  });

  // `/` is the console for any client (curl shows the page, or how to build it); not an API operation.
  app.get("/", { config: { notApi: true } }, serveIndex);

  return {
    /** For the not-found handler: true when it answered with the console (a page request outside the API). */
    fallback(req: FastifyRequest, reply: FastifyReply): boolean {
      const path = req.url.split("?")[0];
      if ((req.method !== "GET" && req.method !== "HEAD") || NOT_CONSOLE.test(path) || !wantsHtml(req)) return false;
      void serveIndex(req, reply);
      return true;
    },
    /** True when index.html exists (the /device route serves the console's page then). */
    built: () => indexHtml() !== undefined,
    serveIndex,
  };
}
