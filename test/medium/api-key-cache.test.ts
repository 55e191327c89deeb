import type { AddressInfo } from "node:net";
import { ConnectError } from "@connectrpc/connect";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { coreClients, coreTransport, type CoreClients } from "../../gateways/shared/core-client.js";
import { insertApiKey } from "../../services/auth/api-keys.js";
import { KEY_CACHE_APPLICATION } from "../../services/auth/key-cache.js";
import { closeOrm, openOrm, type Orm } from "../../services/db/orm.js";
import { buildCoreServer } from "../../services/server.js";
import { withKey } from "../helpers/core-error.js";
import { startStack, type Stack } from "../helpers/stack.js";

// Two cores on one database, each with its own key cache: a key revoked through one, or behind both
// of their backs in SQL, must stop working on both within a second.
let s: Stack;
let orm2: Orm;
let core2App: Awaited<ReturnType<typeof buildCoreServer>>;
let cores: CoreClients[];

beforeAll(async () => {
  s = await startStack();
  orm2 = await openOrm(s.databaseUrl, 3);
  core2App = await buildCoreServer(orm2, s.config, { logger: false, periodicTasks: [] });
  await core2App.listen({ port: 0, host: "127.0.0.1" });
  cores = [s.core, coreClients(coreTransport(`http://127.0.0.1:${(core2App.server.address() as AddressInfo).port}`))];
});
afterAll(async () => {
  await core2App?.close();
  if (orm2) await closeOrm(orm2);
  await s?.close();
});

const newKey = async (name: string) => insertApiKey(s.orm.em.fork(), { name, scope: "read_only" });

/** The Coffer code a call fails with, or "OK". */
async function outcome(call: Promise<unknown>): Promise<string> {
  try {
    await call;
    return "OK";
  } catch (e) {
    return ConnectError.from(e).findDetails(ErrorInfoSchema)[0]?.reason ?? "?";
  }
}

/** What each core answers GetCurrentKey with for `key`. */
const answers = (key: string) => Promise.all(cores.map((c) => outcome(c.apiKeys.getCurrentKey({}, withKey(key)))));

/** Polls until both cores refuse `key` as revoked; returns how long that took (ms). */
async function untilRefusedEverywhere(key: string, limitMs = 1000): Promise<number> {
  const start = performance.now();
  for (;;) {
    const got = await answers(key);
    const elapsed = performance.now() - start;
    if (got.every((r) => r === "REVOKED_API_KEY")) return elapsed;
    if (elapsed > limitMs) throw new Error(`after ${Math.round(elapsed)} ms the cores answer ${got.join(", ")}`);
    await new Promise((r) => setTimeout(r, 20));
  }
}

const exec = (sql: string, params: unknown[] = []) => s.orm.em.fork().getConnection().execute(sql, params);

describe("the API key cache of each core", () => {
  it("serves a key it authenticated without reading it again, until the key changes", async () => {
    const { key, plaintext } = await newKey("cached");
    expect(await answers(plaintext)).toEqual(["OK", "OK"]);
    // With the change announcement switched off, a revocation stays unseen: the cores answer from
    // their caches. This is the notification's job, proven by its absence.
    await exec(`alter table api_keys disable trigger api_keys_changed`);
    try {
      await exec(`update api_keys set revoked_at = now() where id = ?`, [key.id]);
      expect(await answers(plaintext)).toEqual(["OK", "OK"]);
    } finally {
      await exec(`alter table api_keys enable trigger api_keys_changed`);
    }
    // Any later change to the key is announced, and both drop it.
    await exec(`update api_keys set revoked_at = revoked_at where id = ?`, [key.id]);
    expect(await untilRefusedEverywhere(plaintext)).toBeLessThan(1000);
  });

  it("a key revoked through one core stops working on both within 1 s", async () => {
    const { key, plaintext } = await newKey("revoked via core");
    expect(await answers(plaintext)).toEqual(["OK", "OK"]);
    expect(await answers(plaintext)).toEqual(["OK", "OK"]);
    await cores[1].apiKeys.revokeApiKey({ id: key.id }, withKey(s.adminKey));
    // The core that revoked it refuses it on the very next call; the other within the second.
    expect(await outcome(cores[1].apiKeys.getCurrentKey({}, withKey(plaintext)))).toBe("REVOKED_API_KEY");
    expect(await untilRefusedEverywhere(plaintext)).toBeLessThan(1000);
  });

  it("a key revoked in SQL (as the CLI or an operator would) stops working on both within 1 s", async () => {
    const { key, plaintext } = await newKey("revoked in sql");
    expect(await answers(plaintext)).toEqual(["OK", "OK"]);
    await exec(`update api_keys set revoked_at = now() where id = ?`, [key.id]);
    expect(await untilRefusedEverywhere(plaintext)).toBeLessThan(1000);
  });

  it("a key whose scope changes is read again: the new scope applies at once", async () => {
    const { key, plaintext } = await newKey("demoted");
    await exec(`update api_keys set scope = 'full_access' where id = ?`, [key.id]);
    for (const c of cores) await c.apiKeys.listApiKeys({}, withKey(plaintext));
    await exec(`update api_keys set scope = 'read_only' where id = ?`, [key.id]);
    const start = performance.now();
    for (const c of cores) {
      for (;;) {
        if ((await outcome(c.apiKeys.listApiKeys({}, withKey(plaintext)))) === "INSUFFICIENT_SCOPE") break;
        expect(performance.now() - start, "read_only applies within 1 s").toBeLessThan(1000);
        await new Promise((r) => setTimeout(r, 20));
      }
    }
  });

  it("while a core cannot listen for changes it reads every key: a revocation is never missed", async () => {
    const { key, plaintext } = await newKey("revoked while deaf");
    expect(await answers(plaintext)).toEqual(["OK", "OK"]);
    // Cut both listening connections, then revoke at once: nobody hears the announcement.
    const [{ n }] = await exec(
      `select count(pg_terminate_backend(pid))::int as n from pg_stat_activity
       where application_name = ? and datname = current_database()`,
      [KEY_CACHE_APPLICATION],
    );
    expect(n).toBe(2);
    await exec(`update api_keys set revoked_at = now() where id = ?`, [key.id]);
    expect(await untilRefusedEverywhere(plaintext)).toBeLessThan(1000);
    // And they listen again by themselves.
    const start = performance.now();
    for (;;) {
      const [{ n: listening }] = await exec(
        `select count(*)::int as n from pg_stat_activity where application_name = ? and datname = current_database()`,
        [KEY_CACHE_APPLICATION],
      );
      if (listening === 2) break;
      expect(performance.now() - start, "both listen again within 5 s").toBeLessThan(5000);
      await new Promise((r) => setTimeout(r, 50));
    }
    const fresh = await newKey("after reconnect");
    expect(await answers(fresh.plaintext)).toEqual(["OK", "OK"]);
    await exec(`update api_keys set revoked_at = now() where id = ?`, [fresh.key.id]);
    expect(await untilRefusedEverywhere(fresh.plaintext)).toBeLessThan(1000);
  });
});
