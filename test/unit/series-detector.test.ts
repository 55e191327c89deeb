import { describe, expect, it } from "vitest";
import {
  detectSeries,
  fingerprintOf,
  parseFingerprint,
  type DetectorTransaction,
  type Proposal,
} from "../../services/series/detector/detect.js";
import { dayOf, isoOf } from "../../common/days.js";

// Made-up histories, each a table row: what the history is, and what the detector must make of it.

const TODAY = "2026-01-10";
let seq = 0;

/** One transaction; by default a Netflix charge in USD. */
function tx(date: string, amount: string, o: Partial<DetectorTransaction> = {}): DetectorTransaction {
  return {
    id: `t${++seq}`,
    date,
    amount,
    currency: "USD",
    counterpartyId: null,
    counterpartyName: null,
    merchantName: "Netflix",
    name: "NETFLIX.COM",
    categoryDetailed: null,
    ...o,
  };
}

/** The same day of `count` consecutive months from `first` (YYYY-MM), clamped to short months. */
function monthly(first: string, count: number, dom: number): string[] {
  const [y, m] = first.split("-").map(Number);
  return Array.from({ length: count }, (_, i) => {
    const month = m - 1 + i;
    const last = new Date(Date.UTC(y, month + 1, 0)).getUTCDate();
    return new Date(Date.UTC(y, month, Math.min(dom, last))).toISOString().slice(0, 10);
  });
}

/** `count` dates `step` days apart from `first`. */
const every = (first: string, step: number, count: number) =>
  Array.from({ length: count }, (_, i) => isoOf(dayOf(first) + i * step));

/** A deterministic PRNG (mulberry32), so the noise is the same on every run. */
function rng(seed: number) {
  let a = seed;
  return () => {
    a = (a + 0x6d2b79f5) | 0;
    let t = Math.imul(a ^ (a >>> 15), 1 | a);
    t = (t + Math.imul(t ^ (t >>> 7), 61 | t)) ^ t;
    return ((t ^ (t >>> 14)) >>> 0) / 4294967296;
  };
}

/** `count` purchases on random days of 2025 with random amounts between min and max (whole cents). */
function noise(count: number, min: number, max: number, seed: number, o: Partial<DetectorTransaction> = {}) {
  const r = rng(seed);
  return Array.from({ length: count }, () => {
    const date = isoOf(dayOf("2025-01-01") + Math.floor(r() * 365));
    const cents = min * 100 + Math.floor(r() * (max - min) * 100);
    return tx(date, (cents / 100).toFixed(2), o);
  });
}

const detect = (history: DetectorTransaction[], today = TODAY) => detectSeries(history, { today });

/** The proposal holding exactly these transactions. */
function only(proposals: Proposal[]): Proposal {
  expect(proposals).toHaveLength(1);
  return proposals[0];
}

describe("detectSeries: cadences", () => {
  it("finds a monthly charge on the 31st, which falls on the last day of shorter months", () => {
    const history = monthly("2025-01", 12, 31).map((d) => tx(d, "15.49"));
    expect(history.map((t) => t.date).slice(0, 4)).toEqual(["2025-01-31", "2025-02-28", "2025-03-31", "2025-04-30"]);
    const p = only(detect(history));
    expect(p).toMatchObject({
      cadence: "monthly",
      expectedCents: 1549,
      toleranceCents: 0,
      status: "active",
      nextExpectedDate: "2026-01-31",
      confidence: 1,
      reason: "12 charges, monthly at month end, 15.49 USD, last 2025-12-31",
    });
    expect(p.transactionIds).toEqual(history.map((t) => t.id));
  });

  it("finds a charge on the last business day of each month (weekends move it back)", () => {
    const dates = monthly("2025-01", 12, 31).map((d) => {
      const weekday = new Date(`${d}T00:00:00Z`).getUTCDay();
      return isoOf(dayOf(d) - (weekday === 6 ? 1 : weekday === 0 ? 2 : 0));
    });
    expect(dates).toContain("2025-05-30"); // May 31st 2025 was a Saturday
    const p = only(detect(dates.map((d) => tx(d, "49.00"))));
    expect(p.cadence).toBe("monthly");
    expect(p.transactionIds).toHaveLength(12);
    expect(p.reason).toMatch(/^12 charges, monthly at month end±[12], 49\.00 USD, last 2025-12-31$/);
  });

  it("allows a few days of jitter around the day of the month", () => {
    const shifts = [0, 2, -1, 3, 1, -3, 0, 2, -2, 1];
    const dates = monthly("2025-02", 10, 10).map((d, i) => isoOf(dayOf(d) + shifts[i]));
    const p = only(detect(dates.map((d) => tx(d, "79.99", { merchantName: "Xfinity" }))));
    expect(p).toMatchObject({ cadence: "monthly", name: "Xfinity" });
    expect(p.transactionIds).toHaveLength(10);
    expect(p.reason).toBe("10 charges, monthly on day 10±3, 79.99 USD, last 2025-11-11");
    expect(p.confidence).toBe(0.95);
  });

  it("finds a yearly charge", () => {
    const history = ["2023-03-21", "2024-03-20", "2025-03-21"].map((d) => tx(d, "99.00", { merchantName: "Costco" }));
    const p = only(detect(history));
    expect(p).toMatchObject({
      cadence: "yearly",
      type: "subscription",
      nextExpectedDate: "2026-03-21",
      reason: "3 charges, yearly on 21 Mar±1, 99.00 USD, last 2025-03-21",
      status: "active",
    });
  });

  it("finds biweekly paydays as income, grouped by counterparty whatever the bank's text", () => {
    const history = every("2025-01-03", 14, 26).map((d, i) =>
      tx(d, "-2500.00", {
        counterpartyId: "cp-employer",
        counterpartyName: "Northwind Labs",
        merchantName: null,
        name: i % 2 ? "NORTHWIND PAYROLL" : "NWL PAYROLL PPD",
        categoryDetailed: "INCOME_WAGES",
      }),
    );
    const p = only(detect(history));
    expect(p).toMatchObject({
      cadence: "biweekly",
      type: "income",
      name: "Northwind Labs",
      counterpartyId: "cp-employer",
      expectedCents: -250000,
      nextExpectedDate: "2026-01-02",
      reason: "26 deposits, biweekly on Friday, -2500.00 USD, last 2025-12-19",
    });
  });

  it("finds a weekly charge", () => {
    const p = only(detect(every("2025-10-06", 7, 12).map((d) => tx(d, "12.00", { merchantName: "Farm box" }))));
    expect(p).toMatchObject({ cadence: "weekly", reason: "12 charges, weekly on Monday, 12.00 USD, last 2025-12-22" });
  });

  it("finds a quarterly charge", () => {
    const history = monthly("2024-01", 24, 18)
      .filter((_, i) => i % 3 === 0)
      .map((d) => tx(d, "412.50", { merchantName: "GEICO", categoryDetailed: "GENERAL_SERVICES_INSURANCE" }));
    const p = only(detect(history));
    expect(p).toMatchObject({ cadence: "quarterly", type: "bill", nextExpectedDate: "2026-01-18" });
    expect(p.transactionIds).toHaveLength(8);
  });
});

describe("detectSeries: amounts and gaps", () => {
  it("keeps one series through a price rise, at the new price", () => {
    const dates = monthly("2025-01", 12, 5);
    const history = dates.map((d, i) => tx(d, i < 6 ? "15.49" : "17.99"));
    const p = only(detect(history));
    expect(p).toMatchObject({
      cadence: "monthly",
      expectedCents: 1799,
      toleranceCents: 0,
      amountMinCents: 1549,
      amountMaxCents: 1799,
      reason: "12 charges, monthly on day 5, 17.99 USD (was 15.49 until 2025-06-05), last 2025-12-05",
      confidence: 0.95,
    });
    expect(p.transactionIds).toEqual(history.map((t) => t.id));
  });

  it("accepts one missed month", () => {
    const dates = monthly("2025-01", 12, 9).filter((d) => d !== "2025-06-09");
    const p = only(detect(dates.map((d) => tx(d, "11.99", { merchantName: "Spotify" }))));
    expect(p).toMatchObject({
      cadence: "monthly",
      reason: "11 charges, monthly on day 9, 1 missed, 11.99 USD, last 2025-12-09",
      confidence: 0.9,
    });
  });

  it("splits a run where two months in a row are missing: the part before has ended", () => {
    const dates = monthly("2025-01", 12, 9).filter((d) => !["2025-04-09", "2025-05-09"].includes(d));
    const found = detect(dates.map((d) => tx(d, "11.99", { merchantName: "Spotify" })));
    expect(found.map((p) => [p.status, p.reason])).toEqual([
      ["active", "7 charges, monthly on day 9, 11.99 USD, last 2025-12-09"],
      ["ended", "3 charges, monthly on day 9, 11.99 USD, last 2025-03-09"],
    ]);
  });

  it("finds a utility bill whose amount varies, as a bill with a tolerance", () => {
    const amounts = ["62.10", "88.40", "131.00", "179.00", "140.25", "97.60", "71.30", "66.00"];
    const history = monthly("2025-05", 8, 3).map((d, i) => tx(d, amounts[i], { merchantName: "PG&E" }));
    const p = only(detect(history));
    expect(p).toMatchObject({
      type: "bill",
      cadence: "monthly",
      expectedCents: 9760,
      toleranceCents: 17900 - 9760,
      reason: "8 charges, monthly on day 3, 62.10 to 179.00 USD, last 2025-12-03",
    });
    expect(p.confidence).toBeLessThan(0.9);
  });

  it("tells two subscriptions at the same merchant apart by their amounts", () => {
    const history = [
      ...monthly("2025-01", 12, 14).map((d) => tx(d, "2.99", { merchantName: "Apple" })),
      ...monthly("2025-03", 10, 20).map((d) => tx(d, "9.99", { merchantName: "Apple" })),
    ];
    const found = detect(history);
    expect(found.map((p) => [p.expectedCents, p.transactionIds.length, p.reason])).toEqual([
      [299, 12, "12 charges, monthly on day 14, 2.99 USD, last 2025-12-14"],
      [999, 10, "10 charges, monthly on day 20, 9.99 USD, last 2025-12-20"],
    ]);
  });

  it("tells them apart even when both charge on the same day", () => {
    const history = monthly("2025-01", 12, 14).flatMap((d) => [
      tx(d, "9.99", { merchantName: "Apple" }),
      tx(d, "14.99", { merchantName: "Apple" }),
    ]);
    const found = detect(history);
    expect(found.map((p) => p.expectedCents).sort()).toEqual([1499, 999]);
    for (const p of found) expect(p.transactionIds).toHaveLength(12);
  });
});

describe("detectSeries: what is not a series", () => {
  it.each([
    ["groceries twice a week", 100, 12, 165, 1],
    ["coffee almost daily", 300, 4, 8, 2],
    ["a hardware store twice a month", 24, 7, 89, 3],
    ["a pharmacy now and then", 18, 6, 64, 4],
    ["a bar every week or two", 40, 18, 72, 5],
  ])("finds nothing in %s at random amounts", (_what, count, min, max, seed) => {
    expect(detect(noise(count, min, max, seed, { merchantName: "Some shop" }))).toEqual([]);
  });

  it.each([
    ["every three days", 120, 11],
    ["every week or so", 50, 12],
    ["twice a month", 24, 13],
  ])("finds nothing in a fixed price bought at random %s (a shop's standard price)", (_what, count, seed) => {
    const r = rng(seed);
    const history = Array.from({ length: count }, () =>
      tx(isoOf(dayOf("2025-01-01") + Math.floor(r() * 365)), "15.49", { merchantName: "Corner bakery" }),
    );
    expect(detect(history)).toEqual([]);
  });

  it("finds the subscription among noise purchases at the same merchant, and nothing else", () => {
    const prime = monthly("2025-01", 12, 7).map((d) => tx(d, "14.99", { merchantName: "Amazon" }));
    const purchases = noise(60, 9, 90, 7, { merchantName: "Amazon" });
    const p = only(detect([...purchases, ...prime]));
    expect(p.transactionIds).toEqual(prime.map((t) => t.id));
    expect(p.reason).toMatch(/^12 charges, monthly on day 7, 14\.99 USD/);
  });

  it("needs three monthly charges: two are not a series", () => {
    expect(detect(monthly("2025-10", 2, 5).map((d) => tx(d, "15.49")))).toEqual([]);
    expect(detect(monthly("2025-10", 3, 5).map((d) => tx(d, "15.49")))).toHaveLength(1);
  });

  it("needs one charge more when the amount varies", () => {
    const three = monthly("2025-10", 3, 5).map((d, i) => tx(d, ["40.00", "55.00", "61.00"][i]));
    expect(detect(three)).toEqual([]);
    expect(detect([...three, tx("2026-01-05", "47.00")])).toHaveLength(1);
  });

  it("never mixes currencies or directions", () => {
    const history = monthly("2025-01", 4, 5).flatMap((d) => [
      tx(d, "10.00", { currency: "USD" }),
      tx(d, "10.00", { currency: "EUR" }),
      tx(d, "-10.00", { currency: "USD" }),
    ]);
    const found = detect(history);
    expect(found.map((p) => `${p.currency} ${p.expectedCents}`).sort()).toEqual(["EUR 1000", "USD -1000", "USD 1000"]);
  });

  it("ignores zero amounts", () => {
    expect(detect(monthly("2025-01", 12, 5).map((d) => tx(d, "0.00")))).toEqual([]);
  });
});

describe("detectSeries: description", () => {
  it("marks a series whose charges stopped as ended", () => {
    const history = monthly("2024-01", 8, 5).map((d) => tx(d, "15.49"));
    expect(only(detect(history, "2026-01-10"))).toMatchObject({ status: "ended", nextExpectedDate: "2024-09-05" });
    // One missed charge is still only late.
    expect(only(detect(history, "2024-10-08"))).toMatchObject({ status: "active" });
    expect(only(detect(history, "2024-10-09"))).toMatchObject({ status: "ended" });
  });

  it("finds a fixed amount on the same day in uneven months as irregular, with a capped confidence", () => {
    const history = ["2025-01-10", "2025-02-10", "2025-05-10", "2025-06-10", "2025-09-10", "2025-11-10"].map((d) =>
      tx(d, "50.00", { merchantName: "American Red Cross" }),
    );
    const p = only(detect(history));
    expect(p).toMatchObject({
      cadence: "irregular",
      nextExpectedDate: null,
      confidence: 0.6,
      reason: "6 charges, irregular, on day 10, 50.00 USD, last 2025-11-10",
    });
  });

  it.each<[string, Partial<DetectorTransaction>, string, Proposal["type"]]>([
    ["rent", { categoryDetailed: "RENT_AND_UTILITIES_RENT" }, "3150.00", "bill"],
    ["a streaming service", { categoryDetailed: "ENTERTAINMENT_TV_AND_MOVIES" }, "15.49", "subscription"],
    ["a car loan", { categoryDetailed: "LOAN_PAYMENTS_CAR_PAYMENT" }, "389.00", "loan"],
    ["a card payment", { categoryDetailed: "LOAN_PAYMENTS_CREDIT_CARD_PAYMENT" }, "1200.00", "other"],
    ["a transfer to savings", { categoryDetailed: "TRANSFER_OUT_SAVINGS" }, "500.00", "other"],
    ["a transfer from checking", { categoryDetailed: "TRANSFER_IN_ACCOUNT_TRANSFER" }, "-500.00", "other"],
    ["interest", { categoryDetailed: "INCOME_INTEREST_EARNED" }, "-4.20", "income"],
    ["no category", {}, "9.00", "subscription"],
  ])("types %s", (_what, o, amount, type) => {
    expect(only(detect(monthly("2025-01", 6, 5).map((d) => tx(d, amount, o)))).type).toBe(type);
  });

  it("names a series after its counterparty, else the merchant, else the bank's text", () => {
    const dates = monthly("2025-01", 4, 5);
    expect(
      only(detect(dates.map((d) => tx(d, "9.00", { counterpartyId: "c1", counterpartyName: "Landlord" })))).name,
    ).toBe("Landlord");
    expect(only(detect(dates.map((d) => tx(d, "9.00", { merchantName: null, name: " INTEREST PAYMENT " })))).name).toBe(
      "INTEREST PAYMENT",
    );
  });

  it("groups bank texts that differ only in store numbers and punctuation", () => {
    const names = ["SQ *GYM CLUB #0412", "GYM CLUB 0413", "gym club", "Gym-Club #9"];
    const history = monthly("2025-01", 4, 5).map((d, i) => tx(d, "40.00", { merchantName: null, name: names[i] }));
    expect(only(detect(history)).key).toBe("name:gym club|USD|out");
  });

  it("gives each proposal a fingerprint that reads back as its group and amounts", () => {
    const p = only(detect(monthly("2025-01", 6, 5).map((d) => tx(d, "15.49"))));
    expect(parseFingerprint(p.fingerprint)).toEqual({ key: p.key, amountMinCents: 1549, amountMaxCents: 1549 });
    expect(p.fingerprint).toBe(fingerprintOf(p));
  });

  it.each([
    ["not base64url", "a+b/c="],
    ["not JSON", Buffer.from("nope").toString("base64url")],
    ["a key of no group", Buffer.from(JSON.stringify({ k: "x", lo: 1, hi: 2 })).toString("base64url")],
    ["amounts upside down", Buffer.from(JSON.stringify({ k: "name:a|USD|out", lo: 3, hi: 2 })).toString("base64url")],
    [
      "amounts that are not cents",
      Buffer.from(JSON.stringify({ k: "name:a|USD|out", lo: 1.5, hi: 2 })).toString("base64url"),
    ],
    ["too long", "a".repeat(2001)],
  ])("parseFingerprint refuses %s", (_what, raw) => {
    expect(parseFingerprint(raw)).toBeNull();
  });
});
