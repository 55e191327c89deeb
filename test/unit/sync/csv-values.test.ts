import { describe, expect, it } from "vitest";
import { negateMoney } from "../../../common/money.js";
import {
  ambiguousAmount,
  inferDateFormat,
  inferDecimalSeparator,
  isDateOrderAmbiguous,
  localeHint,
  parseAmountCell,
  parseDateCell,
} from "../../../services/sync/providers/csv/values.js";

describe("parseDateCell", () => {
  it.each([
    ["2026-03-05", "YYYY-MM-DD", "2026-03-05"],
    ["2026-3-5", "YYYY-MM-DD", "2026-03-05"],
    ["2026-03-05T14:22:01Z", "YYYY-MM-DD", "2026-03-05"],
    ["2026-03-05 14:22", "YYYY-MM-DD", "2026-03-05"],
    ["03/05/2026", "MM/DD/YYYY", "2026-03-05"],
    ["3/5/2026 2:15 PM", "MM/DD/YYYY", "2026-03-05"],
    ["03/05/2026", "DD/MM/YYYY", "2026-05-03"],
    ["05.03.2026", "DD.MM.YYYY", "2026-03-05"],
    ["29.02.2024", "DD.MM.YYYY", "2024-02-29"],
    [" 2026-03-05 ", "YYYY-MM-DD", "2026-03-05"],
  ] as const)("reads %j as %s → %s", (cell, format, want) => {
    expect(parseDateCell(cell, format)).toBe(want);
  });

  it.each([
    ["29.02.2026", "DD.MM.YYYY"],
    ["31/04/2026", "DD/MM/YYYY"],
    ["13/01/2026", "MM/DD/YYYY"],
    ["2026-00-10", "YYYY-MM-DD"],
    ["05.03.2026", "YYYY-MM-DD"],
    ["yesterday", "MM/DD/YYYY"],
    ["", "YYYY-MM-DD"],
  ] as const)("refuses %j as %s", (cell, format) => {
    expect(parseDateCell(cell, format)).toBeNull();
  });
});

describe("inferDateFormat", () => {
  it.each([
    [["2026-01-02", "2026-01-03"], "YYYY-MM-DD"],
    [["02.01.2026", "13.01.2026"], "DD.MM.YYYY"],
    [["01/02/2026", "01/13/2026"], "MM/DD/YYYY"],
    [["01/02/2026", "13/01/2026"], "DD/MM/YYYY"],
    // A file where no day is over 12 cannot tell: it is read month first.
    [["01/02/2026", "03/04/2026"], "MM/DD/YYYY"],
    [["n/a", "soon"], null],
  ] as const)("%j → %s", (cells, want) => {
    expect(inferDateFormat([...cells])).toBe(want);
  });

  it.each([
    [["01/02/2026", "03/04/2026"], true],
    [["01/01/2026", "02/02/2026"], false],
    [["01/02/2026", "13/01/2026"], false],
    [["01/02/2026", "01/13/2026"], false],
  ] as const)("%j reads both ways: %s", (cells, want) => {
    expect(isDateOrderAmbiguous([...cells])).toBe(want);
  });
});

describe("parseAmountCell", () => {
  it.each([
    ["12.30", ".", "12.30"],
    ["-12.3", ".", "-12.30"],
    ["1,234.56", ".", "1234.56"],
    ["$1,234.56", ".", "1234.56"],
    ["(45.00)", ".", "-45.00"],
    ["45.00-", ".", "-45.00"],
    ["+7", ".", "7.00"],
    ["\u221212.00", ".", "-12.00"],
    ["1.234,56", ",", "1234.56"],
    ["-54,2", ",", "-54.20"],
    ["1 234,50 €", ",", "1234.50"],
    ["1'234.50", ".", "1234.50"],
    ["EUR 12.00", ".", "12.00"],
    ["12.300", ".", "12.30"],
    ["-0.00", ".", "0.00"],
    ["0007.5", ".", "7.50"],
    // Float noise a program printed: within 1e-6 of a whole cent, that cent (common/money.ts).
    ["19.509999999999998", ".", "19.51"],
    ["-0.30000000000000004", ".", "-0.30"],
    ["1.234,5600000000002", ",", "1234.56"],
  ] as const)("reads %j (decimal %s) as %s", (cell, decimal, want) => {
    expect(parseAmountCell(cell, decimal)).toEqual({ amount: want });
  });

  it.each([
    ["", "the amount is empty"],
    ["abc", '"abc" is not an amount'],
    ["1.234", '"1.234" has more than two decimals'],
    ["1.005", '"1.005" has more than two decimals'],
    ["12345678901", '"12345678901" is too large (at most 10 digits before the point)'],
    ["1.2.3", '"1.2.3" is not an amount written with "." as the decimal separator'],
    ["1,50", '"1,50" is not an amount written with "." as the decimal separator'],
  ])("refuses %j: %s", (cell, error) => {
    expect(parseAmountCell(cell, ".")).toEqual({ error });
  });

  it("takes a thousands separator only where it groups thousands", () => {
    expect(parseAmountCell("-1.500", ",")).toEqual({ amount: "-1500.00" });
    expect(parseAmountCell("1,500", ".")).toEqual({ amount: "1500.00" });
    expect(parseAmountCell("1.234.567,8", ",")).toEqual({ amount: "1234567.80" });
    expect(parseAmountCell("1,234,567.8", ".")).toEqual({ amount: "1234567.80" });
    // In a comma-decimal file "1.50" is not 150: it is refused, not misread.
    expect(parseAmountCell("1.50", ",")).toEqual({
      error: '"1.50" is not an amount written with "," as the decimal separator',
    });
    expect(parseAmountCell("12,34.5", ".")).toEqual({
      error: '"12,34.5" is not an amount written with "." as the decimal separator',
    });
  });

  it("keeps exact decimals where a float would not (0.1 + 0.2 style values)", () => {
    expect(parseAmountCell("9999999999.99", ".")).toEqual({ amount: "9999999999.99" });
    expect(parseAmountCell("0.10", ".")).toEqual({ amount: "0.10" });
  });
});

describe("inferDecimalSeparator and negateMoney", () => {
  it("tells 1.234,56 files from 1,234.56 files by their decimals", () => {
    expect(inferDecimalSeparator(["-54,20", "1.234,56", "3"])).toBe(",");
    expect(inferDecimalSeparator(["-54.20", "1,234.56", "3"])).toBe(".");
    expect(inferDecimalSeparator(["3", "4"])).toBe(".");
  });

  it("reads thousands separators: repeated, mixed, or grouping three digits", () => {
    expect(inferDecimalSeparator(["1.234.567", "2"])).toBe(",");
    expect(inferDecimalSeparator(["1,234,567", "2"])).toBe(".");
    expect(inferDecimalSeparator(["-1.500", "2.000", "1,5"])).toBe(",");
    expect(inferDecimalSeparator(["-1,500", "2,000", "1.5"])).toBe(".");
    expect(inferDecimalSeparator(["0.500", "250"])).toBe(".");
    expect(inferDecimalSeparator(["1.5000"])).toBe(".");
  });

  it("leaves 1.500-only columns to the hint, and says so (null) without one", () => {
    expect(inferDecimalSeparator(["-1.500", "-2.000", "250"])).toBeNull();
    expect(inferDecimalSeparator(["-1.500", "-2.000", "250"], ",")).toBe(",");
    expect(inferDecimalSeparator(["1,500"], ".")).toBe(".");
    expect(ambiguousAmount(["250", "-1.500"])).toBe("-1.500");
    expect(localeHint(";", "YYYY-MM-DD")).toBe(",");
    expect(localeHint(",", "DD.MM.YYYY")).toBe(",");
    expect(localeHint(",", "MM/DD/YYYY")).toBe(".");
    expect(localeHint(",", "YYYY-MM-DD")).toBeNull();
  });

  it("negates canonical amounts as text", () => {
    expect([negateMoney("12.30"), negateMoney("-12.30"), negateMoney("0.00")]).toEqual(["-12.30", "12.30", "0.00"]);
  });
});
