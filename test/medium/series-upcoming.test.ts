import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectCoreError, withKey } from "../helpers/core-error.js";
import { newAccount, newUser } from "../helpers/ledger.js";
import { daysFromToday, insertCharges, monthDays, today } from "../helpers/series.js";
import { startStack, type Stack } from "../helpers/stack.js";

// ListUpcomingCharges: expected charges of active series in a window from today, totals per currency.

let s: Stack;
let admin: ReturnType<typeof withKey>;
let reader: ReturnType<typeof withKey>;
const created: Record<string, string> = {};

beforeAll(async () => {
  s = await startStack();
  admin = withKey(s.adminKey);
  reader = withKey(s.readKey);
  const em = s.orm.em.fork();
  const user = await newUser(em);
  const usd = (await newAccount(em, user.id)).id;
  const make = async (key: string, req: Parameters<Stack["core"]["series"]["createSeries"]>[0]) => {
    created[key] = (await s.core.series.createSeries(req, admin)).series!.shortId;
  };
  await make("box", {
    name: "Farm box",
    cadence: "weekly",
    expectedAmount: "12.00",
    isoCurrencyCode: "USD",
    nextExpectedDate: daysFromToday(2),
  });
  await make("salary", {
    name: "Gehalt",
    type: "income",
    cadence: "monthly",
    expectedAmount: "-3850.00",
    isoCurrencyCode: "EUR",
    nextExpectedDate: daysFromToday(10),
  });
  const rent = await insertCharges(
    em,
    usd,
    monthDays(-4, -1, 31).map((date) => ({ date, amount: "2000.00", providerName: "RENT" })),
  );
  await make("rent", { name: "Rent", cadence: "monthly", type: "bill", transactionIds: rent });
  await make("donation", {
    name: "Red Cross",
    expectedAmount: "50.00",
    isoCurrencyCode: "USD",
    nextExpectedDate: daysFromToday(5),
  });
  await make("paused", {
    name: "Paused gym",
    cadence: "weekly",
    status: "paused",
    expectedAmount: "40.00",
    isoCurrencyCode: "USD",
    nextExpectedDate: daysFromToday(1),
  });
  await make("late", {
    name: "Late bill",
    cadence: "yearly",
    expectedAmount: "99.00",
    isoCurrencyCode: "USD",
    nextExpectedDate: daysFromToday(-3),
  });
});
afterAll(async () => {
  await s?.close();
});

const upcoming = (days?: number) => s.core.series.listUpcomingCharges({ days }, reader);

describe("upcoming charges", () => {
  it("lists each expected charge of the active series in the next 30 days, by date", async () => {
    const r = await upcoming();
    expect({ from: r.from, to: r.to }).toEqual({ from: today(), to: daysFromToday(30) });
    const rows = r.charges.map((c) => [c.date, c.seriesId, c.amount, c.isoCurrencyCode]);
    const rentDates = r.charges.filter((c) => c.seriesId === created.rent).map((c) => c.date);
    expect(rows.filter(([, id]) => id !== created.rent)).toEqual([
      [daysFromToday(2), created.box, "12.00", "USD"],
      [daysFromToday(5), created.donation, "50.00", "USD"],
      [daysFromToday(9), created.box, "12.00", "USD"],
      [daysFromToday(10), created.salary, "-3850.00", "EUR"],
      [daysFromToday(16), created.box, "12.00", "USD"],
      [daysFromToday(23), created.box, "12.00", "USD"],
    ]);
    // Rent is due on the 31st, which is the last day of shorter months; this month's may have passed.
    expect(rentDates.length).toBeLessThanOrEqual(1);
    const dates = r.charges.map((c) => c.date);
    expect(dates).toEqual([...dates].sort());
    const rentCount = BigInt(rentDates.length);
    expect(r.totals).toEqual([
      expect.objectContaining({
        isoCurrencyCode: "EUR",
        moneyOut: "0.00",
        moneyIn: "3850.00",
        net: "-3850.00",
        count: 1n,
      }),
      expect.objectContaining({
        isoCurrencyCode: "USD",
        moneyOut: rentCount ? "2098.00" : "98.00",
        moneyIn: "0.00",
        net: rentCount ? "2098.00" : "98.00",
        count: 5n + rentCount,
      }),
    ]);
  });

  it("follows a month-end series into shorter months", async () => {
    const rent = (await upcoming(366)).charges.filter((c) => c.seriesId === created.rent).map((c) => c.date);
    expect(rent.length).toBeGreaterThanOrEqual(11);
    for (const d of rent) {
      const [y, m] = d.split("-").map(Number);
      expect(d).toBe(new Date(Date.UTC(y, m, 0)).toISOString().slice(0, 10));
    }
  });

  it("leaves out paused series and a charge expected before today (not its next one)", async () => {
    const year = (await upcoming(366)).charges;
    expect(year.filter((c) => c.seriesId === created.paused)).toEqual([]);
    const late = year.filter((c) => c.seriesId === created.late).map((c) => c.date);
    expect(late).toHaveLength(1);
    expect(late[0] > daysFromToday(300)).toBe(true);
  });

  it("days is 1 to 366; 0 means 30", async () => {
    expect((await upcoming(1)).charges).toEqual([]);
    for (const days of [-1, 367]) {
      const f = await expectCoreError(upcoming(days), "INVALID_PARAMETER");
      expect(f.message).toBe("days must be between 1 and 366");
    }
  });
});
