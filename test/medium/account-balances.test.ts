import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openOrm, type Orm } from "../../services/db/orm.js";
import { query } from "../../services/db/sql.js";
import { netCentsByAccount, setAccountBalances } from "../../services/ledger/accounts/balances.js";
import type { Actor } from "../../services/ledger/actor.js";
import { deleteTransaction } from "../../services/ledger/transactions/lifecycle.js";
import { createTestDatabase } from "../helpers/db.js";
import { newAccount, newTransactions, newUser } from "../helpers/ledger.js";

const ACTOR: Actor = { type: "system", id: null, keyId: null, name: "balances test" };
let orm: Orm;
let userId: string;
beforeAll(async () => {
  orm = await openOrm(await createTestDatabase(), 2);
  userId = (await newUser(orm.em.fork(), "Owner")).id;
});
afterAll(async () => {
  await orm?.close();
});

const em = () => orm.em.fork();
const balances = async (id: string) =>
  (
    await query<{ balance_current: string | null; balance_available: string | null; balance_limit: string | null }>(
      em(),
      `select balance_current::text, balance_available::text, balance_limit::text from accounts where id = ?`,
      [id],
    )
  )[0];
const updates = (id: string) =>
  query<{ actor_name: string; details: Record<string, unknown> }>(
    em(),
    `select actor_name, details from annotations where entity_id = ? and action = 'updated' order by created_at, id`,
    [id],
  );

describe("setAccountBalances", () => {
  it("sets the given balances exactly, keeps the others, and annotates what changed", async () => {
    const { id, shortId } = await newAccount(em(), userId, { type: "credit" });
    await setAccountBalances(em(), ACTOR, {
      id: shortId,
      balanceCurrent: "298.45",
      balanceAvailable: "14701.55",
      balanceLimit: "15000",
    });
    expect(await balances(id)).toEqual({
      balance_current: "298.45",
      balance_available: "14701.55",
      balance_limit: "15000.00",
    });
    expect(await updates(id)).toEqual([
      {
        actor_name: "balances test",
        details: {
          changes: {
            balance_current: { from: "1000.00", to: "298.45" },
            balance_available: { from: null, to: "14701.55" },
            balance_limit: { from: null, to: "15000.00" },
          },
        },
      },
    ]);
    await setAccountBalances(em(), ACTOR, { id, balanceAvailable: "" });
    expect(await balances(id)).toEqual({
      balance_current: "298.45",
      balance_available: null,
      balance_limit: "15000.00",
    });
  });

  it("writes nothing when nothing changes (however the amount is spelled)", async () => {
    const { id } = await newAccount(em(), userId);
    await setAccountBalances(em(), ACTOR, { id, balanceCurrent: "1000", balanceAvailable: undefined });
    await setAccountBalances(em(), ACTOR, { id, balanceCurrent: "01000.0" });
    expect(await updates(id)).toEqual([]);
  });

  it.each([
    [{ balanceCurrent: "12.345" }, "balance_current"],
    [{ balanceAvailable: "1e3" }, "balance_available"],
    [{ balanceLimit: "1234567890123" }, "balance_limit"],
  ])("should not accept %j", async (input, field) => {
    const { id } = await newAccount(em(), userId);
    await expect(setAccountBalances(em(), ACTOR, { id, ...input })).rejects.toMatchObject({
      code: "VALIDATION_ERROR",
      message: expect.stringContaining(field),
    });
    expect(await balances(id)).toMatchObject({ balance_current: "1000.00" });
  });

  it("should not set the balances of an unknown account", async () => {
    await expect(setAccountBalances(em(), ACTOR, { id: "00000000", balanceCurrent: "1.00" })).rejects.toMatchObject({
      code: "NOT_FOUND",
    });
  });
});

describe("netCentsByAccount", () => {
  it("sums each account's live transactions in cents, and answers 0 for an account without any", async () => {
    const a = (await newAccount(em(), userId)).id;
    const b = (await newAccount(em(), userId)).id;
    const [, , gone] = await newTransactions(em(), a, [{ amount: "10.10" }, { amount: "-0.05" }, { amount: "99.99" }]);
    await deleteTransaction(em(), ACTOR, gone);
    expect(await netCentsByAccount(em(), [a, b])).toEqual(
      new Map([
        [a, 1005n],
        [b, 0n],
      ]),
    );
    await expect(netCentsByAccount(em(), ["nope"])).rejects.toMatchObject({ code: "VALIDATION_ERROR" });
  });
});
