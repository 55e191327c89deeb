import { readFileSync } from "node:fs";
import { fromJson } from "@bufbuild/protobuf";
import { createConnectRouter, type ConnectRouter } from "@connectrpc/connect";
import { fastifyConnectPlugin } from "@connectrpc/connect-fastify";
import type { UniversalHandler } from "@connectrpc/connect/protocol";
import { fastify } from "fastify";
import { describe, expect, it } from "vitest";
import { GetVersionRequestSchema, SystemService } from "../../gen/coffer/v1/system_pb.js";
import { ListTransactionsRequestSchema } from "../../gen/coffer/v1/transactions_pb.js";
import { REFUSED_OUTRIGHT, UNKNOWN_JSON_FIELD, guardEntries } from "../../services/entry.js";

// The core's entry guard (services/entry.ts) leans on how Connect works inside, beyond its
// documented API (docs/architecture.md, "The entry guard"). Each assumption is pinned here, so a
// Connect or protobuf-es upgrade that breaks one fails this file instead of the guard failing
// quietly (a skipped key check, a lost handler property, an unknown field reported as a bad body).

const versionOf = (pkg: string) =>
  (
    JSON.parse(readFileSync(new URL(`../../node_modules/${pkg}/package.json`, import.meta.url), "utf8")) as {
      version: string;
    }
  ).version;

const systemRoutes = (router: ConnectRouter) =>
  router.service(SystemService, {
    getVersion: () => ({ version: "v" }),
    getDatabaseStatus: () => ({}),
    checkReady: () => ({ status: "ok" }),
  });

/** The own properties of a handler (a function) besides those of every function. */
const handlerProperties = (h: UniversalHandler) =>
  Object.keys(h)
    .filter((k) => !["length", "name", "prototype"].includes(k))
    .sort();

describe("what the entry guard assumes of Connect", () => {
  it("is reviewed for these versions: on an upgrade, re-check the assumptions below, then move the pin", () => {
    expect({
      connect: versionOf("@connectrpc/connect"),
      fastify: versionOf("@connectrpc/connect-fastify"),
      protobuf: versionOf("@bufbuild/protobuf"),
    }).toEqual({ connect: "2.1.2", fastify: "2.1.2", protobuf: "2.17.0" });
  });

  it("a guarded handler carries every property of Connect's handler", () => {
    const router = createConnectRouter();
    systemRoutes(router);
    const original = [...router.handlers];
    guardEntries(router.handlers);
    expect(router.handlers).toHaveLength(original.length);
    for (const [i, h] of original.entries()) {
      expect(router.handlers[i]).not.toBe(h);
      expect(handlerProperties(router.handlers[i])).toEqual(handlerProperties(h));
      for (const k of handlerProperties(h)) expect(router.handlers[i][k as keyof UniversalHandler]).toBe(h[k as never]);
    }
  });

  it("connect-fastify serves the handlers as they stand after the routes function: replacing them works", async () => {
    const app = fastify();
    const seen: string[] = [];
    await app.register(fastifyConnectPlugin, {
      routes: (router) => {
        systemRoutes(router);
        for (let i = 0; i < router.handlers.length; i++) {
          const h = router.handlers[i];
          router.handlers[i] = Object.assign((req: Parameters<UniversalHandler>[0]) => {
            seen.push(h.method.name);
            return h(req);
          }, h);
        }
      },
    });
    const res = await app.inject({
      method: "POST",
      url: "/coffer.v1.SystemService/GetVersion",
      headers: { "content-type": "application/json" },
      payload: "{}",
    });
    await app.close();
    expect(res.statusCode).toBe(200);
    expect(seen).toEqual(["GetVersion"]);
  });

  it("Connect refuses a wrong HTTP method or content type itself, with the statuses the guard passes on", async () => {
    const app = fastify();
    await app.register(fastifyConnectPlugin, { routes: systemRoutes });
    const wrongType = await app.inject({
      method: "POST",
      url: "/coffer.v1.SystemService/GetVersion",
      headers: { "content-type": "text/plain" },
      payload: "{}",
    });
    const wrongMethod = await app.inject({ method: "PUT", url: "/coffer.v1.SystemService/GetVersion", payload: "{}" });
    await app.close();
    for (const status of [wrongType.statusCode, wrongMethod.statusCode])
      expect(REFUSED_OUTRIGHT.has(status)).toBe(true);
  });

  it("protobuf-es names an unknown JSON key in the words the guard reads", () => {
    const failure = (schema: typeof GetVersionRequestSchema | typeof ListTransactionsRequestSchema, json: object) => {
      try {
        fromJson(schema as typeof GetVersionRequestSchema, json as never);
      } catch (e) {
        return (e as Error).message;
      }
      throw new Error("fromJson accepted an unknown key");
    };
    const top = UNKNOWN_JSON_FIELD.exec(failure(GetVersionRequestSchema, { colour: 1 }));
    expect(top?.slice(1)).toEqual(["coffer.v1.GetVersionRequest", "colour"]);
    const nested = UNKNOWN_JSON_FIELD.exec(failure(ListTransactionsRequestSchema, { filter: { colour: 1 } }));
    expect(nested?.[2]).toBe("colour");
    expect(nested?.[1]).not.toBe("coffer.v1.ListTransactionsRequest");
  });
});
