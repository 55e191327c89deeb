import { describe, expect, it } from "vitest";
import {
  inferDateFormat,
  inferDecimalSeparator,
  negate,
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
  ] as const)("reads %j (decimal %s) as %s", (cell, decimal, want) => {
    expect(parseAmountCell(cell, decimal)).toEqual({ amount: want });
  });

  it.each([
    ["", "the amount is empty"],
    ["abc", '"abc" is not an amount'],
    ["1.234", '"1.234" has more than two decimals'],
    ["12345678901", '"12345678901" is too large (at most 10 digits before the point)'],
    ["1.2.3", '"1.2.3" is not an amount'],
  ])("refuses %j: %s", (cell, error) => {
    expect(parseAmountCell(cell, ".")).toEqual({ error });
  });

  it("keeps exact decimals where a float would not (0.1 + 0.2 style values)", () => {
    expect(parseAmountCell("9999999999.99", ".")).toEqual({ amount: "9999999999.99" });
    expect(parseAmountCell("0.10", ".")).toEqual({ amount: "0.10" });
  });
});

describe("inferDecimalSeparator and negate", () => {
  it("tells 1.234,56 files from 1,234.56 files by their decimals", () => {
    expect(inferDecimalSeparator(["-54,20", "1.234,56", "3"])).toBe(",");
    expect(inferDecimalSeparator(["-54.20", "1,234.56", "3"])).toBe(".");
    expect(inferDecimalSeparator(["3", "4"])).toBe(".");
  });

  it("negates canonical amounts as text", () => {
    expect([negate("12.30"), negate("-12.30"), negate("0.00")]).toEqual(["-12.30", "12.30", "0.00"]);
  });
});
