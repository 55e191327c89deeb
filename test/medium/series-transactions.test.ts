import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TransactionFilter } from "../../gen/coffer/v1/transactions_pb.js";
import { query } from "../../services/db/sql.js";
import { expectCoreError, withKey } from "../helpers/core-error.js";
import { newAccount, newUser } from "../helpers/ledger.js";
import { insertCharges } from "../helpers/series.js";
import { startStack, type Stack } from "../helpers/stack.js";

// Transactions and their series: the series_id and in_series filters (list, count, summary), the series
// fields of a transaction, and paging that stays consistent while transactions join and leave series.

let s: Stack;
let admin: ReturnType<typeof withKey>;
let reader: ReturnType<typeof withKey>;
let a: { id: string; shortId: string; name: string };
let b: { id: string; shortId: string };
let inA: string[];
let inB: string[];
let free: string[];

beforeAll(async () => {
  s = await startStack();
  admin = withKey(s.adminKey);
  reader = withKey(s.readKey);
  const em = s.orm.em.fork();
  const account = (await newAccount(em, (await newUser(em)).id)).id;
  const at = (day: number, amount: string) => ({
    date: `2026-03-${String(day).padStart(2, "0")}`,
    amount,
    providerName: `Shop ${day}`,
  });
  inA = await insertCharges(em, account, [at(1, "10.00"), at(2, "10.00"), at(3, "10.00")]);
  inB = await insertCharges(em, account, [at(4, "20.00"), at(5, "20.00")]);
  free = await insertCharges(em, account, [at(6, "1.00"), at(7, "2.00"), at(8, "3.00"), at(9, "4.00")]);
  a = (await s.core.series.createSeries({ name: "Series A", transactionIds: inA }, admin)).series!;
  b = (await s.core.series.createSeries({ name: "Series B", transactionIds: inB }, admin)).series!;
});
afterAll(async () => {
  await s?.close();
});

type Filter = Omit<Partial<TransactionFilter>, "$typeName">;
const list = async (filter: Filter, limit = 50, cursor = "") =>
  s.core.transactions.listTransactions({ filter, limit, cursor }, reader);
const shortIds = async (filter: Filter) => (await list(filter)).transactions.map((t) => t.shortId);

describe("transactions and series", () => {
  it("shows the series of a transaction (short id and name), or none", async () => {
    const [t] = (await list({ seriesId: a.shortId }, 1)).transactions;
    expect({ seriesId: t.seriesId, seriesName: t.seriesName }).toEqual({ seriesId: a.shortId, seriesName: "Series A" });
    const [u] = (await list({ inSeries: false }, 1)).transactions;
    expect(u.seriesId).toBeUndefined();
    expect(u.seriesName).toBeUndefined();
  });

  it("filters by series (UUID or short id) and by in_series, in list, count and summary", async () => {
    expect((await shortIds({ seriesId: a.shortId })).sort()).toEqual([...inA].sort());
    expect((await shortIds({ seriesId: b.id })).sort()).toEqual([...inB].sort());
    expect((await shortIds({ inSeries: true })).sort()).toEqual([...inA, ...inB].sort());
    expect((await shortIds({ inSeries: false })).sort()).toEqual([...free].sort());
    expect(await shortIds({ seriesId: a.id, inSeries: false })).toEqual([]);
    const count = (filter: Filter) => s.core.transactions.countTransactions({ filter }, reader).then((r) => r.count);
    expect([
      await count({ seriesId: a.id }),
      await count({ inSeries: true }),
      await count({ inSeries: false }),
    ]).toEqual([3n, 5n, 4n]);
    const summary = await s.core.transactions.summarizeTransactions({ filter: { seriesId: b.shortId } }, reader);
    expect(summary.totals).toEqual([expect.objectContaining({ isoCurrencyCode: "USD", moneyOut: "40.00", count: 2n })]);
  });

  it("an unknown series in the filter is NOT_FOUND", async () => {
    for (const seriesId of ["zzzzzzzz", "00000000-0000-0000-0000-000000000000", "nope"]) {
      await expectCoreError(list({ seriesId }), "NOT_FOUND");
      await expectCoreError(s.core.transactions.countTransactions({ filter: { seriesId } }, reader), "NOT_FOUND");
    }
  });

  it("pages stay as page 1 saw them while transactions join and leave series", async () => {
    // Newest first: free (9, 8, 7, 6), then B (5, 4), then A (3, 2, 1).
    const first = await list({ inSeries: false }, 2);
    expect(first.transactions.map((t) => t.shortId)).toEqual([free[3], free[2]]);
    // After page 1: the next free transaction joins B, and one of A leaves it.
    await s.core.series.updateSeriesTransactions({ id: b.id, add: [free[1]] }, admin);
    await s.core.series.updateSeriesTransactions({ id: a.id, remove: [inA[2]] }, admin);
    const second = await list({ inSeries: false }, 2, first.nextCursor);
    // Still the snapshot of page 1: free[1] as it was (in no series), and not the one that left A.
    expect(second.transactions.map((t) => [t.shortId, t.seriesId])).toEqual([
      [free[1], undefined],
      [free[0], undefined],
    ]);
    expect(second.hasMore).toBe(false);
    // A fresh first page sees the change.
    expect((await shortIds({ inSeries: false })).sort()).toEqual([free[0], free[2], free[3], inA[2]].sort());
  });

  it("the versions kept for paging carry the series", async () => {
    const rows = await query<{ short_id: string; series_id: string | null }>(
      s.orm.em.fork(),
      `select v.short_id, v.series_id from transaction_versions v where v.short_id = any(?::text[])
       order by v.superseded_seq`,
      [`{${inA[2]},${free[1]}}`],
    );
    expect(rows.map((r) => [r.short_id, r.series_id])).toEqual(
      expect.arrayContaining([
        [free[1], null],
        [inA[2], a.id],
      ]),
    );
  });
});
