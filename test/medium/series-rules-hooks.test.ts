import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { query } from "../../services/db/sql.js";
import type { Actor } from "../../services/ledger/actor.js";
import { assignSeries, loadSeriesConditionFields } from "../../services/series/rules-hooks.js";
import { expectCoreError, withKey } from "../helpers/core-error.js";
import { newAccount, newUser } from "../helpers/ledger.js";
import { insertCharges, seriesOf } from "../helpers/series.js";
import { startStack, type Stack } from "../helpers/stack.js";

// What the rules engine takes from series, against the database: the condition fields `series` and
// `in_series`, and the assign_series action (also the AssignSeries RPC), which fills only transactions
// that belong to no series.

let s: Stack;
let admin: ReturnType<typeof withKey>;
let usd: string;
let eur: string;
const rule: Actor = { type: "system", id: null, keyId: null, name: "rule: streaming" };

beforeAll(async () => {
  s = await startStack();
  admin = withKey(s.adminKey);
  const em = s.orm.em.fork();
  const user = await newUser(em);
  usd = (await newAccount(em, user.id)).id;
  eur = (await newAccount(em, user.id, { name: "Giro", currency: "EUR" })).id;
});
afterAll(async () => {
  await s?.close();
});

const em = () => s.orm.em.fork();
const charges = (n: number, account = usd, amount = "9.99") =>
  insertCharges(
    em(),
    account,
    Array.from({ length: n }, (_, i) => ({
      date: `2026-0${1 + i}-10`,
      amount,
      isoCurrencyCode: account === eur ? "EUR" : "USD",
      providerName: "APPLE.COM/BILL",
    })),
  );
async function uuidsOf(shortIds: string[]): Promise<string[]> {
  const rows = await query<{ id: string; short_id: string }>(
    em(),
    `select id, short_id from transactions where short_id = any(?::text[])`,
    [`{${shortIds.join(",")}}`],
  );
  const by = new Map(rows.map((r) => [r.short_id, r.id]));
  return shortIds.map((x) => by.get(x)!);
}

describe("the series condition fields", () => {
  it("series is the short id or empty; in_series says whether there is one", async () => {
    const [inOne, inNone] = await charges(2);
    const x = (await s.core.series.createSeries({ name: "Apple", transactionIds: [inOne] }, admin)).series!;
    const [u1, u2] = await uuidsOf([inOne, inNone]);
    const fields = await loadSeriesConditionFields(em(), [u1, u2, "00000000-0000-0000-0000-000000000000"]);
    expect([...fields]).toEqual(
      expect.arrayContaining([
        [u1, { series: x.shortId, in_series: true }],
        [u2, { series: "", in_series: false }],
      ]),
    );
    expect(fields.size).toBe(2);
    expect((await loadSeriesConditionFields(em(), [])).size).toBe(0);
  });
});

describe("assign_series", () => {
  it("by id fills only transactions without a series, never moving one", async () => {
    const target = (
      await s.core.series.createSeries({ name: "Target", expectedAmount: "9.99", isoCurrencyCode: "USD" }, admin)
    ).series!;
    const [a, b, c] = await charges(3);
    const other = (await s.core.series.createSeries({ name: "Other", transactionIds: [c] }, admin)).series!;
    const r = await assignSeries(em(), rule, { transactionIds: await uuidsOf([a, b, c]), seriesId: target.shortId });
    expect({ created: r.created, assigned: r.assigned.length, skipped: r.skipped }).toEqual({
      created: false,
      assigned: 2,
      skipped: await uuidsOf([c]),
    });
    expect(await seriesOf(em(), [a, b, c])).toEqual([target.shortId, target.shortId, other.shortId]);
    const [row] = await query<{ actor_name: string; details: Record<string, unknown> }>(
      em(),
      `select actor_name, details from annotations
       where transaction_id = (select id from transactions where short_id = ?)`,
      [a],
    );
    expect(row).toEqual({
      actor_name: "rule: streaming",
      details: { series_id: target.shortId, series_name: "Target" },
    });
    // Again: everything is in a series now, so nothing changes.
    const again = await assignSeries(em(), rule, { transactionIds: await uuidsOf([a, b]), seriesId: target.id });
    expect(again.assigned).toEqual([]);
  });

  it("by name finds the series case-insensitively, and creates it only when asked", async () => {
    const existing = (
      await s.core.series.createSeries({ name: "iCloud", expectedAmount: "2.99", isoCurrencyCode: "USD" }, admin)
    ).series!;
    const [a] = await charges(1);
    const found = await assignSeries(em(), rule, { transactionIds: [a], seriesName: "ICLOUD" });
    expect(found).toMatchObject({ seriesId: existing.id, created: false });
    const [b, c] = await charges(2);
    await expectCoreError(
      s.core.series.assignSeries({ transactionIds: [b], seriesName: "Apple TV" }, admin),
      "NOT_FOUND",
    );
    const made = await s.core.series.assignSeries(
      { transactionIds: [b, c], seriesName: "Apple TV", createIfMissing: true },
      admin,
    );
    expect(made).toMatchObject({ created: true, assigned: [b, c], skipped: [] });
    expect(made.series).toMatchObject({
      name: "Apple TV",
      source: "manual",
      type: "other",
      cadence: "irregular",
      expectedAmount: "9.99",
      isoCurrencyCode: "USD",
      transactionCount: 2n,
    });
    expect(made.series!.createdByName).toBe("test admin");
  });

  it("skips transactions in another currency, and creates nothing when nothing could go in", async () => {
    const [euro] = await charges(1, eur);
    // The later one gives a created series its currency and amount.
    const [dollar] = await insertCharges(em(), usd, [{ date: "2026-05-10", amount: "4.99", providerName: "X" }]);
    const r = await s.core.series.assignSeries(
      { transactionIds: [dollar, euro], seriesName: "Mixed", createIfMissing: true },
      admin,
    );
    expect(r).toMatchObject({ created: true, assigned: [dollar], skipped: [euro] });
    const taken = await s.core.series.assignSeries(
      { transactionIds: [dollar], seriesName: "Never made", createIfMissing: true },
      admin,
    );
    expect(taken).toMatchObject({ created: false, assigned: [], skipped: [dollar] });
    expect(taken.series).toBeUndefined();
    const names = (await s.core.series.listSeries({}, admin)).series.map((x) => x.name);
    expect(names).not.toContain("Never made");
  });

  it("refuses a bad target, too many ids and unknown transactions", async () => {
    const [a] = await charges(1);
    for (const [req, message] of [
      [{ transactionIds: [a] }, "give either series_id or series_name"],
      [{ transactionIds: [a], seriesId: "x", seriesName: "y" }, "give either series_id or series_name"],
      [
        { transactionIds: [a], seriesId: "x", createIfMissing: true },
        "create_if_missing goes with series_name, not series_id",
      ],
      [{ transactionIds: [], seriesName: "y" }, "transaction_ids must list at least one transaction"],
      [
        { transactionIds: Array.from({ length: 501 }, () => a), seriesName: "y" },
        "transaction_ids may list at most 500 transactions",
      ],
    ] as const) {
      const f = await expectCoreError(
        s.core.series.assignSeries({ ...req, transactionIds: [...req.transactionIds] }, admin),
        "VALIDATION_ERROR",
      );
      expect(f.message).toBe(message);
    }
    await expectCoreError(
      s.core.series.assignSeries({ transactionIds: ["zzzzzzzz"], seriesName: "y" }, admin),
      "NOT_FOUND",
    );
    await expectCoreError(
      s.core.series.assignSeries({ transactionIds: [a], seriesId: "zzzzzzzz" }, admin),
      "NOT_FOUND",
    );
  });
});
