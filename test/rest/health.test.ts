import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { buildRestApp } from "../../gateways/rest/app.js";
import { coreClients, coreTransport } from "../../gateways/shared/core-client.js";
import { VERSION } from "../../common/version.js";
import { migrationsList } from "../../services/db/migrations/index.js";
import { expectEnvelope, key } from "../helpers/rest.js";
import { startStack, type Stack } from "../helpers/stack.js";

let s: Stack;
let noCore: Awaited<ReturnType<typeof buildRestApp>>;
beforeAll(async () => {
  s = await startStack();
  // Nothing listens on port 1: this gateway's core is down.
  noCore = await buildRestApp({
    core: coreClients(coreTransport("http://127.0.0.1:1")),
    version: VERSION,
    logger: false,
  });
});
afterAll(async () => {
  await noCore?.close();
  await s?.close();
});

describe("health and version over REST", () => {
  it.each(["/health", "/health/live", "/health/ready"])("GET %s → 200 ok without a key", async (url) => {
    const res = await s.rest.inject({ method: "GET", url });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ status: "ok", version: VERSION });
  });

  it("GET /api/v1/version → contract_version 1.1.0 without a key", async () => {
    const res = await s.rest.inject({ method: "GET", url: "/api/v1/version" });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ version: VERSION, contract_version: "1.1.0" });
  });

  it("GET /api/v1/system/database → PostgreSQL's version and every migration applied, none pending", async () => {
    expectEnvelope(await s.rest.inject({ method: "GET", url: "/api/v1/system/database" }), "MISSING_CREDENTIALS");
    const res = await s.rest.inject({ method: "GET", url: "/api/v1/system/database", headers: key(s.readKey) });
    expect(res.statusCode, res.body).toBe(200);
    const body = res.json<{ server_version: string; applied: { name: string; executed_at: string }[] }>();
    expect(body).toMatchObject({ pending: [], latest_known: migrationsList.at(-1)!.name });
    expect(body.server_version).toMatch(/^\d+/);
    expect(body.applied.map((m) => m.name)).toEqual(migrationsList.map((m) => m.name));
    expect(Date.parse(body.applied[0].executed_at)).not.toBeNaN();
  });

  it("with the core down: live stays 200, ready is 503 UNAVAILABLE", async () => {
    for (const url of ["/health", "/health/live"])
      expect((await noCore.inject({ method: "GET", url })).statusCode).toBe(200);
    expectEnvelope(
      await noCore.inject({ method: "GET", url: "/health/ready" }),
      "UNAVAILABLE",
      "The Coffer core is not reachable",
    );
  });

  it("with the core down, API calls are 503 UNAVAILABLE, not 500", async () => {
    expectEnvelope(
      await noCore.inject({ method: "GET", url: "/api/v1/users", headers: key(s.adminKey) }),
      "UNAVAILABLE",
    );
    expectEnvelope(await noCore.inject({ method: "GET", url: "/api/v1/version" }), "UNAVAILABLE");
  });

  it("with the database down: ready is 503 UNAVAILABLE", async () => {
    const t = await startStack();
    try {
      await t.orm.close(true);
      expectEnvelope(
        await t.rest.inject({ method: "GET", url: "/health/ready" }),
        "UNAVAILABLE",
        "The database is not reachable",
      );
      expect((await t.rest.inject({ method: "GET", url: "/health/live" })).statusCode).toBe(200);
    } finally {
      await t.close().catch(() => undefined);
    }
  });
});
