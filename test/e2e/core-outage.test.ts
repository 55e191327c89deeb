import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VERSION } from "../../common/version.js";
import { buildMcpApp } from "../../gateways/mcp/http.js";
import { buildRestApp } from "../../gateways/rest/app.js";
import { defineRoute } from "../../gateways/rest/route.js";
import { allRoutes } from "../../gateways/rest/routes/index.js";
import { coreClients, coreTransport } from "../../gateways/shared/core-client.js";
import { createTestDatabase } from "../helpers/db.js";
import { logLines } from "../helpers/log.js";
import {
  cofferEnv,
  freePort,
  killAll,
  runCoffer,
  spawnCoffer,
  waitForOk,
  type CofferProcess,
} from "../helpers/processes.js";

/**
 * A real core process (so it can be frozen with SIGSTOP and killed with
 * SIGKILL) behind REST and MCP gateways built here, whose logs the tests read.
 */
let core: CofferProcess;
let key: string;
let rest: Awaited<ReturnType<typeof buildRestApp>>;
let mcp: Awaited<ReturnType<typeof buildMcpApp>>;
/** A gateway whose default deadline is far away: only a route's own timeoutMs can end its calls. */
let patient: Awaited<ReturnType<typeof buildRestApp>>;
let restUrl: string;
let mcpUrl: string;
const restLog = logLines();
const mcpLog = logLines();
const DEADLINE_MS = 1500;

const quickRoute = defineRoute({
  method: "GET",
  url: "/api/v1/test/quick",
  timeoutMs: 300,
  async handler({ core, opts }) {
    await core.system.checkReady({}, opts);
    return { ok: true };
  },
});

const listen = async (app: { listen: (o: object) => Promise<string>; server: { address(): unknown } }) => {
  await app.listen({ port: 0, host: "127.0.0.1" });
  return `http://127.0.0.1:${(app.server.address() as AddressInfo).port}`;
};

beforeAll(async () => {
  const [databaseUrl, corePort] = await Promise.all([createTestDatabase(), freePort()]);
  const env = cofferEnv({ DATABASE_URL: databaseUrl, COFFER_CORE_PORT: String(corePort), COFFER_LOG_LEVEL: "warn" });
  core = spawnCoffer("core", ["core"], env);
  const coreUrl = `http://127.0.0.1:${corePort}`;
  const clients = coreClients(coreTransport(coreUrl, DEADLINE_MS));
  rest = await buildRestApp({ core: clients, version: VERSION, logLevel: "info", logStream: restLog });
  mcp = await buildMcpApp({ core: clients, version: VERSION, logLevel: "info", logStream: mcpLog });
  patient = await buildRestApp({
    core: coreClients(coreTransport(coreUrl, 600_000)),
    version: VERSION,
    logger: false,
    routes: [...allRoutes, quickRoute],
  });
  [restUrl, mcpUrl] = await Promise.all([listen(rest), listen(mcp)]);
  const created = await runCoffer(["keys", "create", "--name", "outage", "--scope", "read_only"], env);
  expect(created.code, created.stderr).toBe(0);
  key = created.stdout.trim();
  await waitForOk(`${restUrl}/health/ready`, 45_000, [core]);
}, 60_000);

afterAll(async () => {
  if (core?.child.exitCode === null) core.child.kill("SIGCONT");
  await Promise.all([rest?.close(), mcp?.close(), patient?.close()]);
  await killAll([core]);
});

const initialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "t", version: "0" } },
});
const postMcp = (requestId: string) =>
  fetch(`${mcpUrl}/mcp`, {
    method: "POST",
    headers: {
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "x-api-key": key,
      "x-request-id": requestId,
    },
    body: initialize,
  });

describe("a core that stops answering (SIGSTOP)", () => {
  it("REST and MCP answer 504 UPSTREAM_TIMEOUT at the deadline, readiness 503, and log it", async () => {
    core.child.kill("SIGSTOP");
    try {
      const [version, ready, mcpCall, mcpReady] = await Promise.all([
        fetch(`${restUrl}/api/v1/version`, { headers: { "x-request-id": "frozen-rest" } }),
        fetch(`${restUrl}/health/ready`),
        postMcp("frozen-mcp"),
        fetch(`${mcpUrl}/health/ready`),
      ]);
      expect({ status: version.status, body: await version.json() }).toEqual({
        status: 504,
        body: { error: { code: "UPSTREAM_TIMEOUT", message: "The Coffer core did not answer in time" } },
      });
      expect({ status: mcpCall.status, body: await mcpCall.json() }).toEqual({
        status: 504,
        body: { error: { code: "UPSTREAM_TIMEOUT", message: "The Coffer core did not answer in time" } },
      });
      for (const r of [ready, mcpReady])
        expect({ status: r.status, body: await r.json() }).toEqual({
          status: 503,
          body: { error: { code: "UNAVAILABLE", message: "The Coffer core did not answer within 1000 ms" } },
        });
      expect(restLog.lines).toContainEqual(
        expect.objectContaining({ level: 40, reqId: "frozen-rest", code: "UPSTREAM_TIMEOUT" }),
      );
      expect(mcpLog.lines).toContainEqual(
        expect.objectContaining({ level: 40, reqId: "frozen-mcp", code: "UPSTREAM_TIMEOUT" }),
      );
    } finally {
      core.child.kill("SIGCONT");
    }
    // Thawed, the same gateways answer again without any restart.
    await waitForOk(`${restUrl}/health/ready`, 10_000, [core]);
    expect((await fetch(`${restUrl}/api/v1/version`)).status).toBe(200);
    expect((await postMcp("thawed")).status).toBe(200);
  });

  it("a route's own timeoutMs ends its call even when the default deadline is far away", async () => {
    core.child.kill("SIGSTOP");
    try {
      const res = await patient.inject({ method: "GET", url: "/api/v1/test/quick" });
      expect(res.statusCode).toBe(504);
      expect(res.json().error.code).toBe("UPSTREAM_TIMEOUT");
    } finally {
      core.child.kill("SIGCONT");
    }
    expect((await patient.inject({ method: "GET", url: "/api/v1/test/quick" })).json()).toEqual({ ok: true });
  });
});

describe("a core killed under a call (SIGKILL)", () => {
  it("the call gets 503 UNAVAILABLE, so do the next calls and readiness, and the gateway logs it", async () => {
    core.child.kill("SIGSTOP");
    const inFlight = postMcp("killed-mcp");
    await new Promise((r) => setTimeout(r, 300));
    core.child.kill("SIGKILL");
    await core.exited;
    const res = await inFlight;
    expect({ status: res.status, body: await res.json() }).toEqual({
      status: 503,
      body: { error: { code: "UNAVAILABLE", message: "The Coffer core is not reachable" } },
    });
    expect(mcpLog.lines).toContainEqual(
      expect.objectContaining({ level: 40, reqId: "killed-mcp", code: "UNAVAILABLE" }),
    );
    for (const url of [`${restUrl}/api/v1/version`, `${restUrl}/health/ready`, `${mcpUrl}/health/ready`]) {
      const r = await fetch(url);
      expect({ url, status: r.status, code: (await r.json()).error.code }).toEqual({
        url,
        status: 503,
        code: "UNAVAILABLE",
      });
    }
  });
});
