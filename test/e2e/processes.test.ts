import { create } from "@bufbuild/protobuf";
import { createClient } from "@connectrpc/connect";
import { createConnectTransport, createGrpcTransport, createGrpcWebTransport } from "@connectrpc/connect-node";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StdioClientTransport } from "@modelcontextprotocol/sdk/client/stdio.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ApiKeyService, type GetCurrentKeyResponse } from "../../gen/coffer/v1/auth_pb.js";
import {
  CreateUserRequestSchema,
  UserService,
  type CreateUserResponse,
  type ListUsersResponse,
} from "../../gen/coffer/v1/users_pb.js";
import {
  Health,
  HealthCheckResponse_ServingStatus,
  type HealthCheckResponse,
} from "../../gen/grpc/health/v1/health_pb.js";
import { expectCoreError } from "../helpers/core-error.js";
import { createTestDatabase } from "../helpers/db.js";
import { grpcFailure, grpcJsClient, metadata } from "../helpers/grpc-js.js";
import {
  cofferEnv,
  COFFER_BIN,
  freePort,
  killAll,
  runCoffer,
  spawnCoffer,
  waitForOk,
  type CofferProcess,
} from "../helpers/processes.js";

let env: NodeJS.ProcessEnv;
let databaseUrl: string;
let rest: string;
let mcpUrl: string;
let coreUrl: string;
let coreAddr: string;
let adminKey: string;
let readKey: string;
const procs: CofferProcess[] = [];
/** Every secret handed out during the run: none may appear in any log line. */
const secrets: string[] = [];
const closers: (() => Promise<unknown> | void)[] = [];

beforeAll(async () => {
  let corePort: number, restPort: number, mcpPort: number;
  [databaseUrl, corePort, restPort, mcpPort] = await Promise.all([
    createTestDatabase(),
    freePort(),
    freePort(),
    freePort(),
  ]);
  coreAddr = `127.0.0.1:${corePort}`;
  coreUrl = `http://${coreAddr}`;
  rest = `http://127.0.0.1:${restPort}`;
  mcpUrl = `http://127.0.0.1:${mcpPort}/mcp`;
  env = cofferEnv({
    DATABASE_URL: databaseUrl,
    COFFER_CORE_PORT: String(corePort),
    COFFER_REST_PORT: String(restPort),
    COFFER_MCP_PORT: String(mcpPort),
    COFFER_CORE_URL: coreUrl,
    COFFER_LOG_LEVEL: "info",
    COFFER_DEVICE_CODE_TTL_SECONDS: "120",
  });
  for (const name of ["core", "rest", "mcp"]) procs.push(spawnCoffer(name, [name], env));
  // The key is made straight on the database while the servers boot.
  const [created] = await Promise.all([
    runCoffer(["keys", "create", "--name", "e2e", "--scope", "full_access"], env),
    waitForOk(`${rest}/health/ready`, 45_000, procs),
    waitForOk(`http://127.0.0.1:${mcpPort}/health`, 45_000, procs),
  ]);
  expect(created.code, created.stderr).toBe(0);
  adminKey = created.stdout.trim();
  secrets.push(adminKey);
  // stdout is only the key, so `KEY=$(coffer keys create ...)` works.
  expect(created.stdout).toMatch(/^cf_[0-9A-Za-z]{43}\n$/);
  const res = await fetch(`${rest}/api/v1/api-keys`, {
    method: "POST",
    headers: { "x-api-key": adminKey, "content-type": "application/json" },
    body: JSON.stringify({ name: "e2e reader", scope: "read_only" }),
  });
  readKey = (await res.json()).key;
  secrets.push(readKey);
});

afterAll(async () => {
  for (const close of closers) await Promise.resolve(close()).catch(() => undefined);
  await killAll(procs);
});

const restGet = (path: string, key?: string, headers: Record<string, string> = {}) =>
  fetch(`${rest}${path}`, { headers: { ...(key ? { "x-api-key": key } : {}), ...headers } });
const restPost = (path: string, body: object, key?: string) =>
  fetch(`${rest}${path}`, {
    method: "POST",
    headers: { "content-type": "application/json", ...(key ? { "x-api-key": key } : {}) },
    body: JSON.stringify(body),
  });

describe("the three real processes", () => {
  it("REST: keys/me and users", async () => {
    const me = await restGet("/api/v1/keys/me", adminKey);
    expect(me.status).toBe(200);
    expect(await me.json()).toMatchObject({ name: "e2e", scope: "full_access" });
    const created = await restPost("/api/v1/users", { name: "Ada", email: "ada@example.com" }, adminKey);
    expect(created.status).toBe(201);
    const users = await (await restGet("/api/v1/users", readKey)).json();
    expect(users.users.map((u: { name: string }) => u.name)).toContain("Ada");
    const denied = await restPost("/api/v1/users", { name: "Nope" }, readKey);
    expect(denied.status).toBe(403);
    expect((await denied.json()).error.code).toBe("INSUFFICIENT_SCOPE");
  });

  it("a real @grpc/grpc-js client calls the core", async () => {
    const users = grpcJsClient(coreAddr, UserService);
    const keys = grpcJsClient(coreAddr, ApiKeyService);
    closers.push(users.close, keys.close);
    const list = (await users.call("ListUsers")({}, metadata({ "x-api-key": readKey }))) as ListUsersResponse;
    expect(list.users.map((u) => u.name)).toContain("Ada");
    const me = (await keys.call("GetCurrentKey")({}, metadata({ "x-api-key": readKey }))) as GetCurrentKeyResponse;
    expect(me.apiKey).toMatchObject({ name: "e2e reader", scope: "read_only" });
    const made = (await users.call("CreateUser")(
      create(CreateUserRequestSchema, { name: "Grace" }),
      metadata({ "x-api-key": adminKey }),
    )) as CreateUserResponse;
    expect(made.user!.shortId).toMatch(/^[0-9A-Za-z]{8}$/);
  });

  it.each([
    ["no key", 16, "MISSING_CREDENTIALS", {}, "ListUsers"],
    ["a malformed key", 16, "INVALID_API_KEY", { "x-api-key": "nope" }, "ListUsers"],
    ["an unknown key", 16, "INVALID_API_KEY", { "x-api-key": `cf_${"A".repeat(43)}` }, "ListUsers"],
    ["a read_only key on CreateUser", 7, "INSUFFICIENT_SCOPE", "read", "CreateUser"],
    ["an unknown id", 5, "NOT_FOUND", "read", "GetUser"],
  ] as const)("grpc-js with %s → status %i + trailer %s", async (_what, status, code, md, method) => {
    const users = grpcJsClient(coreAddr, UserService);
    closers.push(users.close);
    const headers = md === "read" ? { "x-api-key": readKey } : md;
    const req = method === "CreateUser" ? { name: "x" } : method === "GetUser" ? { id: "zzzzzzzz" } : {};
    const f = await grpcFailure(users.call(method)(req, metadata(headers)));
    expect(f).toMatchObject({ code: status, cofferCode: code });
  });

  it("grpc-js: a revoked key → 16 UNAUTHENTICATED + REVOKED_API_KEY", async () => {
    const made = await (await restPost("/api/v1/api-keys", { name: "revoke me", scope: "read_only" }, adminKey)).json();
    secrets.push(made.key);
    await fetch(`${rest}/api/v1/api-keys/${made.short_id}`, { method: "DELETE", headers: { "x-api-key": adminKey } });
    const keys = grpcJsClient(coreAddr, ApiKeyService);
    closers.push(keys.close);
    expect(await grpcFailure(keys.call("GetCurrentKey")({}, metadata({ "x-api-key": made.key })))).toMatchObject({
      code: 16,
      cofferCode: "REVOKED_API_KEY",
    });
  });

  it("grpc.health.v1.Health/Check over grpc-js → SERVING", async () => {
    const health = grpcJsClient(coreAddr, Health);
    closers.push(health.close);
    const r = (await health.call("Check")({ service: "" }, metadata({}))) as HealthCheckResponse;
    expect(r.status).toBe(HealthCheckResponse_ServingStatus.SERVING);
    const svc = (await health.call("Check")({ service: "coffer.v1.UserService" }, metadata({}))) as HealthCheckResponse;
    expect(svc.status).toBe(HealthCheckResponse_ServingStatus.SERVING);
  });

  it.each([
    ["Connect (HTTP/2, JSON)", () => createConnectTransport({ baseUrl: coreUrl, httpVersion: "2" })],
    [
      "Connect (HTTP/2, binary)",
      () => createConnectTransport({ baseUrl: coreUrl, httpVersion: "2", useBinaryFormat: true }),
    ],
    ["gRPC (connect-node)", () => createGrpcTransport({ baseUrl: coreUrl })],
    ["gRPC-Web (HTTP/2)", () => createGrpcWebTransport({ baseUrl: coreUrl, httpVersion: "2" })],
  ])("%s client: reads, and the same auth answers", async (_what, transport) => {
    const t = transport();
    const users = createClient(UserService, t);
    const keys = createClient(ApiKeyService, t);
    const list = await users.listUsers({}, { headers: { "x-api-key": readKey } });
    expect(list.users.map((u) => u.name)).toContain("Ada");
    expect((await keys.getCurrentKey({}, { headers: { "x-api-key": adminKey } })).apiKey!.name).toBe("e2e");
    await expectCoreError(users.listUsers({}), "MISSING_CREDENTIALS");
    await expectCoreError(users.listUsers({}, { headers: { "x-api-key": "bad" } }), "INVALID_API_KEY");
    await expectCoreError(users.createUser({ name: "x" }, { headers: { "x-api-key": readKey } }), "INSUFFICIENT_SCOPE");
  });

  it("MCP over HTTP with the SDK client", async () => {
    const client = new Client({ name: "e2e", version: "0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers: { "X-API-Key": readKey } } }),
    );
    closers.push(() => client.close());
    expect((await client.listTools()).tools.map((t) => t.name)).toEqual(
      expect.arrayContaining(["whoami", "list_users"]),
    );
    const who = await client.callTool({ name: "whoami", arguments: {} });
    expect(who.structuredContent).toMatchObject({ name: "e2e reader", scope: "read_only" });
    const users = await client.callTool({ name: "list_users", arguments: {} });
    expect((users.structuredContent as { users: { name: string }[] }).users.map((u) => u.name)).toContain("Ada");

    for (const [headers, code] of [
      [{}, "MISSING_CREDENTIALS"],
      [{ "x-api-key": "bad" }, "INVALID_API_KEY"],
    ] as const) {
      const res = await fetch(mcpUrl, {
        method: "POST",
        headers: { "content-type": "application/json", accept: "application/json, text/event-stream", ...headers },
        body: JSON.stringify({ jsonrpc: "2.0", id: 1, method: "tools/list" }),
      });
      expect(res.status).toBe(401);
      expect((await res.json()).error.code).toBe(code);
    }
  });

  it("MCP over stdio (coffer mcp --stdio) with the SDK client; a bad key exits 1", async () => {
    // Both start at once: each stdio process costs a node + tsx start-up.
    const badKey = runCoffer(["mcp", "--stdio"], cofferEnv({ COFFER_API_KEY: "cf_bad", COFFER_CORE_URL: coreUrl }));
    const transport = new StdioClientTransport({
      command: process.execPath,
      args: [COFFER_BIN, "mcp", "--stdio"],
      env: cofferEnv({ COFFER_API_KEY: adminKey, COFFER_CORE_URL: coreUrl }) as Record<string, string>,
      stderr: "pipe",
    });
    let stderr = "";
    transport.stderr?.on("data", (c) => (stderr += c));
    const client = new Client({ name: "e2e-stdio", version: "0" });
    await client.connect(transport);
    closers.push(() => client.close());
    const who = await client.callTool({ name: "whoami", arguments: {} });
    expect(who.structuredContent).toMatchObject({ name: "e2e", scope: "full_access" });
    const users = await client.callTool({ name: "list_users", arguments: {} });
    expect(JSON.parse((users.content as { text: string }[])[0].text)).toEqual(users.structuredContent);
    await client.close();
    expect(stderr).not.toContain(adminKey);

    const bad = await badKey;
    expect(bad.code).toBe(1);
    expect(bad.stderr).toContain("INVALID_API_KEY");
    expect(bad.stdout).toBe("");
  });

  it("device-code login end to end, decided with the CLI", async () => {
    const [a, b, c] = await Promise.all([
      restPost("/api/v1/auth/device-code", { name: "e2e device" }).then((r) => r.json()),
      restPost("/api/v1/auth/device-code", {}).then((r) => r.json()),
      restPost("/api/v1/auth/device-code", {}).then((r) => r.json()),
    ]);
    // COFFER_DEVICE_CODE_TTL_SECONDS reaches the core.
    expect(a.expires_in).toBe(120);
    const poll = (device_code: string) => restPost("/api/v1/auth/device-code/poll", { device_code });
    expect(await (await poll(a.device_code)).json()).toEqual({ status: "authorization_pending" });
    // Waiting out a real TTL here would cost the suite time (the short-TTL case runs in
    // test/rest/device-code.test.ts); moving the deadline in the database is the same state.
    const db = new pg.Client({ connectionString: databaseUrl });
    await db.connect();
    await db
      .query("update device_codes set expires_at = now() - interval '1 second' where user_code = $1", [c.user_code])
      .finally(() => db.end());
    const expired = await poll(c.device_code);
    expect(expired.status).toBe(400);
    expect((await expired.json()).error.code).toBe("EXPIRED");

    const [approved, denied, unknownCode] = await Promise.all([
      runCoffer(["device", "approve", a.user_code, "--scope", "read_only"], env),
      runCoffer(["device", "deny", b.user_code], env),
      runCoffer(["device", "approve", "BCDF-GHJK"], env),
    ]);
    expect(approved.code, approved.stderr).toBe(0);
    expect(approved.stdout).toContain(`approved ${a.user_code}`);
    expect(denied.code, denied.stderr).toBe(0);
    // A CLI refusal carries the stable code too.
    expect(unknownCode.code).not.toBe(0);
    expect(unknownCode.stderr).toContain("INVALID_DEVICE_CODE");

    const first = await (await poll(a.device_code)).json();
    expect(first.status).toBe("approved");
    expect(first.token).toMatch(/^cf_[0-9A-Za-z]{43}$/);
    secrets.push(first.token);
    expect(await (await poll(a.device_code)).json()).toEqual({ status: "approved" });
    const me = await (await restGet("/api/v1/keys/me", first.token)).json();
    expect(me).toMatchObject({ scope: "read_only", name: "e2e device", actor_type: "agent" });

    const deniedPoll = await poll(b.device_code);
    expect(deniedPoll.status).toBe(400);
    expect((await deniedPoll.json()).error.code).toBe("DENIED");
    const unknown = await poll("no-such-code");
    expect(unknown.status).toBe(404);
    expect((await unknown.json()).error.code).toBe("INVALID_DEVICE_CODE");
  });

  it("the request id travels from the REST gateway to the core's logs", async () => {
    const res = await restGet("/api/v1/keys/me", adminKey, { "x-request-id": "abc123" });
    expect(res.status).toBe(200);
    expect(res.headers.get("x-request-id")).toBe("abc123");
    const core = procs.find((p) => p.name === "core")!;
    const restProc = procs.find((p) => p.name === "rest")!;
    const tagged = (p: CofferProcess) =>
      p.stdoutLines.filter((l) => {
        try {
          return JSON.parse(l).reqId === "abc123";
        } catch {
          return false;
        }
      });
    const deadline = Date.now() + 3000;
    // Each process logs a request when it completes; the lines reach us through pipes, a little later.
    while ((tagged(core).length === 0 || tagged(restProc).length === 0) && Date.now() < deadline)
      await new Promise((r) => setTimeout(r, 50));
    expect(tagged(core).length).toBeGreaterThan(0);
    expect(tagged(restProc).length).toBeGreaterThan(0);
    for (const l of tagged(core)) expect(JSON.parse(l)).toMatchObject({ service: "core" });
    // One line per request, when it completes, with what happened.
    expect(tagged(restProc).map((l) => JSON.parse(l))).toEqual([
      expect.objectContaining({
        msg: "request completed",
        req: { method: "GET", url: "/api/v1/keys/me" },
        res: { statusCode: 200 },
        responseTime: expect.any(Number),
      }),
    ]);
    expect(tagged(core).map((l) => JSON.parse(l))).toEqual([
      expect.objectContaining({
        msg: "request completed",
        req: { method: "POST", url: "/coffer.v1.ApiKeyService/GetCurrentKey" },
        res: { statusCode: 200 },
      }),
    ]);
  });

  it("every process logs structured JSON and no log line contains a key or token", () => {
    expect(secrets.length).toBeGreaterThanOrEqual(4);
    for (const p of procs) {
      const json = p.stdoutLines.filter((l) => l.trim() !== "");
      expect(json.length, p.name).toBeGreaterThan(0);
      for (const l of json) expect(() => JSON.parse(l), `${p.name}: ${l}`).not.toThrow();
      for (const line of p.lines)
        for (const secret of secrets) expect(line.includes(secret), `${p.name} logged a secret`).toBe(false);
    }
  });

  it("SIGTERM stops the core cleanly (exit 0); the gateway then reports not ready", async () => {
    const core = procs.find((p) => p.name === "core")!;
    core.child.kill("SIGTERM");
    expect(await core.exited).toEqual({ code: 0, signal: null });
    const ready = await restGet("/health/ready");
    expect(ready.status).toBe(503);
    expect((await ready.json()).error.code).toBe("UNAVAILABLE");
    for (const name of ["rest", "mcp"]) {
      const p = procs.find((x) => x.name === name)!;
      p.child.kill("SIGTERM");
      expect(await p.exited, name).toEqual({ code: 0, signal: null });
    }
  });
});
