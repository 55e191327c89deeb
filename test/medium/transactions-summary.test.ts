import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TransactionFilter } from "../../gen/coffer/v1/transactions_pb.js";
import type { CurrencyTotals } from "../../services/ledger/transactions/summary.js";
import { openOrm, type Em, type Orm } from "../../services/db/orm.js";
import { query } from "../../services/db/sql.js";
import { CofferError } from "../../services/errors/coffer-error.js";
import { countTransactions } from "../../services/ledger/transactions/count.js";
import { summarizeTransactions } from "../../services/ledger/transactions/summary.js";
import { createTestDatabase } from "../helpers/db.js";
import { categoryId, newAccount, newTransactions, newUser } from "../helpers/ledger.js";

let orm: Orm;
const em = (): Em => orm.em.fork();
let usd: { id: string; shortId: string };

beforeAll(async () => {
  orm = await openOrm(await createTestDatabase(), 2);
  const e = em();
  const user = await newUser(e, "Sam");
  usd = await newAccount(e, user.id, { name: "Checking" });
  const eur = await newAccount(e, user.id, { name: "Giro", currency: "EUR" });
  const coffee = { categoryId: await categoryId(e, "food_and_drink_coffee"), categorySource: "user" as const };
  const salary = { categoryId: await categoryId(e, "income_salary"), categorySource: "user" as const };
  await newTransactions(e, usd.id, [
    { providerName: "a", amount: "0.10", date: "2025-12-29", ...coffee },
    { providerName: "b", amount: "0.20", date: "2026-01-04", ...coffee },
    { providerName: "c", amount: "-1000.05", date: "2026-01-05", ...salary },
    { providerName: "d", amount: "19.99", date: "2026-02-01" },
    { providerName: "e", amount: "-0.99", date: "2026-02-01" },
  ]);
  await newTransactions(e, eur.id, [
    { providerName: "f", amount: "0.30", date: "2026-01-04", isoCurrencyCode: "EUR", ...coffee },
    { providerName: "g", amount: "-5.00", date: "2026-02-02", isoCurrencyCode: "EUR" },
  ]);
  const [gone] = await newTransactions(e, usd.id, [
    { providerName: "deleted", amount: "500.00", date: "2026-01-04", ...coffee },
  ]);
  await query(e, `update transactions set deleted_at = now() where id = ?`, [gone]);
});
afterAll(async () => {
  await orm?.close();
});

const filter = (f: Partial<TransactionFilter> = {}) => ({ tags: [], anyTag: [], ...f }) as TransactionFilter;
const plain = (ts: CurrencyTotals[]) =>
  ts.map((t) => ({ cur: t.isoCurrencyCode, out: t.moneyOut, in: t.moneyIn, net: t.net, n: Number(t.count) }));

describe("transaction summary", () => {
  it("by category (the default): per assigned slug and currency, exact decimals, currencies never mixed", async () => {
    const s = await summarizeTransactions(em(), filter(), "");
    expect(s.groupBy).toBe("category");
    expect(s.groups.map((g) => ({ key: g.key, label: g.label, totals: plain(g.totals) }))).toEqual([
      {
        key: "food_and_drink_coffee",
        label: "Coffee",
        totals: [
          { cur: "EUR", out: "0.30", in: "0.00", net: "0.30", n: 1 },
          { cur: "USD", out: "0.30", in: "0.00", net: "0.30", n: 2 },
        ],
      },
      {
        key: "income_salary",
        label: "Salary",
        totals: [{ cur: "USD", out: "0.00", in: "1000.05", net: "-1000.05", n: 1 }],
      },
      {
        key: "uncategorized",
        label: "Uncategorized",
        totals: [
          { cur: "EUR", out: "0.00", in: "5.00", net: "-5.00", n: 1 },
          { cur: "USD", out: "19.99", in: "0.99", net: "19.00", n: 2 },
        ],
      },
    ]);
    expect(plain(s.totals)).toEqual([
      { cur: "EUR", out: "0.30", in: "5.00", net: "-4.70", n: 2 },
      { cur: "USD", out: "20.29", in: "1001.04", net: "-980.75", n: 5 },
    ]);
  });

  it("by month, ISO week and day, in time order", async () => {
    const month = await summarizeTransactions(em(), filter({ accountId: usd.shortId }), "month");
    expect(month.groups.map((g) => [g.key, g.label, g.totals[0].net])).toEqual([
      ["2025-12", "December 2025", "0.10"],
      ["2026-01", "January 2026", "-999.85"],
      ["2026-02", "February 2026", "19.00"],
    ]);
    const week = await summarizeTransactions(em(), filter({ accountId: usd.shortId }), "week");
    // 2025-12-29 .. 2026-01-04 is ISO week 2026-W01.
    expect(week.groups.map((g) => [g.key, g.label, g.totals[0].moneyOut, Number(g.totals[0].count)])).toEqual([
      ["2026-W01", "Week of 2025-12-29", "0.30", 2],
      ["2026-W02", "Week of 2026-01-05", "0.00", 1],
      ["2026-W05", "Week of 2026-01-26", "19.99", 2],
    ]);
    const day = await summarizeTransactions(em(), filter({ startDate: "2026-02-01" }), "day");
    expect(day.groups.map((g) => [g.key, g.label, plain(g.totals).map((t) => t.cur)])).toEqual([
      ["2026-02-01", "Sun 01 Feb 2026", ["USD"]],
      ["2026-02-02", "Mon 02 Feb 2026", ["EUR"]],
    ]);
  });

  it("applies the list's filters, and an empty match is an empty summary", async () => {
    const s = await summarizeTransactions(
      em(),
      filter({ categorySlug: "food_and_drink", maxAmount: "0.20" }),
      "category",
    );
    expect(plain(s.totals)).toEqual([{ cur: "USD", out: "0.30", in: "0.00", net: "0.30", n: 2 }]);
    const none = await summarizeTransactions(em(), filter({ search: "no such name" }), "month");
    expect({ groups: none.groups, totals: none.totals }).toEqual({ groups: [], totals: [] });
  });

  it("count agrees with the summary and ignores soft-deleted rows", async () => {
    expect(await countTransactions(em(), filter())).toBe(7n);
    expect(await countTransactions(em(), filter({ categorySlug: "food_and_drink_coffee" }))).toBe(3n);
  });

  it("an unknown group_by or a bad filter → INVALID_PARAMETER", async () => {
    for (const call of [
      summarizeTransactions(em(), filter(), "year"),
      summarizeTransactions(em(), filter({ minAmount: "x" }), "day"),
    ]) {
      const e = await call.then(
        () => null,
        (err: unknown) => err,
      );
      expect(e).toBeInstanceOf(CofferError);
      expect((e as CofferError).code).toBe("INVALID_PARAMETER");
    }
  });
});
