import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { insertApiKey } from "../../services/auth/api-keys.js";
import { expectCoreError, withKey } from "../helpers/core-error.js";
import { expectEnvelope, key } from "../helpers/rest.js";
import { startStack, type Stack } from "../helpers/stack.js";

// COFFER_STATEMENT_TIMEOUT_MS holds on both of the core's pools: the ORM's and
// the pg pool of prepared statements. A statement that runs out of time is 503
// UNAVAILABLE with a message that says so (SQLSTATE 57014), never a 500.

let s: Stack;
const lines: Record<string, unknown>[] = [];

beforeAll(async () => {
  s = await startStack(
    { statementTimeoutMs: 300, logLevel: "info" },
    { coreLog: { write: (l) => void lines.push(JSON.parse(l)) } },
  );
});
afterAll(async () => {
  await s?.close();
});

/** Runs `fn` while another session holds an exclusive lock on `table`, so statements on it wait. */
async function whileLocked<T>(table: string, fn: () => Promise<T>): Promise<T> {
  const locker = new pg.Client({ connectionString: s.databaseUrl });
  await locker.connect();
  try {
    await locker.query("begin");
    await locker.query(`lock table ${table} in access exclusive mode`);
    return await fn();
  } finally {
    await locker.query("rollback").catch(() => undefined);
    await locker.end();
  }
}

describe("statement timeout", () => {
  it("on the ORM pool (ListUsers waits on users) → UNAVAILABLE naming the timeout", async () => {
    const started = Date.now();
    const f = await whileLocked("users", () =>
      expectCoreError(
        s.core.users.listUsers({}, { headers: { "x-api-key": s.adminKey, "x-request-id": "slow-users" } }),
        "UNAVAILABLE",
      ),
    );
    expect(Date.now() - started).toBeLessThan(5000);
    expect(f.message).toMatch(/did not finish this request in time \(statement timeout\)/);
    expect(lines.find((l) => l.msg === "database statement timed out")).toMatchObject({
      reqId: "slow-users",
      rpc: "ListUsers",
      err: { code: "57014" },
    });
  });

  it("on the prepared-statement pool (looking up a key the core has not seen waits) → UNAVAILABLE", async () => {
    // A key the core has authenticated before is answered from its cache; a new one is read.
    const { plaintext } = await insertApiKey(s.orm.em.fork(), { name: "unseen", scope: "full_access" });
    const f = await whileLocked("api_keys", () =>
      expectCoreError(s.core.users.listUsers({}, withKey(plaintext)), "UNAVAILABLE"),
    );
    expect(f.message).toMatch(/statement timeout/);
  });

  it("through the REST gateway: 503 UNAVAILABLE in the envelope", async () => {
    const res = await whileLocked("users", () =>
      s.rest.inject({ method: "GET", url: "/api/v1/users", headers: key(s.adminKey) }),
    );
    expectEnvelope(res, "UNAVAILABLE", /statement timeout/);
  });

  it("once the lock is gone, the same calls answer", async () => {
    expect((await s.core.users.listUsers({}, withKey(s.adminKey))).users).toEqual([]);
  });
});
