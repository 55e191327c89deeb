import { describe, expect, it } from "vitest";
import { amountFromJsonNumber, negateAmount, tryCanonicalAmount } from "../../services/shared/amount-text.js";
import { addDays, dayStartSeconds, daysBetween, utcDay } from "../../services/shared/calendar.js";

describe("amountFromJsonNumber", () => {
  it.each([
    [12.3, "12.30"],
    [0.1, "0.10"],
    [-0.5, "-0.50"],
    [110, "110.00"],
    [-0, "0.00"],
    [0, "0.00"],
    [1234567890.12, "1234567890.12"],
    [JSON.parse("99.99") as number, "99.99"],
    [JSON.parse("4.10") as number, "4.10"],
  ])("%s → %s", (n, text) => {
    expect(amountFromJsonNumber(n)).toBe(text);
  });

  it.each([
    ["more than 2 decimals", 1.005],
    ["a float artefact", 0.1 + 0.2],
    ["an exponent (large)", 1e21],
    ["an exponent (small)", 1e-7],
    ["more than 10 integer digits", 12345678901],
    ["NaN", NaN],
    ["Infinity", Infinity],
    ["a string", "12.30"],
    ["null", null],
  ])("refuses %s", (_what, n) => {
    expect(amountFromJsonNumber(n)).toBeNull();
  });
});

describe("tryCanonicalAmount and negateAmount", () => {
  it.each([
    ["1200", "1200.00"],
    ["-33293.43", "-33293.43"],
    ["0.00", "0.00"],
    ["-0.0", "0.00"],
    ["+5", null],
    ["1.234", null],
    ["1e3", null],
    ["", null],
  ])("%o → %o", (raw, canonical) => {
    expect(tryCanonicalAmount(raw)).toBe(canonical);
  });

  it.each([
    ["12.30", "-12.30"],
    ["-12.30", "12.30"],
    ["0.00", "0.00"],
  ])("negates %s to %s", (a, b) => {
    expect(negateAmount(a)).toBe(b);
  });
});

describe("calendar", () => {
  it("does whole-day arithmetic in UTC", () => {
    expect(addDays("2026-03-01", -1)).toBe("2026-02-28");
    expect(addDays("2024-02-28", 1)).toBe("2024-02-29");
    expect(addDays("2026-12-31", 1)).toBe("2027-01-01");
    expect(daysBetween("2026-01-01", "2026-04-01")).toBe(90);
    expect(dayStartSeconds("1970-01-02")).toBe(86_400);
    expect(utcDay(new Date("2026-05-05T23:59:59-02:00"))).toBe("2026-05-06");
  });
});
