import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VERSION } from "../../common/version.js";
import { buildRestApp } from "../../gateways/rest/app.js";
import { defineRoute, type RestRoute } from "../../gateways/rest/route.js";
import { allRoutes } from "../../gateways/rest/routes/index.js";
import { coreClients, coreTransport } from "../../gateways/shared/core-client.js";
import { logLines } from "../helpers/log.js";
import { expectEnvelope, key } from "../helpers/rest.js";
import { startStack, type Stack } from "../helpers/stack.js";

/** Every 500 is logged, with its cause and the request id, by the process that produced it. */
let s: Stack;
let app: Awaited<ReturnType<typeof buildRestApp>>;
let noCore: Awaited<ReturnType<typeof buildRestApp>>;
const log = logLines();
const noCoreLog = logLines();

const testRoutes: RestRoute[] = [
  defineRoute({
    method: "GET",
    url: "/api/v1/test/throws",
    async handler() {
      throw new TypeError("cannot read properties of undefined (reading 'shortId')");
    },
  }),
  // What reproducer B did: a value the core's message cannot carry fails inside the gateway's client.
  defineRoute({
    method: "GET",
    url: "/api/v1/test/unencodable",
    async handler({ core, opts }) {
      return core.transactions.listTransactions({ limit: Infinity }, opts);
    },
  }),
];

beforeAll(async () => {
  s = await startStack();
  const opts = { version: VERSION, logLevel: "info" };
  app = await buildRestApp({ ...opts, core: s.core, logStream: log, routes: [...allRoutes, ...testRoutes] });
  noCore = await buildRestApp({
    ...opts,
    core: coreClients(coreTransport("http://127.0.0.1:1")),
    logStream: noCoreLog,
  });
});
afterAll(async () => {
  await Promise.all([app?.close(), noCore?.close()]);
  await s?.close();
});

const linesOf = (lines: Record<string, unknown>[], reqId: string) => lines.filter((l) => l.reqId === reqId);

describe("REST gateway: logging what went wrong", () => {
  it("a handler that throws → 500, and an error line with the request id and the cause", async () => {
    const res = await app.inject({ method: "GET", url: "/api/v1/test/throws", headers: { "x-request-id": "boom-1" } });
    expectEnvelope(res, "INTERNAL_ERROR", "Internal error");
    expect(linesOf(log.lines, "boom-1")).toContainEqual(
      expect.objectContaining({
        level: 50,
        msg: "unexpected error in REST gateway",
        err: expect.objectContaining({ type: "TypeError", message: expect.stringContaining("reading 'shortId'") }),
      }),
    );
  });

  it("a core call that fails inside the gateway (reproducer B's path) → 500, logged with its cause", async () => {
    const res = await app.inject({
      method: "GET",
      url: "/api/v1/test/unencodable",
      headers: { "x-request-id": "b-1" },
    });
    expectEnvelope(res, "INTERNAL_ERROR", "Internal error");
    const [line] = linesOf(log.lines, "b-1").filter((l) => l.level === 50);
    expect(line).toMatchObject({ msg: "unexpected failure calling the core", code: "INTERNAL_ERROR" });
    expect(JSON.stringify(line.err)).toMatch(/int32|Infinity/i);
  });

  it("the core's own verdict (404) is not logged as a failure here: the core logs its own", async () => {
    const res = await app.inject({
      method: "GET",
      url: "/api/v1/users/zzzzzzzz",
      headers: { ...key(s.adminKey), "x-request-id": "nf-1" },
    });
    expectEnvelope(res, "NOT_FOUND");
    expect(linesOf(log.lines, "nf-1").map((l) => l.level)).toEqual([30]);
  });

  it("a core that is down → 503, and a warning naming UNAVAILABLE and the cause", async () => {
    const res = await noCore.inject({ method: "GET", url: "/api/v1/version", headers: { "x-request-id": "down-1" } });
    expectEnvelope(res, "UNAVAILABLE");
    expect(linesOf(noCoreLog.lines, "down-1")).toContainEqual(
      expect.objectContaining({
        level: 40,
        code: "UNAVAILABLE",
        msg: "core unreachable",
        err: expect.objectContaining({ message: expect.stringContaining("ECONNREFUSED") }),
      }),
    );
  });

  it("a readiness probe that finds the core down → 503, no line at info (probes poll; the 503 says it)", async () => {
    const res = await noCore.inject({ method: "GET", url: "/health/ready", headers: { "x-request-id": "probe-1" } });
    expectEnvelope(res, "UNAVAILABLE");
    expect(linesOf(noCoreLog.lines, "probe-1")).toEqual([]);
  });

  it("every request but a health probe gets its one completion line with the status", async () => {
    await app.inject({ method: "GET", url: "/health", headers: { "x-request-id": "h-1" } });
    expect(linesOf(log.lines, "h-1")).toEqual([]);
    await app.inject({ method: "GET", url: "/api/v1/openapi.json", headers: { "x-request-id": "o-1" } });
    expect(linesOf(log.lines, "o-1")).toEqual([
      expect.objectContaining({ level: 30, msg: "request completed", res: { statusCode: 200 } }),
    ]);
  });
});
