import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildState } from "../../bin/build.js";
import { cofferEnv, freePort, killAll, spawnCoffer, waitForOk, type CofferProcess } from "../helpers/processes.js";

// The REST gateway as a process, configured through its environment: the console's settings reach the
// page (meta tag and CSP) and the OpenAPI document is served. Whether web/dist is built depends on the
// tree: the test setup builds it whenever web/ has sources (bin/build.js).
let rest: string;
const procs: CofferProcess[] = [];
const FAKE_PLAID = "http://127.0.0.1:4999/fake/link-initialize.js";
const html = { accept: "text/html" };

beforeAll(async () => {
  const [restPort, corePort] = await Promise.all([freePort(), freePort()]);
  rest = `http://127.0.0.1:${restPort}`;
  const env = cofferEnv({
    COFFER_REST_PORT: String(restPort),
    // No core: nothing here calls it.
    COFFER_CORE_URL: `http://127.0.0.1:${corePort}`,
    COFFER_LOG_LEVEL: "warn",
    PLAID_LINK_SCRIPT_URL: FAKE_PLAID,
    TELLER_APPLICATION_ID: "app_e2e",
  });
  procs.push(spawnCoffer("rest", ["rest"], env));
  await waitForOk(`${rest}/health`, 30_000, procs);
});

afterAll(() => killAll(procs));

describe("the REST process", () => {
  it("serves the OpenAPI document without credentials", async () => {
    const res = await fetch(`${rest}/api/v1/openapi.json`);
    expect(res.status).toBe(200);
    expect(((await res.json()) as { openapi: string }).openapi).toBe("3.1.0");
  });

  it("serves the console configured from its environment, or says how to build it", async () => {
    const page = await fetch(`${rest}/connect/plaid`, { headers: html });
    const body = await page.text();
    if (buildState() === "fresh") {
      expect(page.status).toBe(200);
      const meta = /<meta name="coffer-config" content="([^"]*)">/.exec(body)![1].replace(/&quot;/g, '"');
      expect(JSON.parse(meta)).toMatchObject({
        plaid_link_script_url: FAKE_PLAID,
        teller_connect_script_url: "https://cdn.teller.io/connect/connect.js",
        teller_application_id: "app_e2e",
        teller_environment: "sandbox",
        public_url: rest.replace("127.0.0.1", "localhost"),
      });
      expect(page.headers.get("content-security-policy")).toContain("script-src 'self' http://127.0.0.1:4999;");
    } else {
      expect(page.status).toBe(503);
      expect(body).toContain("npm run build:web");
    }
    const home = await fetch(`${rest}/`, { headers: html });
    expect(home.headers.get("content-security-policy")).toContain("script-src 'self';");
  });
});
