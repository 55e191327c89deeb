import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { coreConfigFromEnv } from "../../services/config.js";
import { openOrm, type Orm } from "../../services/db/orm.js";
import { query } from "../../services/db/sql.js";
import { purgeVersionsTask } from "../../services/ledger/transactions/versions.js";
import { buildCoreServer } from "../../services/server.js";
import { runPeriodicTask } from "../helpers/periodic.js";
import { createTestDatabase } from "../helpers/db.js";
import { newAccount, newTransactions, newUser } from "../helpers/ledger.js";
import { startStack, type Stack } from "../helpers/stack.js";

/** Versions replaced 26 h ago: older than any live cursor can need. */
async function oldVersions(orm: Orm): Promise<string[]> {
  const em = orm.em.fork();
  const user = await newUser(em);
  const account = await newAccount(em, user.id);
  const ids = await newTransactions(em, account.id, [{ providerName: "a" }, { providerName: "b" }]);
  for (const id of ids) await query(em, `update transactions set amount = amount + 1 where id = ?`, [id]);
  await query(
    em,
    `update transaction_versions set superseded_at = now() - interval '26 hours' where id = any(?::uuid[])`,
    [`{${ids.join(",")}}`],
  );
  return ids;
}

async function versionCount(orm: Orm, ids: string[]): Promise<number> {
  const rows = await query<{ n: number }>(
    orm.em.fork(),
    `select count(*)::int as n from transaction_versions where id = any(?::uuid[])`,
    [`{${ids.join(",")}}`],
  );
  return rows[0].n;
}

describe("reads never write", () => {
  let stack: Stack;
  beforeAll(async () => {
    stack = await startStack();
  });
  afterAll(async () => {
    await stack?.close();
  });

  it("listing transactions with a read_only key leaves old row versions alone", async () => {
    const ids = await oldVersions(stack.orm);
    const opts = { headers: { "x-api-key": stack.readKey } };
    for (let i = 0; i < 3; i++) await stack.core.transactions.listTransactions({ limit: 10 }, opts);
    await new Promise((r) => setTimeout(r, 200));
    expect(await versionCount(stack.orm, ids)).toBe(2);
  });
});

describe("the core's periodic version purge", () => {
  let orm: Orm;
  beforeAll(async () => {
    orm = await openOrm(await createTestDatabase(), 3);
  });
  afterAll(async () => {
    await orm?.close();
  });

  it("runs on the core's job queue once it listens, and removes old versions", async () => {
    const ids = await oldVersions(orm);
    const config = coreConfigFromEnv({ DATABASE_URL: "postgres://unused/db" });
    const app = await buildCoreServer(orm, config, {
      logger: false,
      periodicTasks: [purgeVersionsTask],
      sync: { scheduler: { schedule: false } },
    });
    await app.listen({ port: 0, host: "127.0.0.1" });
    try {
      expect(await runPeriodicTask(app, purgeVersionsTask.queue)).toEqual({
        state: "completed",
        output: { result: ids.length },
      });
      expect(await versionCount(orm, ids)).toBe(0);
    } finally {
      await app.close();
    }
  });
});
