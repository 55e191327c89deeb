import { request } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createTestDatabase } from "../helpers/db.js";
import {
  cofferEnv,
  freePort,
  killAll,
  runCoffer,
  spawnCoffer,
  waitForOk,
  type CofferProcess,
} from "../helpers/processes.js";

const procs: CofferProcess[] = [];
let restPort: number;
let mcpPort: number;
let key: string;

beforeAll(async () => {
  let corePort: number, databaseUrl: string;
  [databaseUrl, corePort, restPort, mcpPort] = await Promise.all([
    createTestDatabase(),
    freePort(),
    freePort(),
    freePort(),
  ]);
  const env = cofferEnv({
    DATABASE_URL: databaseUrl,
    COFFER_CORE_PORT: String(corePort),
    COFFER_REST_PORT: String(restPort),
    COFFER_MCP_PORT: String(mcpPort),
    COFFER_LOG_LEVEL: "warn",
    COFFER_PUBLIC_URL: "https://coffer.home.example",
    COFFER_MCP_ALLOWED_ORIGINS: "https://agent.example",
  });
  for (const name of ["core", "rest", "mcp"]) procs.push(spawnCoffer(name, [name], env));
  const [created] = await Promise.all([
    runCoffer(["keys", "create", "--name", "guard", "--scope", "read_only"], env),
    waitForOk(`http://127.0.0.1:${restPort}/health/ready`, 45_000, procs),
    waitForOk(`http://127.0.0.1:${mcpPort}/health`, 45_000, procs),
  ]);
  key = created.stdout.trim();
});
afterAll(async () => {
  await killAll(procs);
});

/** A raw request, so that Host can be anything (fetch sets it from the URL). */
function send(
  port: number,
  opts: { method: string; path: string; headers: Record<string, string>; body?: string },
): Promise<{ status: number; body: string }> {
  return new Promise((resolve, reject) => {
    const req = request(
      { host: "127.0.0.1", port, method: opts.method, path: opts.path, headers: opts.headers },
      (res) => {
        let body = "";
        res.on("data", (c: Buffer) => (body += c.toString("utf8")));
        res.on("end", () => resolve({ status: res.statusCode ?? 0, body }));
      },
    );
    req.on("error", reject);
    req.end(opts.body);
  });
}

const initialize = JSON.stringify({
  jsonrpc: "2.0",
  id: 1,
  method: "initialize",
  params: { protocolVersion: "2025-06-18", capabilities: {}, clientInfo: { name: "guard-test", version: "1" } },
});

function mcpInitialize(headers: Record<string, string>) {
  return send(mcpPort, {
    method: "POST",
    path: "/mcp",
    headers: {
      host: `127.0.0.1:${mcpPort}`,
      "content-type": "application/json",
      accept: "application/json, text/event-stream",
      "x-api-key": key,
      ...headers,
    },
    body: initialize,
  });
}

const codeOf = (body: string) => (JSON.parse(body) as { error: { code: string } }).error.code;

describe("the MCP gateway against DNS rebinding (a real gateway process on 127.0.0.1)", () => {
  it("refuses a foreign Origin with 403 ORIGIN_MISMATCH, before any MCP handling", async () => {
    const r = await mcpInitialize({ origin: "http://evil.example.com" });
    expect(r.status).toBe(403);
    expect(codeOf(r.body)).toBe("ORIGIN_MISMATCH");
  });

  it("accepts a loopback Origin, the public URL's origin and a listed one", async () => {
    for (const origin of [`http://localhost:3000`, "https://coffer.home.example", "https://agent.example"]) {
      const r = await mcpInitialize({ origin });
      expect(r.status, origin).toBe(200);
      expect(r.body).toContain('"serverInfo"');
    }
  });

  it("accepts a request without Origin (a non-browser client)", async () => {
    const r = await mcpInitialize({});
    expect(r.status).toBe(200);
  });

  it("refuses a foreign Host with 403 INVALID_HOST and accepts loopback and the public host", async () => {
    const foreign = await mcpInitialize({ host: "evil.example.com" });
    expect(foreign.status).toBe(403);
    expect(codeOf(foreign.body)).toBe("INVALID_HOST");
    for (const host of [`localhost:${mcpPort}`, `[::1]:${mcpPort}`, "coffer.home.example"]) {
      expect((await mcpInitialize({ host })).status, host).toBe(200);
    }
  });
});

describe("the REST gateway's Host check (a real gateway process on 127.0.0.1)", () => {
  const get = (host: string) =>
    send(restPort, { method: "GET", path: "/api/v1/keys/me", headers: { host, "x-api-key": key } });

  it("refuses a foreign Host with 403 INVALID_HOST", async () => {
    const r = await get("evil.example.com");
    expect(r.status).toBe(403);
    expect(codeOf(r.body)).toBe("INVALID_HOST");
  });

  it("answers loopback names and the public URL's host", async () => {
    for (const host of [`localhost:${restPort}`, `127.0.0.1:${restPort}`, "coffer.home.example"]) {
      expect((await get(host)).status, host).toBe(200);
    }
  });

  it("does not judge Origin (that is MCP's rule)", async () => {
    const r = await send(restPort, {
      method: "GET",
      path: "/api/v1/keys/me",
      headers: { host: `localhost:${restPort}`, origin: "http://evil.example.com", "x-api-key": key },
    });
    expect(r.status).toBe(200);
  });
});
