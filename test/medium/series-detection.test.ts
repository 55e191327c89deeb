import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { SeriesProposal } from "../../gen/coffer/v1/series_pb.js";
import { query } from "../../services/db/sql.js";
import {
  detectSeriesAfterSync,
  runDailySeriesDetection,
  seriesDetectionTask,
} from "../../services/series/detection.js";
import { expectCoreError, withKey } from "../helpers/core-error.js";
import { newAccount, newUser } from "../helpers/ledger.js";
import { daysFromToday, insertCharges, monthDays, seriesOf } from "../helpers/series.js";
import { startStack, type Stack } from "../helpers/stack.js";
import { SCHEDULE } from "../../services/schedule.js";

// Detection against a real database: the dry run, applying it, extending series, rejections, the daily task.

let s: Stack;
let admin: ReturnType<typeof withKey>;
let reader: ReturnType<typeof withKey>;
let account: string;
let employer: { id: string; shortId: string };
const ids: Record<string, string[]> = {};

const q = <T = Record<string, unknown>>(sql: string, params: unknown[] = []) => query<T>(s.orm.em.fork(), sql, params);

beforeAll(async () => {
  s = await startStack();
  admin = withKey(s.adminKey);
  reader = withKey(s.readKey);
  const em = s.orm.em.fork();
  account = (await newAccount(em, (await newUser(em)).id)).id;
  const cp = (await s.core.counterparties.createCounterparty({ name: "Northwind Labs" }, admin)).counterparty!;
  employer = { id: cp.id, shortId: cp.shortId };
  const add = async (key: string, items: Parameters<typeof insertCharges>[2]) => {
    ids[key] = await insertCharges(em, account, items);
  };
  await add(
    "netflix",
    monthDays(-12, -1, 5).map((date) => ({
      date,
      amount: "15.49",
      providerName: "NETFLIX.COM",
      providerMerchantName: "Netflix",
    })),
  );
  const electricity = ["62.10", "88.40", "131.00", "179.00", "140.25", "97.60", "71.30", "66.00"];
  await add(
    "electricity",
    monthDays(-8, -1, 3).map((date, i) => ({ date, amount: electricity[i], providerName: "PGANDE WEB ONLINE" })),
  );
  await add(
    "salary",
    Array.from({ length: 20 }, (_, i) => ({
      date: daysFromToday(-3 - 14 * i),
      amount: "-2500.00",
      providerName: "NORTHWIND PAYROLL",
      counterpartyId: employer.id,
    })),
  );
  await add(
    "groceries",
    Array.from({ length: 40 }, (_, i) => ({
      date: daysFromToday(-((i * 37) % 360) - 1),
      amount: (12 + ((i * 7.31) % 150)).toFixed(2),
      providerName: "TRADER JOE S #123",
      providerMerchantName: "Trader Joe's",
    })),
  );
  await add(
    "gym",
    monthDays(-12, -1, 2).map((date) => ({
      date,
      amount: "40.00",
      providerName: "EQUINOX",
      providerMerchantName: "Equinox",
    })),
  );
  await add(
    "spotify",
    monthDays(-12, -1, 9).map((date) => ({
      date,
      amount: "11.99",
      providerName: "SPOTIFY",
      providerMerchantName: "Spotify",
    })),
  );
  await add(
    "pending",
    monthDays(-13, -2, 20).map((date) => ({ date, amount: "7.00", providerName: "PENDING CO", pending: true })),
  );
});
afterAll(async () => {
  await s?.close();
});

const detect = async (minConfidence?: number) =>
  (await s.core.series.detectSeries({ minConfidence }, reader)).proposals;
const byName = (ps: SeriesProposal[], name: string) => ps.find((p) => p.name === name);

describe("series detection", () => {
  it("proposes the series in the history without writing anything", async () => {
    const before = await q<{ n: number }>(`select count(*)::int as n from annotations`);
    const proposals = await detect();
    expect(proposals.map((p) => p.name).sort()).toEqual([
      "Equinox",
      "Netflix",
      "Northwind Labs",
      "PGANDE WEB ONLINE",
      "Spotify",
    ]);
    expect(byName(proposals, "Netflix")).toMatchObject({
      type: "subscription",
      cadence: "monthly",
      expectedAmount: "15.49",
      amountTolerance: "0.00",
      isoCurrencyCode: "USD",
      status: "active",
      confidence: 1,
      transactionIds: ids.netflix,
      unlinkedCount: 12n,
    });
    expect(byName(proposals, "Netflix")!.reason).toMatch(
      /^12 charges, monthly on day 5, 15\.49 USD, last \d{4}-\d\d-05$/,
    );
    expect(byName(proposals, "Netflix")!.seriesId).toBeUndefined();
    expect(byName(proposals, "Northwind Labs")).toMatchObject({
      type: "income",
      cadence: "biweekly",
      counterpartyId: employer.shortId,
      counterpartyName: "Northwind Labs",
      expectedAmount: "-2500.00",
    });
    expect(byName(proposals, "PGANDE WEB ONLINE")).toMatchObject({
      type: "bill",
      expectedAmount: "97.60",
      amountTolerance: "81.40",
    });
    expect((await q<{ n: number }>(`select count(*)::int as n from series`))[0].n).toBe(0);
    expect((await q<{ n: number }>(`select count(*)::int as n from series_detection_runs`))[0].n).toBe(0);
    expect(await q(`select count(*)::int as n from annotations`)).toEqual(before);
    expect(await seriesOf(s.orm.em.fork(), ids.netflix)).toEqual(ids.netflix.map(() => null));
  });

  it("leaves out proposals below min_confidence; refuses a min_confidence outside 0-1", async () => {
    const all = await detect();
    const strong = await detect(0.95);
    expect(strong.length).toBeLessThan(all.length);
    expect(strong.every((p) => p.confidence >= 0.95)).toBe(true);
    const f = await expectCoreError(s.core.series.detectSeries({ minConfidence: 1.5 }, reader), "VALIDATION_ERROR");
    expect(f.message).toBe("min_confidence must be between 0 and 1");
  });

  it("never moves a transaction: a proposal touching a series extends it, one touching two is left out", async () => {
    const mine = (await s.core.series.createSeries({ name: "My gym", transactionIds: ids.gym.slice(0, 3) }, admin))
      .series!;
    await s.core.series.createSeries({ name: "Spotify A", transactionIds: ids.spotify.slice(0, 2) }, admin);
    await s.core.series.createSeries({ name: "Spotify B", transactionIds: ids.spotify.slice(2, 4) }, admin);
    const proposals = await detect();
    expect(byName(proposals, "Spotify")).toBeUndefined();
    expect(byName(proposals, "Equinox")).toMatchObject({
      seriesId: mine.shortId,
      seriesName: "My gym",
      unlinkedCount: 9n,
    });
  });

  it("apply creates the proposed series, extends the touched one, links, annotates and records the run", async () => {
    const r = await s.core.series.applySeriesDetection({ minConfidence: 0.7 }, admin);
    expect(r.created.map((x) => x.name).sort()).toEqual(["Netflix", "Northwind Labs", "PGANDE WEB ONLINE"]);
    expect(r.extended.map((x) => x.name)).toEqual(["My gym"]);
    expect(r.transactionsLinked).toBe(BigInt(12 + 20 + 8 + 9));
    const netflix = r.created.find((x) => x.name === "Netflix")!;
    expect(netflix).toMatchObject({
      source: "detected",
      type: "subscription",
      cadence: "monthly",
      confidence: 1,
      status: "active",
      transactionCount: 12n,
      lastSeenDate: monthDays(-1, -1, 5)[0],
      nextExpectedDate: monthDays(0, 0, 5)[0],
      createdByName: "test admin",
    });
    expect(netflix.reason).toMatch(/^12 charges, monthly on day 5/);
    expect(await seriesOf(s.orm.em.fork(), ids.netflix)).toEqual(ids.netflix.map(() => netflix.shortId));
    expect(new Set(await seriesOf(s.orm.em.fork(), ids.gym))).toEqual(new Set([r.extended[0].shortId]));
    expect(await seriesOf(s.orm.em.fork(), ids.groceries)).toEqual(ids.groceries.map(() => null));
    const [key] = await q<{ detection_key: string }>(`select detection_key from series where id = ?`, [netflix.id]);
    expect(key.detection_key).toBe("name:netflix|USD|out");
    expect(
      await q(
        `select trigger, proposals, series_created, series_extended, transactions_linked from series_detection_runs`,
      ),
    ).toEqual([{ trigger: "api", proposals: 4, series_created: 3, series_extended: 1, transactions_linked: 49 }]);
    expect(await detect()).toEqual([]);
  });

  it("a new charge of an active series is proposed as an extension; a paused series is left alone", async () => {
    // This month's charge (dated ahead when the 5th is still to come: only its place in the schedule matters).
    const [next] = await insertCharges(s.orm.em.fork(), account, [
      { date: monthDays(0, 0, 5)[0], amount: "15.49", providerName: "NETFLIX.COM", providerMerchantName: "Netflix" },
    ]);
    const [proposal] = await detect();
    const netflix = (await s.core.series.listSeries({}, reader)).series.find((x) => x.name === "Netflix")!;
    expect(proposal).toMatchObject({ seriesId: netflix.shortId, unlinkedCount: 1n });
    await s.core.series.updateSeries({ id: netflix.id, status: "paused" }, admin);
    expect(await detect()).toEqual([]);
    await s.core.series.updateSeries({ id: netflix.id, status: "active" }, admin);
    const r = await s.core.series.applySeriesDetection({}, admin);
    expect(r.created).toEqual([]);
    expect(r.extended.map((x) => [x.name, x.transactionCount, x.lastSeenDate])).toEqual([
      ["Netflix", 13n, monthDays(0, 0, 5)[0]],
    ]);
    expect(r.extended[0].nextExpectedDate).toBe(monthDays(1, 1, 5)[0]);
    expect(await seriesOf(s.orm.em.fork(), [next])).toEqual([netflix.shortId]);
  });

  it("never re-creates a series a person deleted", async () => {
    const pge = (await s.core.series.listSeries({}, reader)).series.find((x) => x.name === "PGANDE WEB ONLINE")!;
    await s.core.series.deleteSeries({ id: pge.id }, admin);
    expect(byName(await detect(), "PGANDE WEB ONLINE")).toBeUndefined();
    const r = await s.core.series.applySeriesDetection({ minConfidence: 0 }, admin);
    expect(r.created.map((x) => x.name)).not.toContain("PGANDE WEB ONLINE");
    expect(await seriesOf(s.orm.em.fork(), ids.electricity)).toEqual(ids.electricity.map(() => null));
  });

  it("never proposes a rejected proposal again; a fingerprint it did not give is refused", async () => {
    await insertCharges(
      s.orm.em.fork(),
      account,
      monthDays(-6, -1, 12).map((date) => ({ date, amount: "95.40", providerName: "VERIZON WIRELESS" })),
    );
    const verizon = byName(await detect(), "VERIZON WIRELESS")!;
    expect(verizon).toBeDefined();
    await s.core.series.rejectSeriesProposal({ fingerprint: verizon.fingerprint }, admin);
    expect(byName(await detect(), "VERIZON WIRELESS")).toBeUndefined();
    const r = await s.core.series.applySeriesDetection({ minConfidence: 0 }, admin);
    expect(r.created.map((x) => x.name)).not.toContain("VERIZON WIRELESS");
    const [rejection] = await q(`select cause, amount_min::text as lo, amount_max::text as hi from series_rejections
      where detection_key = 'name:verizon wireless|USD|out'`);
    expect(rejection).toEqual({ cause: "rejected", lo: "95.40", hi: "95.40" });
    for (const fingerprint of ["", "nope", Buffer.from('{"k":"x","lo":1,"hi":2}').toString("base64url")]) {
      const f = await expectCoreError(s.core.series.rejectSeriesProposal({ fingerprint }, admin), "VALIDATION_ERROR");
      expect(f.message).toBe("fingerprint is not one that series detection returned");
    }
  });

  it("pending transactions are not part of the history", async () => {
    const all = await detect(0);
    expect(all.some((p) => p.name === "PENDING CO")).toBe(false);
  });
});

describe("automatic detection", () => {
  it("runs daily when due, as the system, and counts a run after a sync as the day's", async () => {
    await q(`delete from series_detection_runs`);
    await insertCharges(
      s.orm.em.fork(),
      account,
      monthDays(-7, -1, 16).map((date) => ({ date, amount: "19.99", providerName: "DIE ZEIT DIGITAL" })),
    );
    const now = new Date();
    const first = await runDailySeriesDetection(s.orm.em.fork(), now);
    expect(first).not.toBeNull();
    expect(first!.created).toHaveLength(1);
    const [zeit] = await q<{ created_by_type: string; created_by_name: string; created_by_id: string | null }>(
      `select created_by_type, created_by_name, created_by_id from series where id = ?`,
      [first!.created[0]],
    );
    expect(zeit).toEqual({ created_by_type: "system", created_by_name: "series detection", created_by_id: null });
    expect(await runDailySeriesDetection(s.orm.em.fork(), new Date(now.getTime() + 23 * 3600_000))).toBeNull();
    const later = await runDailySeriesDetection(s.orm.em.fork(), new Date(now.getTime() + 24 * 3600_000));
    expect(later).toMatchObject({ created: [], extended: [], linked: 0 });

    await q(`delete from series_detection_runs`);
    const afterSync = await detectSeriesAfterSync(s.orm.em.fork());
    expect(afterSync.created).toEqual([]);
    expect(await runDailySeriesDetection(s.orm.em.fork())).toBeNull();
    expect((await q(`select trigger from series_detection_runs order by finished_at`)).map((r) => r.trigger)).toEqual([
      "sync",
    ]);
  });

  it("is a periodic task of the core that checks hourly", () => {
    const { queue, name } = seriesDetectionTask;
    expect({ queue, name, cron: SCHEDULE[queue] }).toEqual({
      queue: "coffer-series-detection",
      name: "daily series detection",
      cron: "10 * * * *",
    });
  });
});
