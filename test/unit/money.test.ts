import { describe, expect, it } from "vitest";
import {
  AMOUNT,
  BALANCE,
  canonicalMoney,
  centsOf,
  formatCents,
  moneyFromDecimal,
  moneyFromJsonNumber,
  negateMoney,
} from "../../common/money.js";

describe("moneyFromJsonNumber", () => {
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
    // Float noise: a JSON number within 1e-6 of a whole cent is that cent.
    [JSON.parse("19.509999999999998") as number, "19.51"],
    [0.1 + 0.2, "0.30"],
    [JSON.parse("1234.5600000000002") as number, "1234.56"],
    [JSON.parse("-7.0000000000000009") as number, "-7.00"],
    [0.1 + 0.2 - 0.3, "0.00"],
    [1e-7, "0.00"],
  ])("%s → %s", (n, text) => {
    expect(moneyFromJsonNumber(n)).toBe(text);
  });

  it.each([
    ["more than 2 decimals", 1.005],
    ["a third decimal", 0.015],
    ["a third decimal off a cent by more than 1e-6", 12.000002],
    ["an exponent (large)", 1e21],
    ["more than 10 integer digits", 12345678901],
    ["NaN", NaN],
    ["Infinity", Infinity],
    ["a string", "12.30"],
    ["null", null],
  ])("refuses %s", (_what, n) => {
    expect(moneyFromJsonNumber(n)).toBeNull();
  });
});

describe("moneyFromDecimal", () => {
  it.each([
    ["19.509999999999998", "19.51"],
    ["0.30000000000000004", "0.30"],
    ["1234.5600000000002", "1234.56"],
    ["-5.0000000000000001", "-5.00"],
    ["-5.0099999999", "-5.01"],
    ["2.500", "2.50"],
    ["12.3", "12.30"],
    ["7.", "7.00"],
    ["1.0000010", "1.00"],
  ])("%s → %s", (text, money) => {
    expect(moneyFromDecimal(text)).toBe(money);
  });

  it.each(["1.005", "1.0000011", "0.001", "12345678901.00", "1e3", "", "abc", "1.2.3", "+1.00"])(
    "%j is refused",
    (text) => {
      expect(moneyFromDecimal(text)).toBeNull();
    },
  );
});

describe("canonicalMoney and negateMoney", () => {
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
    expect(canonicalMoney(raw)).toBe(canonical);
  });

  it.each([
    ["12.30", "-12.30"],
    ["-12.30", "12.30"],
    ["0.00", "0.00"],
  ])("negates %s to %s", (a, b) => {
    expect(negateMoney(a)).toBe(b);
  });
});

describe("canonicalMoney: edge cases", () => {
  it.each([
    ["7", "7.00"],
    ["007", "7.00"],
    ["-0.5", "-0.50"],
    ["-0", "0.00"],
    ["-00.00", "0.00"],
    ["0.1", "0.10"],
    ["  12.5 ", "12.50"],
    ["9999999999.99", "9999999999.99"],
    ["-9999999999.99", "-9999999999.99"],
    ["0000000001", "1.00"],
    ["12345678901", null], // 11 digits: not NUMERIC(12,2)
    ["12.", null],
    [".5", null],
    ["1,5", null],
    ["--1", null],
    ["1 000", null],
    ["٣", null], // not an ASCII digit
    ["NaN", null],
  ])("%o → %o", (raw, canonical) => {
    expect(canonicalMoney(raw)).toBe(canonical);
  });

  it("takes a balance with 12 digits before the point only when asked to", () => {
    expect(canonicalMoney("123456789012.3")).toBeNull();
    expect(canonicalMoney("123456789012.3", BALANCE)).toBe("123456789012.30");
    expect(canonicalMoney("-0001234567890123", BALANCE)).toBeNull();
  });

  it("AMOUNT and BALANCE are the NUMERIC(12,2) and NUMERIC(14,2) shapes", () => {
    expect(AMOUNT.test("1234567890.12")).toBe(true);
    expect(AMOUNT.test("12345678901")).toBe(false);
    expect(BALANCE.test("123456789012.12")).toBe(true);
    expect(BALANCE.test("1234567890123")).toBe(false);
    expect(AMOUNT.test("1.234")).toBe(false);
  });
});

describe("centsOf and formatCents", () => {
  it.each([
    ["15.49", 1549],
    ["-3850", -385000],
    ["-0.07", -7],
    ["12.5", 1250],
    ["-0", 0],
    ["0.00", 0],
    [" 3.1 ", 310],
    ["9999999999.99", 999999999999],
    ["999999999999.99", 99999999999999], // the largest balance: exact in a double
  ])("centsOf(%o) = %d", (text, cents) => {
    expect(centsOf(text)).toBe(cents);
    expect(Object.is(centsOf(text), -0)).toBe(false);
  });

  it.each(["", "abc", "1.234", "1e3", "12.", ".5", "+5", "1,50", "1234567890123"])("centsOf refuses %o", (text) => {
    expect(() => centsOf(text)).toThrow(/not a decimal amount/);
  });

  it.each([
    [1549, "15.49"],
    [-385000n, "-3850.00"],
    [-7, "-0.07"],
    [0, "0.00"],
    [5, "0.05"],
    [99999999999999, "999999999999.99"],
    [-(2n ** 70n), "-11805916207174113034.24"],
  ])("formatCents(%o) = %o", (cents, text) => {
    expect(formatCents(cents)).toBe(text);
  });

  it("formatCents refuses a number that is not whole cents", () => {
    expect(() => formatCents(1.5)).toThrow(/not whole cents/);
    expect(() => formatCents(2 ** 60)).toThrow(/not whole cents/);
  });

  it("round-trips every canonical amount between -10.00 and 10.00", () => {
    for (let c = -1000; c <= 1000; c++) {
      const text = formatCents(c);
      expect(canonicalMoney(text)).toBe(text);
      expect(centsOf(text)).toBe(c);
      expect(negateMoney(text)).toBe(formatCents(-c));
    }
  });
});
