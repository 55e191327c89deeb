import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { pgArray, query } from "../../services/db/sql.js";
import { expectCoreError, withKey } from "../helpers/core-error.js";
import { newAccount, newTransactions, newUser } from "../helpers/ledger.js";
import { startStack, type Stack } from "../helpers/stack.js";

// SeriesService records and their transactions, through the real core, checked against the database.

let s: Stack;
let admin: ReturnType<typeof withKey>;
let reader: ReturnType<typeof withKey>;
let usd: string;
let eur: string;

beforeAll(async () => {
  s = await startStack();
  admin = withKey(s.adminKey);
  reader = withKey(s.readKey);
  const em = s.orm.em.fork();
  const user = await newUser(em, "Ann");
  usd = (await newAccount(em, user.id)).id;
  eur = (await newAccount(em, user.id, { name: "Giro", currency: "EUR" })).id;
});
afterAll(async () => {
  await s?.close();
});

let n = 0;
const uniq = (base: string) => `${base} ${++n}`;

/** Transactions on the given dates (USD unless the EUR account is asked for); returns their short ids. */
async function charges(dates: string[], amount = "15.49", account = usd): Promise<string[]> {
  const em = s.orm.em.fork();
  const currency = account === eur ? "EUR" : "USD";
  const ids = await newTransactions(
    em,
    account,
    dates.map((date) => ({ date, amount, isoCurrencyCode: currency, providerName: "NETFLIX.COM" })),
  );
  const rows = await query<{ id: string; short_id: string }>(
    em,
    `select id, short_id from transactions where id = any(?::uuid[])`,
    [pgArray(ids)],
  );
  const byId = new Map(rows.map((r) => [r.id, r.short_id]));
  return ids.map((id) => byId.get(id)!);
}

async function seriesOfTransactions(shortIds: string[]): Promise<(string | null)[]> {
  const rows = await query<{ short_id: string; series: string | null }>(
    s.orm.em.fork(),
    `select t.short_id, s.short_id as series from transactions t left join series s on s.id = t.series_id
     where t.short_id = any(?::text[])`,
    [pgArray(shortIds)],
  );
  const by = new Map(rows.map((r) => [r.short_id, r.series]));
  return shortIds.map((id) => by.get(id) ?? null);
}

async function annotationsFor(entityId: string) {
  return query<{ action: string; entity_type: string; actor_name: string; details: Record<string, unknown> }>(
    s.orm.em.fork(),
    `select action, entity_type, actor_name, details from annotations where entity_id = ? order by created_at, id`,
    [entityId],
  );
}

const create = (req: Parameters<Stack["core"]["series"]["createSeries"]>[0]) =>
  s.core.series.createSeries(req, admin).then((r) => r.series!);

describe("SeriesService: records", () => {
  it("creates a manual series with its defaults, and annotates it", async () => {
    const x = await create({ name: "  Gym  ", expectedAmount: "40", isoCurrencyCode: "usd" });
    expect(x).toMatchObject({
      name: "Gym",
      type: "other",
      cadence: "irregular",
      expectedAmount: "40.00",
      amountTolerance: "0.00",
      isoCurrencyCode: "USD",
      status: "active",
      source: "manual",
      transactionCount: 0n,
      createdByType: "user",
      createdByName: "test admin",
    });
    expect(x.confidence).toBeUndefined();
    expect(x.lastSeenDate).toBeUndefined();
    expect(x.nextExpectedDate).toBeUndefined();
    expect(await annotationsFor(x.id)).toEqual([
      {
        action: "created",
        entity_type: "series",
        actor_name: "test admin",
        details: { name: "Gym", source: "manual", type: "other", cadence: "irregular" },
      },
    ]);
  });

  it("takes currency and amount from its transactions, links them, and computes the next date", async () => {
    const ids = await charges(["2025-01-31", "2025-02-28", "2025-03-31"]);
    const x = await create({ name: uniq("Netflix"), type: "subscription", cadence: "monthly", transactionIds: ids });
    expect(x).toMatchObject({
      expectedAmount: "15.49",
      isoCurrencyCode: "USD",
      transactionCount: 3n,
      lastSeenDate: "2025-03-31",
      nextExpectedDate: "2025-04-30",
    });
    expect(await seriesOfTransactions(ids)).toEqual([x.shortId, x.shortId, x.shortId]);
    const t = (await s.core.transactions.getTransaction({ id: ids[0] }, reader)).transaction!;
    expect({ seriesId: t.seriesId, seriesName: t.seriesName }).toEqual({ seriesId: x.shortId, seriesName: x.name });
    const [row] = await query<{ id: string }>(s.orm.em.fork(), `select id from transactions where short_id = ?`, [
      ids[1],
    ]);
    expect((await annotationsFor(row.id)).map((a) => [a.action, a.details])).toEqual([
      ["series_assigned", { series_id: x.shortId, series_name: x.name }],
    ]);
  });

  it("keeps a next expected date given on creation", async () => {
    const ids = await charges(["2025-05-05"]);
    const x = await create({
      name: uniq("N"),
      cadence: "monthly",
      nextExpectedDate: "2025-07-01",
      transactionIds: ids,
    });
    expect(x.nextExpectedDate).toBe("2025-07-01");
  });

  it.each<[string, Parameters<typeof create>[0], "VALIDATION_ERROR" | "NOT_FOUND", RegExp]>([
    [
      "an unknown type",
      { name: "x", type: "hobby", expectedAmount: "1", isoCurrencyCode: "USD" },
      "VALIDATION_ERROR",
      /^type must be one of subscription, bill/,
    ],
    [
      "an unknown cadence",
      { name: "x", cadence: "daily", expectedAmount: "1", isoCurrencyCode: "USD" },
      "VALIDATION_ERROR",
      /^cadence must be one of weekly/,
    ],
    [
      "an unknown status",
      { name: "x", status: "gone", expectedAmount: "1", isoCurrencyCode: "USD" },
      "VALIDATION_ERROR",
      /^status must be one of active, paused, ended$/,
    ],
    [
      "a negative tolerance",
      { name: "x", amountTolerance: "-0.01", expectedAmount: "1", isoCurrencyCode: "USD" },
      "VALIDATION_ERROR",
      /^amount_tolerance must not be negative$/,
    ],
    ["no name", { name: " ", expectedAmount: "1", isoCurrencyCode: "USD" }, "VALIDATION_ERROR", /^name is required$/],
    [
      "no currency and no transactions",
      { name: "x", expectedAmount: "1" },
      "VALIDATION_ERROR",
      /^iso_currency_code is required/,
    ],
    [
      "no amount and no transactions",
      { name: "x", isoCurrencyCode: "USD" },
      "VALIDATION_ERROR",
      /^expected_amount is required/,
    ],
    [
      "a bad amount",
      { name: "x", expectedAmount: "1.234", isoCurrencyCode: "USD" },
      "VALIDATION_ERROR",
      /^expected_amount must be/,
    ],
    [
      "a bad date",
      { name: "x", expectedAmount: "1", isoCurrencyCode: "USD", nextExpectedDate: "2025-02-30" },
      "VALIDATION_ERROR",
      /^next_expected_date/,
    ],
    [
      "an unknown counterparty",
      { name: "x", expectedAmount: "1", isoCurrencyCode: "USD", counterpartyId: "zzzzzzzz" },
      "NOT_FOUND",
      /Counterparty/,
    ],
    [
      "more than 500 transactions",
      { name: "x", transactionIds: Array.from({ length: 501 }, () => "zzzzzzzz") },
      "VALIDATION_ERROR",
      /^transaction_ids may list at most 500/,
    ],
  ])("create refuses %s, naming the field", async (_what, req, code, message) => {
    const f = await expectCoreError(s.core.series.createSeries(req, admin), code);
    expect(f.message).toMatch(message);
  });

  it("create refuses a currency that does not match its transactions, and transactions in a series", async () => {
    const ids = await charges(["2025-06-01"], "9.00", eur);
    const f = await expectCoreError(
      s.core.series.createSeries({ name: "x", isoCurrencyCode: "USD", transactionIds: ids }, admin),
      "VALIDATION_ERROR",
    );
    expect(f.message).toMatch(/^iso_currency_code: transaction "\w{8}" is in EUR, the series in USD$/);
    const mixed = [...ids, ...(await charges(["2025-06-02"], "9.00"))];
    await expectCoreError(s.core.series.createSeries({ name: "x", transactionIds: mixed }, admin), "VALIDATION_ERROR");
    await create({ name: uniq("Holder"), transactionIds: ids });
    const f2 = await expectCoreError(s.core.series.createSeries({ name: "y", transactionIds: ids }, admin), "CONFLICT");
    expect(f2.message).toMatch(/already belongs to a series/);
  });

  it("gets by UUID or short id; an unknown or malformed id is NOT_FOUND", async () => {
    const x = await create({ name: uniq("Rent"), expectedAmount: "3150", isoCurrencyCode: "USD" });
    for (const id of [x.id, x.shortId]) expect((await s.core.series.getSeries({ id }, reader)).series!.id).toBe(x.id);
    for (const id of ["zzzzzzzz", "00000000-0000-0000-0000-000000000000", "nope", ""]) {
      await expectCoreError(s.core.series.getSeries({ id }, reader), "NOT_FOUND");
      await expectCoreError(s.core.series.updateSeries({ id, name: "x" }, admin), "NOT_FOUND");
      await expectCoreError(s.core.series.deleteSeries({ id }, admin), "NOT_FOUND");
    }
  });

  it("lists series by name, filtered by status and type; an unknown filter value is INVALID_PARAMETER", async () => {
    const tag = uniq("zz-list");
    const a = await create({ name: `${tag} a`, type: "bill", expectedAmount: "1", isoCurrencyCode: "USD" });
    const b = await create({
      name: `${tag} b`,
      type: "income",
      status: "paused",
      expectedAmount: "-1",
      isoCurrencyCode: "USD",
    });
    const names = async (req: { status?: string; type?: string }) =>
      (await s.core.series.listSeries(req, reader)).series.map((x) => x.name).filter((x) => x.startsWith(tag));
    expect(await names({})).toEqual([a.name, b.name]);
    expect(await names({ status: "paused" })).toEqual([b.name]);
    expect(await names({ type: "bill" })).toEqual([a.name]);
    expect(await names({ status: "active", type: "income" })).toEqual([]);
    const f = await expectCoreError(s.core.series.listSeries({ status: "gone" }, reader), "INVALID_PARAMETER");
    expect(f.message).toMatch(/^status must be one of/);
    await expectCoreError(s.core.series.listSeries({ type: "hobby" }, reader), "INVALID_PARAMETER");
  });

  it("updates what is given, annotating the changes (none: no annotation)", async () => {
    const cp = (await s.core.counterparties.createCounterparty({ name: uniq("Acme") }, admin)).counterparty!;
    const x = await create({ name: uniq("Phone"), expectedAmount: "95.40", isoCurrencyCode: "USD" });
    const u = (
      await s.core.series.updateSeries(
        { id: x.shortId, type: "bill", amountTolerance: "5", counterpartyId: cp.shortId, status: "paused" },
        admin,
      )
    ).series!;
    expect(u).toMatchObject({
      type: "bill",
      amountTolerance: "5.00",
      counterpartyId: cp.shortId,
      counterpartyName: cp.name,
      status: "paused",
    });
    await s.core.series.updateSeries({ id: x.id, expectedAmount: "95.4", type: "bill" }, admin);
    const cleared = (await s.core.series.updateSeries({ id: x.id, counterpartyId: "" }, admin)).series!;
    expect(cleared.counterpartyId).toBeUndefined();
    const notes = await annotationsFor(x.id);
    expect(notes.map((a) => a.action)).toEqual(["created", "updated", "updated"]);
    expect(notes[1].details).toEqual({
      changes: {
        type: { from: "other", to: "bill" },
        amount_tolerance: { from: "0.00", to: "5.00" },
        counterparty_id: { from: null, to: cp.shortId },
        status: { from: "active", to: "paused" },
      },
    });
    expect(notes[2].details).toEqual({ changes: { counterparty_id: { from: cp.shortId, to: null } } });
  });

  it("update refuses bad values and a currency its transactions are not in", async () => {
    const ids = await charges(["2025-07-01"]);
    const x = await create({ name: uniq("Cur"), transactionIds: ids });
    for (const [req, message] of [
      [{ type: "hobby" }, /^type must be one of/],
      [{ cadence: "daily" }, /^cadence must be one of/],
      [{ status: "gone" }, /^status must be one of/],
      [{ amountTolerance: "-1" }, /^amount_tolerance must not be negative$/],
      [{ isoCurrencyCode: "EUR" }, /^iso_currency_code EUR does not match the series' transactions \(USD\)$/],
    ] as const) {
      const f = await expectCoreError(s.core.series.updateSeries({ id: x.id, ...req }, admin), "VALIDATION_ERROR");
      expect(f.message).toMatch(message);
    }
    const empty = await create({ name: uniq("Empty"), expectedAmount: "1", isoCurrencyCode: "USD" });
    expect((await s.core.series.updateSeries({ id: empty.id, isoCurrencyCode: "EUR" }, admin)).series!).toMatchObject({
      isoCurrencyCode: "EUR",
    });
  });

  it("a new cadence moves the next expected date; a given date stays, and null clears it", async () => {
    const ids = await charges(["2025-08-10", "2025-09-10"]);
    const x = await create({ name: uniq("Cad"), cadence: "monthly", transactionIds: ids });
    expect(x.nextExpectedDate).toBe("2025-10-10");
    const q = (await s.core.series.updateSeries({ id: x.id, cadence: "quarterly" }, admin)).series!;
    expect(q.nextExpectedDate).toBe("2025-12-10");
    const set = (await s.core.series.updateSeries({ id: x.id, nextExpectedDate: "2026-01-02" }, admin)).series!;
    expect(set.nextExpectedDate).toBe("2026-01-02");
    const none = (await s.core.series.updateSeries({ id: x.id, nextExpectedDate: "" }, admin)).series!;
    expect(none.nextExpectedDate).toBeUndefined();
    await s.core.series.updateSeries({ id: x.id, nextExpectedDate: "2026-01-02" }, admin);
    await s.core.series.updateSeries({ id: x.id, nextExpectedDate: "2026-01-02", cadence: "quarterly" }, admin);
    const dates = (await annotationsFor(x.id)).slice(1).map((a) => a.details.changes);
    expect(dates).toEqual([
      { cadence: { from: "monthly", to: "quarterly" } },
      { next_expected_date: { from: "2025-12-10", to: "2026-01-02" } },
      { next_expected_date: { from: "2026-01-02", to: null } },
      { next_expected_date: { from: null, to: "2026-01-02" } },
    ]);
  });

  it("delete keeps the transactions (in no series, annotated) and remembers the rejection", async () => {
    const ids = await charges(["2025-10-03", "2025-11-03"], "20.00");
    const x = await create({ name: uniq("Gone"), transactionIds: ids });
    await s.core.series.deleteSeries({ id: x.shortId }, admin);
    await expectCoreError(s.core.series.getSeries({ id: x.id }, reader), "NOT_FOUND");
    expect(await seriesOfTransactions(ids)).toEqual([null, null]);
    const [t] = await query<{ id: string }>(s.orm.em.fork(), `select id from transactions where short_id = ?`, [
      ids[0],
    ]);
    expect((await annotationsFor(t.id)).map((a) => [a.action, a.details])).toEqual([
      ["series_assigned", { series_id: x.shortId, series_name: x.name }],
      ["series_unassigned", { series_id: x.shortId, series_name: x.name, series_deleted: true }],
    ]);
    expect((await annotationsFor(x.id)).map((a) => a.action)).toEqual(["created", "deleted"]);
    const [rejection] = await query<{ cause: string; lo: string; hi: string; n: number; name: string }>(
      s.orm.em.fork(),
      `select cause, amount_min::text as lo, amount_max::text as hi, cardinality(transaction_ids) as n,
         series_name as name
       from series_rejections where series_name = ?`,
      [x.name],
    );
    expect(rejection).toEqual({ cause: "deleted", lo: "20.00", hi: "20.00", n: 2, name: x.name });
  });

  it("reads need any key; writes need full_access", async () => {
    const x = await create({ name: uniq("Scoped"), expectedAmount: "1", isoCurrencyCode: "USD" });
    await s.core.series.listSeries({}, reader);
    await s.core.series.listUpcomingCharges({}, reader);
    await s.core.series.detectSeries({}, reader);
    for (const call of [
      () => s.core.series.createSeries({ name: "x", expectedAmount: "1", isoCurrencyCode: "USD" }, reader),
      () => s.core.series.updateSeries({ id: x.id, name: "y" }, reader),
      () => s.core.series.deleteSeries({ id: x.id }, reader),
      () => s.core.series.updateSeriesTransactions({ id: x.id, add: ["zzzzzzzz"] }, reader),
      () => s.core.series.assignSeries({ transactionIds: ["zzzzzzzz"], seriesId: x.id }, reader),
      () => s.core.series.applySeriesDetection({}, reader),
      () => s.core.series.rejectSeriesProposal({ fingerprint: "x" }, reader),
    ]) {
      await expectCoreError(call(), "INSUFFICIENT_SCOPE");
    }
  });
});

describe("SeriesService: adding and removing transactions", () => {
  it("adds and removes, updates the last date, and annotates each transaction", async () => {
    const x = await create({
      name: uniq("Spotify"),
      cadence: "monthly",
      expectedAmount: "11.99",
      isoCurrencyCode: "USD",
    });
    const ids = await charges(["2025-01-09", "2025-02-09", "2025-03-09"], "11.99");
    const r = await s.core.series.updateSeriesTransactions({ id: x.id, add: ids }, admin);
    expect({ added: r.added, removed: r.removed }).toEqual({ added: 3n, removed: 0n });
    expect(r.series).toMatchObject({
      transactionCount: 3n,
      lastSeenDate: "2025-03-09",
      nextExpectedDate: "2025-04-09",
    });
    const again = await s.core.series.updateSeriesTransactions({ id: x.id, add: [ids[0]], remove: [ids[2]] }, admin);
    expect({ added: again.added, removed: again.removed }).toEqual({ added: 0n, removed: 1n });
    expect(again.series).toMatchObject({ transactionCount: 2n, lastSeenDate: "2025-02-09" });
    expect(await seriesOfTransactions(ids)).toEqual([x.shortId, x.shortId, null]);
  });

  it("refuses, changing nothing: an id of another series in remove, one in another series in add", async () => {
    const mine = await charges(["2025-04-01"], "5.00");
    const theirs = await charges(["2025-04-02"], "5.00");
    const x = await create({ name: uniq("Mine"), transactionIds: mine });
    const y = await create({ name: uniq("Theirs"), transactionIds: theirs });
    const f = await expectCoreError(
      s.core.series.updateSeriesTransactions({ id: x.id, remove: [theirs[0]] }, admin),
      "VALIDATION_ERROR",
    );
    expect(f.message).toBe(`remove: transaction "${theirs[0]}" does not belong to this series`);
    const fresh = await charges(["2025-04-03"], "5.00");
    const g = await expectCoreError(
      s.core.series.updateSeriesTransactions({ id: x.id, add: [fresh[0], theirs[0]] }, admin),
      "CONFLICT",
    );
    expect(g.message).toMatch(/^add: transaction "\w{8}" belongs to another series/);
    expect(await seriesOfTransactions([...mine, ...theirs, ...fresh])).toEqual([x.shortId, y.shortId, null]);
  });

  it("refuses a transaction in another currency, more than 500 ids, none, and the same id twice", async () => {
    const x = await create({ name: uniq("Limits"), expectedAmount: "1", isoCurrencyCode: "USD" });
    const [euro] = await charges(["2025-04-04"], "1.00", eur);
    const f = await expectCoreError(
      s.core.series.updateSeriesTransactions({ id: x.id, add: [euro] }, admin),
      "VALIDATION_ERROR",
    );
    expect(f.message).toBe(`add: transaction "${euro}" is in EUR, the series in USD`);
    const many = Array.from({ length: 250 }, () => "zzzzzzzz");
    const g = await expectCoreError(
      s.core.series.updateSeriesTransactions({ id: x.id, add: many, remove: [...many, "zzzzzzzz"] }, admin),
      "VALIDATION_ERROR",
    );
    expect(g.message).toBe("add and remove may list at most 500 transactions together");
    await expectCoreError(s.core.series.updateSeriesTransactions({ id: x.id }, admin), "VALIDATION_ERROR");
    const [usdTx] = await charges(["2025-04-05"], "1.00");
    await expectCoreError(
      s.core.series.updateSeriesTransactions({ id: x.id, add: [usdTx], remove: [usdTx] }, admin),
      "VALIDATION_ERROR",
    );
    await expectCoreError(s.core.series.updateSeriesTransactions({ id: x.id, add: ["zzzzzzzz"] }, admin), "NOT_FOUND");
  });
});
