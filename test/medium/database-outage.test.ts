import type { AddressInfo } from "node:net";
import { ConnectError } from "@connectrpc/connect";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { buildRestApp } from "../../gateways/rest/app.js";
import { coreClients, coreTransport, type CoreClients } from "../../gateways/shared/core-client.js";
import { VERSION } from "../../common/version.js";
import { insertApiKey } from "../../services/auth/api-keys.js";
import { coreConfigFromEnv } from "../../services/config.js";
import { closeOrm, openOrm, type Orm } from "../../services/db/orm.js";
import { buildCoreServer } from "../../services/server.js";
import { withKey } from "../helpers/core-error.js";
import { createTestDatabase } from "../helpers/db.js";
import { newAccount, newTransactions, newUser } from "../helpers/ledger.js";
import { key } from "../helpers/rest.js";
import { TcpProxy } from "../helpers/tcp-proxy.js";

// PostgreSQL goes away under load and comes back (issue: "the database comes
// and goes"). The machine's PostgreSQL is shared, so a TCP proxy in front of it
// plays the outage: every connection dropped, new ones refused, then accepted
// again. During the outage every failed call is UNAVAILABLE (503 over REST),
// never INTERNAL_ERROR; within 5 s of the database's return the core's one pool
// answers again (ORM calls and named prepared statements alike), with no restart.

/** Shorter than the default, so the test of a database that never answers stays quick. */
const CONNECT_TIMEOUT_MS = 1000;

let proxy: TcpProxy;
let orm: Orm;
let core: CoreClients;
let rest: Awaited<ReturnType<typeof buildRestApp>>;
let closeCore: () => Promise<void>;
let adminKey: string;

beforeAll(async () => {
  const direct = new URL(await createTestDatabase());
  proxy = new TcpProxy({ host: direct.hostname, port: Number(direct.port || 5432) });
  const viaProxy = new URL(direct);
  viaProxy.port = String(await proxy.start());
  orm = await openOrm(viaProxy.toString(), 5, { statementTimeoutMs: 15_000, connectTimeoutMs: CONNECT_TIMEOUT_MS });
  const config = { ...coreConfigFromEnv({ DATABASE_URL: viaProxy.toString() }), logLevel: "silent" };
  const app = await buildCoreServer(orm, config, { logger: false });
  await app.listen({ port: 0, host: "127.0.0.1" });
  core = coreClients(coreTransport(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}`));
  rest = await buildRestApp({ core, version: VERSION, logger: false });
  closeCore = () => app.close();

  const em = orm.em.fork();
  adminKey = (await insertApiKey(em, { name: "outage admin", scope: "full_access" })).plaintext;
  const user = await newUser(em, "Ann");
  const account = await newAccount(em, user.id);
  await newTransactions(
    em,
    account.id,
    Array.from({ length: 30 }, (_, i) => ({ providerName: `Shop ${i}`, date: `2026-01-${10 + (i % 9)}` })),
  );
});
afterAll(async () => {
  await rest?.close();
  await closeCore?.();
  await proxy?.close();
  await closeOrm(orm).catch(() => undefined);
});

type Outcome = { started: number; ended: number; ok: boolean; code: string };

/** Each way a call reaches the database: the ORM's entities, named prepared statements, a write. */
const calls: Record<string, () => Promise<unknown>> = {
  "ListUsers (ORM)": () => core.users.listUsers({}, withKey(adminKey)),
  "GetCurrentKey (prepared)": () => core.apiKeys.getCurrentKey({}, withKey(adminKey)),
  "ListTransactions (prepared)": () => core.transactions.listTransactions({ limit: 5 }, withKey(adminKey)),
  "CreateTag (ORM transaction)": () =>
    core.tags.createTag({ slug: `t${Math.random().toString(36).slice(2, 10)}` }, withKey(adminKey)),
  "REST GET /api/v1/users": async () => {
    const res = await rest.inject({ method: "GET", url: "/api/v1/users", headers: key(adminKey) });
    if (res.statusCode !== 200)
      throw new Error(`${res.statusCode} ${res.json<{ error: { code: string } }>().error.code}`);
  },
};

async function attempt(name: string): Promise<Outcome> {
  const started = Date.now();
  try {
    await calls[name]();
    return { started, ended: Date.now(), ok: true, code: "OK" };
  } catch (e) {
    if (e instanceof ConnectError) {
      const reason = e.findDetails(ErrorInfoSchema)[0]?.reason;
      return { started, ended: Date.now(), ok: false, code: reason ?? `connect:${e.code}` };
    }
    const rest = /^(\d{3}) (\w+)$/.exec((e as Error).message);
    return { started, ended: Date.now(), ok: false, code: rest ? `${rest[1]} ${rest[2]}` : String(e) };
  }
}

/** Keeps `workers` loops calling every kind of RPC until `stop()`; returns what each call got. */
function load(workers: number) {
  const outcomes: (Outcome & { name: string })[] = [];
  let running = true;
  const names = Object.keys(calls);
  const loops = Array.from({ length: workers }, async (_, w) => {
    for (let i = w; running; i++) {
      const name = names[i % names.length];
      outcomes.push({ name, ...(await attempt(name)) });
    }
  });
  return {
    outcomes,
    async stop() {
      running = false;
      await Promise.all(loops);
    },
  };
}

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

/** Calls every kind of RPC until each has succeeded once; returns when each did (ms after `since`). */
async function recovery(since: number): Promise<Record<string, number>> {
  const recoveredAt: Record<string, number> = {};
  while (Object.keys(recoveredAt).length < Object.keys(calls).length && Date.now() - since < 10_000) {
    for (const name of Object.keys(calls)) {
      if (!(name in recoveredAt) && (await attempt(name)).ok) recoveredAt[name] = Date.now() - since;
    }
    await sleep(50);
  }
  return recoveredAt;
}

describe("the database goes away under load and comes back", () => {
  it("503 UNAVAILABLE during the outage, never 500; both pools answer within 5 s of its return", async () => {
    // Warm up: every pool has connections and every statement is prepared before the clock starts.
    for (const name of Object.keys(calls)) expect((await attempt(name)).code, name).toBe("OK");
    const traffic = load(6);
    await sleep(1000);
    const cutAt = Date.now();
    await proxy.cut();
    await sleep(1500);
    await proxy.restore();
    const backAt = Date.now();

    // Recovery: every kind of call (so both pools) must succeed again, by itself.
    const recoveredAt = await recovery(backAt);
    await sleep(500);
    await traffic.stop();

    const before = traffic.outcomes.filter((o) => o.ended < cutAt);
    const during = traffic.outcomes.filter((o) => o.started >= cutAt + 50 && o.ended < backAt);
    expect(before.length).toBeGreaterThan(10);
    expect(before.every((o) => o.ok)).toBe(true);
    expect(during.length).toBeGreaterThan(10);
    // Every call made while the database was away failed, and only ever as UNAVAILABLE.
    const codes = [...new Set(during.map((o) => o.code))].sort();
    expect(codes).toEqual(["503 UNAVAILABLE", "UNAVAILABLE"]);

    for (const name of Object.keys(calls)) {
      expect(recoveredAt[name], `${name} recovered`).toBeDefined();
      expect(recoveredAt[name], `${name} recovered within 5 s`).toBeLessThan(5000);
    }
    // And once recovered, nothing fails any more.
    const lastRecovery = backAt + Math.max(...Object.values(recoveredAt));
    const after = traffic.outcomes.filter((o) => o.started > lastRecovery);
    expect(after.length).toBeGreaterThan(5);
    expect(after.filter((o) => !o.ok)).toEqual([]);
  });

  it("a database that accepts connections but never answers: UNAVAILABLE within the connect timeout", async () => {
    proxy.hang();
    try {
      for (const name of Object.keys(calls)) {
        const o = await attempt(name);
        expect(o.code, name).toMatch(/^(503 )?UNAVAILABLE$/);
        // Connecting gives up after the connect timeout; waiting for a pooled connection after twice that.
        expect(o.ended - o.started, name).toBeLessThan(2 * CONNECT_TIMEOUT_MS + 1000);
      }
    } finally {
      await proxy.restore();
    }
    const backAt = Date.now();
    const recoveredAt = await recovery(backAt);
    for (const name of Object.keys(calls)) expect(recoveredAt[name], name).toBeLessThan(5000);
  });
});
