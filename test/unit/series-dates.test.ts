import { describe, expect, it } from "vitest";
import { dayInMonth, dayOf, daysInMonth, isoOf, monthAndDay, weekdayOf } from "../../common/days.js";
import { centsOf, formatCents } from "../../common/money.js";
import { normalizeMerchant } from "../../services/series/detector/normalize.js";

// The detector's calendar arithmetic against JavaScript's Date, and its money and name helpers.

describe("detector dates", () => {
  it("agree with Date.UTC on every day from 1899 to 2101", () => {
    const first = Date.UTC(1899, 0, 1) / 86_400_000;
    const last = Date.UTC(2101, 11, 31) / 86_400_000;
    for (let day = first; day <= last; day++) {
      const d = new Date(day * 86_400_000);
      const iso = d.toISOString().slice(0, 10);
      if (isoOf(day) !== iso || dayOf(iso) !== day) throw new Error(`day ${day}: ${isoOf(day)} vs ${iso}`);
      const { month, dom } = monthAndDay(day);
      if (month !== d.getUTCFullYear() * 12 + d.getUTCMonth() || dom !== d.getUTCDate()) throw new Error(iso);
    }
  });

  it.each([
    ["2024-02", 29],
    ["2025-02", 28],
    ["1900-02", 28],
    ["2000-02", 29],
    ["2025-04", 30],
    ["2025-12", 31],
  ])("%s has %i days", (ym, n) => {
    const month = Number(ym.slice(0, 4)) * 12 + Number(ym.slice(5)) - 1;
    expect(daysInMonth(month)).toBe(n);
  });

  it("clamps a day of the month to short months", () => {
    const feb = 2025 * 12 + 1;
    expect(isoOf(dayInMonth(feb, 31))).toBe("2025-02-28");
    expect(isoOf(dayInMonth(feb + 1, 31))).toBe("2025-03-31");
    expect(isoOf(dayInMonth(feb, 14))).toBe("2025-02-14");
  });

  it.each([
    ["1970-01-01", "Thursday"],
    ["2026-01-02", "Friday"],
    ["1969-12-28", "Sunday"],
  ])("%s is a %s", (iso, weekday) => {
    expect(weekdayOf(dayOf(iso))).toBe(weekday);
  });
});

describe("detector money", () => {
  it.each([
    ["15.49", 1549],
    ["-3850", -385000],
    ["0.5", 50],
    ["-0.00", 0],
    ["9999999999.99", 999999999999],
  ])("centsOf(%s) = %i", (text, cents) => {
    expect(centsOf(text)).toBe(cents);
  });

  it.each([
    [1549, "15.49"],
    [-385000, "-3850.00"],
    [5, "0.05"],
    [-5, "-0.05"],
    [0, "0.00"],
    [123456789012345n, "1234567890123.45"],
  ])("formatCents(%s) = %s", (cents, text) => {
    expect(formatCents(cents)).toBe(text);
  });

  it("refuses what is not an amount", () => {
    expect(() => centsOf("1.234")).toThrow();
    expect(() => centsOf("abc")).toThrow();
    expect(() => formatCents(1.5)).toThrow();
  });
});

describe("normalizeMerchant", () => {
  it.each([
    ["STARBUCKS STORE #05512", "starbucks store"],
    ["Starbucks Store 1234", "starbucks store"],
    ["SQ *BLUE BOTTLE COFFEE", "blue bottle coffee"],
    ["TST* ZUNI CAFE", "zuni cafe"],
    ["ONLINE TRANSFER TO SAVINGS ...5512", "online transfer to savings"],
    ["Pastéis de Belém", "pasteis de belem"],
    ["PG&E", "pg e"],
    ["12345", "12345"],
  ])("%s → %s", (raw, normal) => {
    expect(normalizeMerchant(raw)).toBe(normal);
  });
});
