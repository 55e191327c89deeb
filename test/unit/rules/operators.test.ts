import { describe, expect, it } from "vitest";
import { dayOf as epochDay, isoOf as dateOfDay } from "../../../common/days.js";
import { FIELDS } from "../../../services/rules/engine/index.js";
import type { NumberField } from "../../../services/rules/engine/fields.js";
import { ctxOf, judge } from "./helpers.js";

// Every operator for every value kind, table-driven: [field, op, operands, context override, want].

type Row = [string, string, Record<string, unknown>, Parameters<typeof ctxOf>[0], boolean];

const leaf = (field: string, op: string, operands: Record<string, unknown>) => ({ field, op, ...operands });

describe("string operators (case-insensitive; matches is RE2)", () => {
  const rows: Row[] = [
    ["provider_merchant_name", "eq", { value: "starbucks" }, {}, true],
    ["provider_merchant_name", "eq", { value: "STARBUCKS" }, {}, true],
    ["provider_merchant_name", "eq", { value: "Starbuck" }, {}, false],
    ["provider_merchant_name", "eq", { value: "" }, { providerMerchantName: null }, true],
    ["provider_merchant_name", "neq", { value: "starbucks" }, {}, false],
    ["provider_merchant_name", "neq", { value: "peet's" }, {}, true],
    ["provider_merchant_name", "neq", { value: "starbucks" }, { providerMerchantName: null }, true],
    ["provider_name", "contains", { value: "store #48" }, {}, true],
    ["provider_name", "contains", { value: "Seattle" }, {}, true],
    ["provider_name", "contains", { value: "portland" }, {}, false],
    ["provider_name", "contains", { value: "" }, {}, true],
    ["provider_merchant_name", "contains", { value: "star" }, { providerMerchantName: null }, false],
    ["provider_name", "contains", { value: "CAFÉ" }, { providerName: "Le café du coin" }, true],
    ["provider_name", "not_contains", { value: "store" }, {}, false],
    ["provider_name", "not_contains", { value: "amazon" }, {}, true],
    ["provider_merchant_name", "not_contains", { value: "x" }, { providerMerchantName: null }, true],
    ["provider_name", "matches", { value: "^STARBUCKS STORE #\\d{4}" }, {}, true],
    ["provider_name", "matches", { value: "^starbucks" }, {}, false],
    ["provider_name", "matches", { value: "(?i)^starbucks" }, {}, true],
    ["provider_name", "matches", { value: "SEATTLE" }, {}, true],
    ["provider_name", "matches", { value: "SEATTLE$" }, {}, false],
    ["provider_merchant_name", "matches", { value: "^$" }, { providerMerchantName: null }, true],
    ["provider_name", "matches", { value: "\\p{Lu}{5}" }, {}, true],
    ["provider_category_primary", "in", { value: ["travel", "food_and_drink"] }, {}, true],
    ["provider_category_primary", "in", { value: ["travel"] }, {}, false],
    ["provider_category_detailed", "eq", { value: "food_and_drink_coffee" }, {}, true],
    ["provider_category_detailed", "eq", { value: "" }, { providerCategoryDetailed: null }, true],
    ["provider", "eq", { value: "PLAID" }, {}, true],
    ["provider", "in", { value: ["teller", "csv"] }, {}, false],
    ["account_name", "contains", { value: "checking" }, {}, true],
    ["user_name", "eq", { value: "ann" }, {}, true],
    ["category", "eq", { value: "food_and_drink_coffee" }, {}, true],
    ["category", "contains", { value: "food_and_drink" }, {}, true],
    ["category", "eq", { value: "uncategorized" }, { category: "uncategorized" }, true],
    ["counterparty", "eq", { value: "blue bottle" }, { counterparty: "Blue Bottle" }, true],
    ["counterparty", "eq", { value: "" }, { counterparty: null }, true],
    ["series", "eq", { value: "" }, {}, true],
    ["series", "eq", { value: "SerAb123" }, { series: "SerAb123" }, true],
  ];
  it.each(rows)("%s %s %j on %j → %s", (field, op, operands, over, want) => {
    expect(judge(leaf(field, op, operands), ctxOf(over))).toBe(want);
  });
});

describe("identifier fields compare exactly", () => {
  const rows: Row[] = [
    ["account_id", "eq", { value: "AcctAb12" }, {}, true],
    ["account_id", "eq", { value: "acctab12" }, {}, false],
    ["account_id", "neq", { value: "acctab12" }, {}, true],
    ["user_id", "in", { value: ["UserCd34", "Other123"] }, {}, true],
    ["user_id", "in", { value: ["USERCD34"] }, {}, false],
    ["account_id", "contains", { value: "Ab" }, {}, true],
    ["account_id", "not_contains", { value: "ab" }, {}, true],
    ["account_id", "matches", { value: "^Acct" }, {}, true],
    ["series", "eq", { value: "serab123" }, { series: "SerAb123" }, false],
  ];
  it.each(rows)("%s %s %j on %j → %s", (field, op, operands, over, want) => {
    expect(judge(leaf(field, op, operands), ctxOf(over))).toBe(want);
  });
});

describe("numeric operators (amounts in exact cents, date parts, inclusive between)", () => {
  const rows: Row[] = [
    ["amount", "eq", { value: 5.75 }, {}, true],
    ["amount", "eq", { value: "5.75" }, {}, true],
    ["amount", "eq", { value: 5.7 }, {}, false],
    ["amount", "neq", { value: 5.75 }, {}, false],
    ["amount", "neq", { value: 5 }, {}, true],
    ["amount", "gt", { value: 5.74 }, {}, true],
    ["amount", "gt", { value: 5.75 }, {}, false],
    ["amount", "gte", { value: 5.75 }, {}, true],
    ["amount", "lt", { value: 5.76 }, {}, true],
    ["amount", "lt", { value: 5.75 }, {}, false],
    ["amount", "lte", { value: "5.75" }, {}, true],
    ["amount", "lt", { value: 0 }, { amountCents: -12000 }, true],
    ["amount", "approx", { value: 6, tolerance: 0.25 }, {}, true],
    ["amount", "approx", { value: 6, tolerance: 0.24 }, {}, false],
    ["amount", "approx", { value: 5.75, tolerance: 0 }, {}, true],
    ["amount", "between", { min: 5.75, max: 10 }, {}, true],
    ["amount", "between", { min: 1, max: 5.75 }, {}, true],
    ["amount", "between", { min: 5.76, max: 10 }, {}, false],
    ["amount", "between", { min: -100, max: -1 }, { amountCents: -5000 }, true],
    // 0.1 + 0.2 style float traps do not exist in cents.
    ["amount", "eq", { value: 0.3 }, { amountCents: 30 }, true],
    ["amount", "eq", { value: 99999999.99 }, { amountCents: 9999999999 }, true],
    ["day_of_month", "eq", { value: 15 }, {}, true],
    ["day_of_month", "gte", { value: 28 }, { day: epochDay("2026-02-28") }, true],
    ["month", "eq", { value: 1 }, {}, true],
    ["month", "between", { min: 6, max: 8 }, { day: epochDay("2026-07-04") }, true],
    ["day_of_week", "eq", { value: 4 }, {}, true],
    ["day_of_week", "eq", { value: 7 }, { day: epochDay("2026-01-18") }, true],
    ["day_of_year", "eq", { value: 15 }, {}, true],
    ["day_of_year", "eq", { value: 366 }, { day: epochDay("2024-12-31") }, true],
    ["day_of_year", "lt", { value: 60 }, { day: epochDay("2026-03-01") }, false],
    ["day_of_month", "neq", { value: 1 }, {}, true],
    ["day_of_month", "gt", { value: 14 }, {}, true],
    ["day_of_month", "lte", { value: 14 }, {}, false],
    ["day_of_month", "approx", { value: 1, tolerance: 2 }, { day: epochDay("2026-01-03") }, true],
  ];
  it.each(rows)("%s %s %j on %j → %s", (field, op, operands, over, want) => {
    expect(judge(leaf(field, op, operands), ctxOf(over))).toBe(want);
  });
});

describe("boolean operators", () => {
  const rows: Row[] = [
    ["pending", "eq", { value: false }, {}, true],
    ["pending", "eq", { value: true }, {}, false],
    ["pending", "neq", { value: true }, {}, true],
    ["pending", "eq", { value: true }, { pending: true }, true],
    ["in_series", "eq", { value: false }, {}, true],
    ["in_series", "neq", { value: false }, { inSeries: true }, true],
    ["has_counterparty", "eq", { value: false }, {}, true],
    ["has_counterparty", "eq", { value: true }, { counterparty: "Acme" }, true],
  ];
  it.each(rows)("%s %s %j on %j → %s", (field, op, operands, over, want) => {
    expect(judge(leaf(field, op, operands), ctxOf(over))).toBe(want);
  });
});

describe("tags operators", () => {
  const rows: Row[] = [
    ["tags", "contains", { value: "business" }, {}, true],
    ["tags", "contains", { value: "Business" }, {}, true],
    ["tags", "contains", { value: "gift" }, {}, false],
    ["tags", "contains", { value: "business" }, { tags: [] }, false],
    ["tags", "not_contains", { value: "gift" }, {}, true],
    ["tags", "not_contains", { value: "vacation" }, {}, false],
    ["tags", "not_contains", { value: "vacation" }, { tags: [] }, true],
    ["tags", "in", { value: ["gift", "vacation"] }, {}, true],
    ["tags", "in", { value: ["gift", "reimbursable"] }, {}, false],
    ["tags", "in", { value: ["gift"] }, { tags: [] }, false],
  ];
  it.each(rows)("%s %s %j on %j → %s", (field, op, operands, over, want) => {
    expect(judge(leaf(field, op, operands), ctxOf(over))).toBe(want);
  });
});

describe("metadata operators (string and numeric ones, exists, not_exists)", () => {
  const rows: Row[] = [
    ["metadata.receipt", "exists", {}, {}, true],
    ["metadata.nope", "exists", {}, {}, false],
    ["metadata.nope", "not_exists", {}, {}, true],
    ["metadata.receipt", "not_exists", {}, {}, false],
    // A key whose value is null is there.
    ["metadata.nothing", "exists", {}, {}, true],
    ["metadata.receipt", "eq", { value: "r-17" }, {}, true],
    ["metadata.receipt", "neq", { value: "r-17" }, {}, false],
    ["metadata.receipt", "contains", { value: "17" }, {}, true],
    ["metadata.receipt", "not_contains", { value: "18" }, {}, true],
    ["metadata.receipt", "matches", { value: "^R-\\d+$" }, {}, true],
    ["metadata.receipt", "in", { value: ["r-16", "R-17"] }, {}, true],
    ["metadata.nope", "eq", { value: "" }, {}, true],
    ["metadata.nope", "contains", { value: "x" }, {}, false],
    ["metadata.miles", "eq", { value: 12.5 }, {}, true],
    ["metadata.miles", "eq", { value: "12.5" }, {}, true],
    ["metadata.miles", "gt", { value: 12 }, {}, true],
    ["metadata.miles", "gte", { value: 12.5 }, {}, true],
    ["metadata.miles", "lt", { value: 12.5 }, {}, false],
    ["metadata.miles", "lte", { value: 13 }, {}, true],
    ["metadata.miles", "approx", { value: 12, tolerance: 0.5 }, {}, true],
    ["metadata.miles", "between", { min: 10, max: 20 }, {}, true],
    ["metadata.miles", "neq", { value: 12.5 }, {}, false],
    ["metadata.miles", "in", { value: [12.5, 13] }, {}, true],
    // Text holding a plain number compares as a number.
    ["metadata.count", "gt", { value: 2 }, {}, true],
    ["metadata.count", "eq", { value: 3 }, {}, true],
    // Not a number: no numeric operator holds, except neq.
    ["metadata.receipt", "gt", { value: 0 }, {}, false],
    ["metadata.receipt", "lte", { value: 0 }, {}, false],
    ["metadata.receipt", "eq", { value: 0 }, {}, false],
    ["metadata.receipt", "neq", { value: 0 }, {}, true],
    ["metadata.nope", "between", { min: 0, max: 1 }, {}, false],
    ["metadata.nope", "neq", { value: 1 }, {}, true],
    ["metadata.reimbursed", "eq", { value: true }, {}, true],
    ["metadata.reimbursed", "eq", { value: "TRUE" }, {}, true],
    ["metadata.reimbursed", "neq", { value: false }, {}, true],
  ];
  it.each(rows)("%s %s %j on %j → %s", (field, op, operands, over, want) => {
    expect(judge(leaf(field, op, operands), ctxOf(over))).toBe(want);
  });

  it("a key named __proto__ is a plain key", () => {
    const metadata = JSON.parse('{"__proto__": "x"}') as Record<string, unknown>;
    expect(judge(leaf("metadata.__proto__", "eq", { value: "x" }), ctxOf({ metadata }))).toBe(true);
    expect(judge(leaf("metadata.__proto__", "exists", {}), ctxOf({ metadata: {} }))).toBe(false);
  });
});

describe("date parts", () => {
  it("agree with the calendar for every day from 1900 to 2100", () => {
    const part = (name: string, day: number) => (FIELDS.get(name) as NumberField).get(ctxOf({ day }));
    for (let day = epochDay("1900-01-01"); day <= epochDay("2100-12-31"); day++) {
      const d = new Date(day * 86_400_000);
      const jan1 = Date.UTC(d.getUTCFullYear(), 0, 1) / 86_400_000;
      expect([
        part("day_of_month", day),
        part("month", day),
        part("day_of_week", day),
        part("day_of_year", day),
      ]).toEqual([d.getUTCDate(), d.getUTCMonth() + 1, d.getUTCDay() === 0 ? 7 : d.getUTCDay(), day - jan1 + 1]);
    }
    expect(dateOfDay(epochDay("2024-02-29"))).toBe("2024-02-29");
  });
});
