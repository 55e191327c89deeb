import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeOrm, openOrm, type Orm } from "../../../services/db/orm.js";
import { upsertSyncedTransactions } from "../../../services/db/tables/transactions-sync.js";
import { newShortId } from "../../../services/ids/short-id.js";
import { loadContexts, loadNewContexts, type NewTransactionValues } from "../../../services/rules/context-loader.js";
import { loadReferenceMaps } from "../../../services/rules/references.js";
import { createTestDatabase } from "../../helpers/db.js";
import { categoryId, newAccount, newUser } from "../../helpers/ledger.js";

// A sync page judges its new rows before they are stored (loadNewContexts builds their contexts from the
// values); once stored, the same rows are read by loadContexts. Both must give the rules the same context.

let orm: Orm;
const em = () => orm.em.fork();

beforeAll(async () => {
  orm = await openOrm(await createTestDatabase(), 2);
});
afterAll(async () => {
  await closeOrm(orm);
});

describe("loadNewContexts", () => {
  it("gives a new row the context loadContexts reads once it is stored", async () => {
    const user = await newUser(em(), "Zoë Ünal");
    const account = await newAccount(em(), user.id, { name: "Everyday \u00e9" });
    const groceries = await categoryId(em(), "food_and_drink_groceries");
    const values: NewTransactionValues[] = [
      ["-12.50", "2024-02-29", "COFFEE #12", "Blue Bottle", false, groceries],
      ["1234567890.99", "1970-01-01", "PAYROLL", null, true, null],
      ["0.00", "1969-12-31", "ZERO", "", false, null],
      ["-0.01", "2099-12-31", "tiny", "Ünïcode merchant", false, groceries],
    ].map(([amount, date, name, merchant, pending, category]) => ({
      id: crypto.randomUUID(),
      shortId: "",
      accountId: account.id,
      amount: amount as string,
      date: date as string,
      provider: "csv",
      providerName: name as string,
      providerMerchantName: merchant as string | null,
      providerCategoryPrimary: category ? "FOOD_AND_DRINK" : null,
      providerCategoryDetailed: category ? "FOOD_AND_DRINK_GROCERIES" : null,
      pending: pending as boolean,
      categoryId: category as string | null,
      categorySource: category ? ("system" as const) : null,
    }));
    const maps = await loadReferenceMaps(em());
    const fresh = await loadNewContexts(em(), values, maps);

    await em().transactional((tx) =>
      upsertSyncedTransactions(
        tx,
        "csv",
        values.map((v) => ({
          id: v.id,
          shortId: newShortId(),
          accountId: v.accountId,
          amount: v.amount,
          currency: "USD",
          date: v.date,
          authorizedDate: null,
          ptid: `p-${v.id}`,
          name: v.providerName,
          merchant: v.providerMerchantName,
          primary: v.providerCategoryPrimary,
          detailed: v.providerCategoryDetailed,
          pending: v.pending,
          categoryId: v.categoryId,
          categorySource: v.categorySource,
          tagIds: [],
          metadata: {},
          counterpartyId: null,
        })),
      ),
    );
    const stored = await loadContexts(
      em(),
      values.map((v) => v.id),
      maps,
    );

    expect(fresh.map((f) => f.id)).toEqual(stored.map((s) => s.id));
    // Only what identifies and versions the stored row differs: its short id and its seq.
    const comparable = (l: (typeof stored)[number]) => {
      const { shortId: _s, ...context } = l.context as Record<string, unknown>;
      return { day: l.day, state: l.state, tagIds: l.tagIds, context: { ...context, seq: undefined } };
    };
    expect(fresh.map(comparable)).toEqual(stored.map(comparable));
    expect(fresh[0].context).toMatchObject({ accountName: "Everyday \u00e9", userName: "Zoë Ünal" });
  });
});
