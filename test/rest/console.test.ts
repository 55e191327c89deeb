import { mkdirSync, mkdtempSync, rmSync, utimesSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VERSION } from "../../common/version.js";
import { buildRestApp } from "../../gateways/rest/app.js";
import type { ConsoleConfig } from "../../gateways/rest/console.js";
import { coreClients, coreTransport } from "../../gateways/shared/core-client.js";
import { expectEnvelope } from "../helpers/rest.js";

/** A console build as Vite lays it out: index.html, hashed assets, a file at the root. */
const INDEX = `<!doctype html>
<html lang="en">
  <head>
    <meta charset="utf-8" />
    <script type="module" crossorigin src="/assets/index-abc123.js"></script>
  </head>
  <body><div id="root"></div></body>
</html>
`;

const config: ConsoleConfig = {
  plaid_link_script_url: "https://cdn.plaid.com/link/v2/stable/link-initialize.js",
  teller_connect_script_url: "https://cdn.teller.io/connect/connect.js",
  // Not a real id: every character that could end the attribute or open a tag.
  teller_application_id: `app_"</script><img src=x onerror=alert(1)>'&amp;`,
  teller_environment: "sandbox",
  public_url: "http://localhost:8080",
  version: VERSION,
};

let dir: string;
let app: Awaited<ReturnType<typeof buildRestApp>>;
const core = coreClients(coreTransport("http://127.0.0.1:9", 1000));
const html = { accept: "text/html,application/xhtml+xml,*/*;q=0.8" };

/** The JSON in the page's <meta name="coffer-config">, decoded as a browser would. */
function metaConfig(page: string): unknown {
  const m = /<meta name="coffer-config" content="([^"]*)">/.exec(page);
  if (!m) throw new Error("no coffer-config meta tag");
  const text = m[1].replace(/&(quot|lt|gt|#39|amp);/g, (_, e: string) =>
    e === "quot" ? '"' : e === "lt" ? "<" : e === "gt" ? ">" : e === "#39" ? "'" : "&",
  );
  return JSON.parse(text);
}

beforeAll(async () => {
  dir = mkdtempSync(join(tmpdir(), "coffer-console-"));
  mkdirSync(join(dir, "assets"));
  writeFileSync(join(dir, "index.html"), INDEX);
  writeFileSync(join(dir, "assets/index-abc123.js"), "console.log('coffer');\n");
  writeFileSync(join(dir, "favicon.svg"), "<svg xmlns='http://www.w3.org/2000/svg'/>");
  app = await buildRestApp({ core, version: VERSION, logger: false, console: { distDir: dir, config } });
});

afterAll(async () => {
  await app?.close();
  rmSync(dir, { recursive: true, force: true });
});

describe("the console at /", () => {
  it("serves index.html with its configuration in a meta tag, escaped, and not cached", async () => {
    const res = await app.inject({ method: "GET", url: "/", headers: html });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toBe("text/html; charset=utf-8");
    expect(res.headers["cache-control"]).toBe("no-cache");
    expect(metaConfig(res.body)).toEqual(config);
    // The hostile value stays inside the attribute: no tag or quote of its own reaches the page.
    expect(res.body).not.toContain("<img");
    expect(res.body).not.toContain("</script><");
    expect(res.body.match(/<script/g)).toHaveLength(1);
    expect(res.body).toContain('<script type="module" crossorigin src="/assets/index-abc123.js"></script>');
  });

  it("serves hashed assets for a year and other files with revalidation", async () => {
    const js = await app.inject({ method: "GET", url: "/assets/index-abc123.js" });
    expect(js.statusCode).toBe(200);
    expect(js.headers["content-type"]).toMatch(/javascript/);
    expect(js.headers["cache-control"]).toBe("public, max-age=31536000, immutable");
    expect(js.body).toBe("console.log('coffer');\n");
    const svg = await app.inject({ method: "GET", url: "/favicon.svg" });
    expect(svg.statusCode).toBe(200);
    expect(svg.headers["cache-control"]).toBe("no-cache");
    for (const url of ["/assets/index-nope.js", "/assets/", "/assets", "/%2e%2e/package.json", "/.env", "/a%00b"])
      expectEnvelope(await app.inject({ method: "GET", url }), "NOT_FOUND");
  });

  it("answers a browser's deep links with the console", async () => {
    for (const url of ["/device?user_code=ABCD-EFGH", "/setup?token=t0k3n", "/transactions", "/rules/12/edit"]) {
      const res = await app.inject({ method: "GET", url, headers: html });
      expect(res.statusCode, url).toBe(200);
      expect(metaConfig(res.body), url).toEqual(config);
      expect(res.headers["cache-control"], url).toBe("no-cache");
    }
    // index.html by name goes through the same path (never the raw file without its configuration).
    const byName = await app.inject({ method: "GET", url: "/index.html", headers: html });
    expect(metaConfig(byName.body)).toEqual(config);
  });

  it("leaves the API, the probes, webhooks and non-page requests alone", async () => {
    for (const url of ["/api/v1/nope", "/api", "/health/nope", "/webhooks"]) {
      expectEnvelope(await app.inject({ method: "GET", url, headers: html }), "NOT_FOUND");
    }
    // Not a page request: JSON clients and other methods get the envelope.
    expectEnvelope(await app.inject({ method: "GET", url: "/transactions" }), "NOT_FOUND");
    expectEnvelope(await app.inject({ method: "POST", url: "/transactions", headers: html }), "NOT_FOUND");
    // The device page for a terminal stays text.
    const text = await app.inject({ method: "GET", url: "/device?user_code=ABCD-EFGH" });
    expect(text.headers["content-type"]).toMatch(/^text\/plain/);
    expect(text.body).toContain("coffer device approve ABCD-EFGH");
  });

  it("serves a rebuilt index.html without a restart", async () => {
    writeFileSync(join(dir, "index.html"), INDEX.replace("<body>", "<body><p>rebuilt</p>"));
    utimesSync(join(dir, "index.html"), new Date(), new Date(Date.now() + 5000));
    const res = await app.inject({ method: "GET", url: "/", headers: html });
    expect(res.body).toContain("<p>rebuilt</p>");
    expect(metaConfig(res.body)).toEqual(config);
  });
});

describe("Content-Security-Policy", () => {
  const policy = (header: unknown) =>
    Object.fromEntries(
      String(header)
        .split(";")
        .map((d) => d.trim().split(/\s+/))
        .map(([name, ...values]) => [name, values]),
    );

  it("is strict on the console's pages", async () => {
    const res = await app.inject({ method: "GET", url: "/", headers: html });
    const csp = policy(res.headers["content-security-policy"]);
    expect(csp).toEqual({
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
    });
    expect(String(res.headers["content-security-policy"])).not.toMatch(/unsafe|plaid|teller|\*/);
    expect(res.headers["x-frame-options"]).toBe("SAMEORIGIN");
    expect(res.headers["x-content-type-options"]).toBe("nosniff");
    expect(res.headers["referrer-policy"]).toBe("no-referrer");
  });

  it("allows Plaid's origins on /connect/plaid and below only, and Teller's on /connect/teller", async () => {
    const at = async (url: string) =>
      policy((await app.inject({ method: "GET", url, headers: html })).headers["content-security-policy"]);
    for (const url of ["/connect/plaid", "/connect/plaid/update/abc?x=1"]) {
      const csp = await at(url);
      expect(csp["script-src"], url).toEqual([
        "'self'",
        "https://cdn.plaid.com",
        "https://plaid.com",
        "https://*.plaid.com",
      ]);
      expect(csp["frame-src"], url).toEqual(["https://cdn.plaid.com", "https://plaid.com", "https://*.plaid.com"]);
      expect(JSON.stringify(csp), url).not.toContain("teller");
      expect(csp["object-src"]).toEqual(["'none'"]);
      expect(csp["frame-ancestors"]).toEqual(["'none'"]);
    }
    const teller = await at("/connect/teller");
    expect(teller["script-src"]).toEqual([
      "'self'",
      "https://cdn.teller.io",
      "https://teller.io",
      "https://*.teller.io",
    ]);
    expect(JSON.stringify(teller)).not.toContain("plaid");
    for (const url of ["/connect", "/connect/plaidx", "/connections", "/connect/simplefin"]) {
      expect((await at(url))["script-src"], url).toEqual(["'self'"]);
    }
  });

  it("allows exactly a local fake widget's origin when the settings point at one", async () => {
    const local = await buildRestApp({
      core,
      version: VERSION,
      logger: false,
      console: {
        distDir: dir,
        config: { ...config, plaid_link_script_url: "http://127.0.0.1:4567/fake/link-initialize.js" },
      },
    });
    const res = await local.inject({ method: "GET", url: "/connect/plaid", headers: html });
    await local.close();
    expect(policy(res.headers["content-security-policy"])["script-src"]).toEqual(["'self'", "http://127.0.0.1:4567"]);
  });

  it("keeps JSON answers working, with the strict policy", async () => {
    const res = await app.inject({ method: "GET", url: "/api/v1/openapi.json" });
    expect(res.statusCode).toBe(200);
    expect(res.headers["content-type"]).toMatch(/^application\/json/);
    expect(policy(res.headers["content-security-policy"])["script-src"]).toEqual(["'self'"]);
  });
});

describe("without a built console", () => {
  it("says how to build it, as a page or as JSON, never a 500", async () => {
    const bare = await buildRestApp({
      core,
      version: VERSION,
      logger: false,
      console: { distDir: join(dir, "nothing-here"), config },
    });
    try {
      for (const url of ["/", "/transactions", "/connect/plaid"]) {
        const page = await bare.inject({ method: "GET", url, headers: html });
        expect(page.statusCode, url).toBe(503);
        expect(page.headers["content-type"]).toBe("text/html; charset=utf-8");
        expect(page.body).toContain("npm run build:web");
      }
      const json = await bare.inject({ method: "GET", url: "/", headers: { accept: "application/json" } });
      expectEnvelope(json, "UNAVAILABLE", /npm run build:web/);
      const device = await bare.inject({ method: "GET", url: "/device?user_code=ABCD-EFGH", headers: html });
      expect(device.headers["content-type"]).toMatch(/^text\/plain/);
    } finally {
      await bare.close();
    }
  });
});
