import { createClient } from "@connectrpc/connect";
import { createGrpcTransport } from "@connectrpc/connect-node";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { Health, HealthCheckResponse_ServingStatus } from "../../gen/grpc/health/v1/health_pb.js";
import pg from "pg";
import { expectCoreError } from "../helpers/core-error.js";
import { startStack, type Stack } from "../helpers/stack.js";

let s: Stack;
beforeAll(async () => {
  s = await startStack();
});
afterAll(async () => {
  await s?.close();
});

describe("SystemService and gRPC health (core)", () => {
  it("GetVersion returns contract 1.1.0 without a key", async () => {
    const v = await s.core.system.getVersion({});
    expect(v.contractVersion).toBe("1.1.0");
    expect(v.version).toMatch(/^\d+\.\d+\.\d+/);
  });

  it("CheckReady answers ok while the database answers", async () => {
    expect((await s.core.system.checkReady({})).status).toBe("ok");
  });

  it.each([
    ["", HealthCheckResponse_ServingStatus.SERVING],
    ["coffer.v1.UserService", HealthCheckResponse_ServingStatus.SERVING],
    ["coffer.v1.ApiKeyService", HealthCheckResponse_ServingStatus.SERVING],
    ["no.such.Service", HealthCheckResponse_ServingStatus.SERVICE_UNKNOWN],
  ])("grpc.health.v1.Health/Check(%j) over gRPC", async (service, status) => {
    const health = createClient(Health, createGrpcTransport({ baseUrl: s.coreUrl }));
    expect((await health.check({ service })).status).toBe(status);
  });

  it("grpc.health.v1.Health/Watch streams the current status first", async () => {
    const health = createClient(Health, createGrpcTransport({ baseUrl: s.coreUrl }));
    const abort = new AbortController();
    const first = await health.watch({ service: "" }, { signal: abort.signal })[Symbol.asyncIterator]().next();
    abort.abort();
    expect(first.value?.status).toBe(HealthCheckResponse_ServingStatus.SERVING);
  });

  it("an unexpected failure inside an RPC is INTERNAL_ERROR with a generic message", async () => {
    // Close this file's pool under the running core: the next query throws a driver error.
    const t = await startStack();
    await t.orm.close(true);
    const f = await expectCoreError(
      t.core.users.listUsers({}, { headers: { "x-api-key": t.adminKey } }),
      "INTERNAL_ERROR",
    );
    expect(f.message).toBe("Internal error");
    await expectCoreError(t.core.system.checkReady({}), "UNAVAILABLE");
    await t.close().catch(() => undefined);
  });

  it("a database that stops accepting connections is UNAVAILABLE, over RPCs and readiness", async () => {
    const t = await startStack();
    const name = new URL(t.databaseUrl).pathname.slice(1);
    const admin = new pg.Client({ connectionString: t.databaseUrl.replace(/\/[^/]+$/, "/postgres") });
    await admin.connect();
    try {
      await admin.query(`alter database ${name} allow_connections false`);
      await admin.query(
        `select pg_terminate_backend(pid) from pg_stat_activity where datname = $1 and pid <> pg_backend_pid()`,
        [name],
      );
      const f = await expectCoreError(
        t.core.users.listUsers({}, { headers: { "x-api-key": t.adminKey } }),
        "UNAVAILABLE",
      );
      expect(f.message).not.toMatch(/postgres|SQL|ECONN/i);
      await expectCoreError(t.core.system.checkReady({}), "UNAVAILABLE");
    } finally {
      await admin.query(`alter database ${name} allow_connections true`);
      await admin.end();
      await t.close().catch(() => undefined);
    }
  });
});
