import type { AddressInfo } from "node:net";
import pg from "pg";
import { afterAll, describe, expect, it } from "vitest";
import { coreClients, coreTransport } from "../../gateways/shared/core-client.js";
import { insertApiKey } from "../../services/auth/api-keys.js";
import { coreConfigFromEnv } from "../../services/config.js";
import { openOrm, type Orm } from "../../services/db/orm.js";
import { buildCoreServer } from "../../services/server.js";
import { createTestDatabase } from "../helpers/db.js";
import { newAccount, newTransactions, newUser } from "../helpers/ledger.js";

let orm: Orm | undefined;
afterAll(async () => {
  await orm?.close();
});

describe("core shutdown", () => {
  it("finishes a call that is in flight when the core is asked to close", async () => {
    const url = await createTestDatabase();
    orm = await openOrm(url, 4);
    const em = orm.em.fork();
    const key = (await insertApiKey(em, { name: "shutdown", scope: "full_access" })).plaintext;
    const [txId] = await newTransactions(em, (await newAccount(em, (await newUser(em)).id)).id, [{}]);

    const app = await buildCoreServer(orm, coreConfigFromEnv({ DATABASE_URL: url }), { logger: false });
    await app.listen({ port: 0, host: "127.0.0.1" });
    const core = coreClients(coreTransport(`http://127.0.0.1:${(app.server.address() as AddressInfo).port}`));

    // Another session holds the row, so the write below waits inside the core.
    const blocker = new pg.Client({ connectionString: url });
    await blocker.connect();
    await blocker.query("begin");
    await blocker.query("select 1 from transactions where id = $1 for update", [txId]);

    const call = core.transactions.setTransactionCategory(
      { id: txId, categorySlug: "food_and_drink_coffee" },
      { headers: { "x-api-key": key } },
    );
    await new Promise((r) => setTimeout(r, 300));
    let closed = false;
    const closing = app.close().then(() => (closed = true));
    await new Promise((r) => setTimeout(r, 300));
    expect(closed).toBe(false); // still draining the in-flight call

    await blocker.query("commit");
    await blocker.end();
    const res = await call;
    expect(res.transaction?.categorySlug).toBe("food_and_drink_coffee");
    await closing;
    expect(closed).toBe(true);
  });
});
