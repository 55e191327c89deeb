import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openOrm, type Orm } from "../../services/db/orm.js";
import { query } from "../../services/db/sql.js";
import { loadTransaction } from "../../services/ledger/transactions/view.js";
import { createTestDatabase } from "../helpers/db.js";
import { newAccount, newTransactions, newUser } from "../helpers/ledger.js";

let orm: Orm;
beforeAll(async () => {
  orm = await openOrm(await createTestDatabase(), 2);
});
afterAll(async () => {
  await orm.close();
});

describe("transaction versioning (the basis of snapshot pagination)", () => {
  it("renews seq and keeps the previous version on every real change, not on a no-op update", async () => {
    const em = orm.em.fork();
    const user = await newUser(em);
    const account = await newAccount(em, user.id);
    const [id] = await newTransactions(em, account.id, [{ amount: "12.30", providerName: "Coffee Bar" }]);
    const [before] = await query<{ seq: string }>(em, `select seq from transactions where id = ?`, [id]);

    await query(em, `update transactions set pending = pending where id = ?`, [id]);
    const [same] = await query<{ seq: string }>(em, `select seq from transactions where id = ?`, [id]);
    expect(same.seq).toBe(before.seq);

    await query(em, `update transactions set amount = 15.00 where id = ?`, [id]);
    const [after] = await query<{ seq: string }>(em, `select seq from transactions where id = ?`, [id]);
    expect(BigInt(after.seq)).toBeGreaterThan(BigInt(before.seq));
    const versions = await query<{ amount: string; seq: string; superseded_seq: string }>(
      em,
      `select amount::text as amount, seq, superseded_seq from transaction_versions where id = ?`,
      [id],
    );
    expect(versions).toEqual([{ amount: "12.30", seq: before.seq, superseded_seq: after.seq }]);
  });

  it("keeps no earlier version of a row changed by the transaction that wrote it (none could read it)", async () => {
    const em = orm.em.fork();
    const account = await newAccount(em, (await newUser(em, "Cy")).id);
    const id = await em.transactional(async (tx) => {
      const [inserted] = await newTransactions(tx, account.id, [{ amount: "1.00" }]);
      await query(tx, `update transactions set amount = 2.00 where id = ?`, [inserted]);
      await query(tx, `update transactions set amount = 3.00 where id = ?`, [inserted]);
      return inserted;
    });
    expect(await query(em, `select 1 from transaction_versions where id = ?`, [id])).toEqual([]);
    await query(em, `update transactions set amount = 4.00 where id = ?`, [id]);
    const versions = await query<{ amount: string }>(
      em,
      `select amount::text as amount from transaction_versions where id = ?`,
      [id],
    );
    expect(versions).toEqual([{ amount: "3.00" }]);
  });

  it("presents a transaction with its account, owner and the uncategorized default", async () => {
    const em = orm.em.fork();
    const user = await newUser(em, "Bob");
    const account = await newAccount(em, user.id, { name: "Savings", currency: "EUR" });
    const [id] = await newTransactions(em, account.id, [
      { amount: "-2500.00", isoCurrencyCode: "EUR", providerName: "SALARY", providerMerchantName: "Acme" },
    ]);
    const t = await loadTransaction(em, id);
    expect(t).toMatchObject({
      accountId: account.shortId,
      accountName: "Savings",
      userId: user.shortId,
      userName: "Bob",
      amount: "-2500.00",
      isoCurrencyCode: "EUR",
      date: "2026-01-15",
      name: "Acme",
      providerName: "SALARY",
      categorySlug: "uncategorized",
      categoryDisplayName: "Uncategorized",
      tags: [],
      metadata: {},
    });
  });
});
