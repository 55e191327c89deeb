import { describe, expect, it } from "vitest";
import householdJson from "../../fixtures/demo/household.json" with { type: "json" };
import { formatCents } from "../../common/money.js";
import { parseCents } from "../../fixtures/demo/cents.js";
import { demoDay, generateDemo, type DemoTransaction } from "../../fixtures/demo/generate.js";
import { readHousehold } from "../../fixtures/demo/household.js";
import { CATEGORY_TAXONOMY } from "../../services/ledger/taxonomy.js";

const household = readHousehold(householdJson);
const plan = generateDemo(household, "2026-06-15");
const clone = () => structuredClone(householdJson) as any;

describe("household.json", () => {
  it("names only categories the migrations seed", () => {
    const seeded = new Set(CATEGORY_TAXONOMY.flatMap((p) => [p.slug, ...p.children.map((c) => c.slug)]));
    const used = new Set(plan.transactions.flatMap((t) => (t.category ? [t.category] : [])));
    expect(used.size).toBeGreaterThan(30);
    expect([...used].filter((slug) => !seeded.has(slug))).toEqual([]);
  });

  it.each<[string, (h: any) => void, RegExp]>([
    ["an unknown field (a typo)", (h) => (h.accounts[0].opening = "1.00"), /Unrecognized key/],
    ["an amount with one decimal", (h) => (h.recurring[0].amount = "3150.5"), /an amount written like "12.34"/],
    [
      "a range upside down",
      (h) => (h.everyday.kinds[0].merchants[0].amount = { min: "7.80", max: "4.50" }),
      /min must not be above max/,
    ],
    ["a day not in every month", (h) => (h.recurring[0].day = 31), /recurring\[0\]\.day/],
    [
      "an anchor that is not a date",
      (h) => (h.recurring.find((r: any) => r.cadence === "biweekly").anchor = "2024-13-01"),
      /a date written YYYY-MM-DD/,
    ],
    ["an unknown account", (h) => (h.recurring[0].account = "wallet"), /recurring\.rent: no account "wallet"/],
    ["an unknown tag", (h) => (h.trips[0].tag = "holiday"), /no tag "holiday"/],
    ["an unknown counterparty", (h) => (h.recurring[0].counterparty = "nobody"), /no counterparty "nobody"/],
    [
      "a statement of a depository account",
      (h) => (h.recurring.at(-1).amount = { statementOf: "checking" }),
      /statementOf must name a credit account/,
    ],
    [
      "quarterly months not three apart",
      (h) => (h.recurring.find((r: any) => r.cadence === "quarterly").months = [1, 2, 7, 10]),
      /quarterly needs 4 months 3 apart/,
    ],
    [
      "two recurring entries with one id",
      (h) => (h.recurring[1].id = h.recurring[0].id),
      /recurring id "rent" appears twice/,
    ],
    ["overlapping trips", (h) => (h.trips[1].windows = h.trips[0].windows), /trip day "7\/12" appears twice/],
    [
      "a provider category outside the listed ones",
      (h) => (h.refunds.merchants[0].providerCategory = "SHOPPING_ONLINE"),
      /starts with none of providerCategories/,
    ],
  ])("refuses %s, saying where", (_, spoil, message) => {
    const h = clone();
    spoil(h);
    expect(() => readHousehold(h)).toThrow(message);
  });
});

describe("cents", () => {
  it.each([
    ["0.00", 0],
    ["0.05", 5],
    ["-0.05", -5],
    ["-0.00", 0],
    ["1234.56", 123456],
    ["-4230.77", -423077],
  ])("%s ↔ %d", (text, cents) => {
    expect(parseCents(text)).toBe(cents);
    expect(formatCents(cents)).toBe(text === "-0.00" ? "0.00" : text);
    expect(formatCents(BigInt(cents))).toBe(formatCents(cents));
  });

  it.each(["1.5", "1", "1.234", "1e3", " 1.00", "--1.00"])("refuses %j", (text) => {
    expect(() => parseCents(text)).toThrow();
  });
});

describe("the generator", () => {
  it("makes ~2,000 transactions over the 365 days before today, in whole cents", () => {
    expect(plan).toMatchObject({ from: "2025-06-15", to: "2026-06-14" });
    expect(plan.transactions.length).toBeGreaterThan(1800);
    expect(plan.transactions.length).toBeLessThan(2300);
    for (const t of plan.transactions) {
      expect(Number.isSafeInteger(t.cents), t.id).toBe(true);
      expect(t.date >= plan.from && t.date <= plan.to, t.id).toBe(true);
    }
    const keys = plan.transactions.map((t) => `${t.account}/${t.id}`);
    expect(new Set(keys).size).toBe(keys.length);
  });

  it("is deterministic, and a day does not depend on the window around it", () => {
    expect(generateDemo(household, "2026-06-15")).toEqual(plan);
    const later = generateDemo(household, "2026-06-16");
    const shared = (p: typeof plan) => p.transactions.filter((t) => t.date >= "2025-06-16" && t.date <= "2026-06-14");
    expect(shared(later)).toEqual(shared(plan));
    expect(demoDay(household, "2026-03-10")).toEqual(demoDay(household, "2026-03-10"));
  });

  it("refuses a today that is not a date", () => {
    for (const today of ["2026-02-30", "15.06.2026", ""])
      expect(() => generateDemo(household, today)).toThrow(/YYYY-MM-DD/);
  });
});

describe("recurring series: the catalogue is the ground truth", () => {
  const planted = (id: string) => plan.transactions.filter((t) => t.series === id);
  const expected: Record<string, (r: (typeof household.recurring)[number]) => number[]> = {
    monthly: () => [12],
    quarterly: () => [4],
    semiannual: () => [2],
    irregular: (r) => ["months" in r ? r.months.length : -1],
    biweekly: () => [26, 27],
  };

  it.each(household.recurring.map((r) => [r.id, r] as const))(
    "%s plants what its entry says, on its cadence",
    (_, r) => {
      const series = planted(r.id);
      expect(expected[r.cadence](r)).toContain(series.length);
      for (const t of series) {
        expect(t).toMatchObject({
          account: r.account,
          name: r.name,
          merchant: r.merchant,
          providerCategoryDetailed: r.providerCategory,
          category: r.category,
        });
        if (r.amount.kind === "range")
          expect(t.cents >= r.amount.min && t.cents <= r.amount.max, `${t.id}: ${t.cents}`).toBe(true);
        if (r.cadence !== "biweekly") expect(Number(t.date.slice(8)), t.id).toBe(r.day);
      }
      if (r.cadence === "biweekly") {
        const gaps = series.slice(1).map((t, i) => (Date.parse(t.date) - Date.parse(series[i].date)) / 86_400_000);
        expect(new Set(gaps)).toEqual(new Set([14]));
      }
    },
  );

  it("pays each card statement with two equal and opposite legs", () => {
    const legs = plan.transactions.filter((t) => t.id.endsWith("-card-payment"));
    expect(legs.length).toBeGreaterThanOrEqual(22);
    const byDate = new Map<string, DemoTransaction[]>();
    for (const t of legs) byDate.set(t.date, [...(byDate.get(t.date) ?? []), t]);
    for (const [date, pair] of byDate) {
      expect(pair.map((t) => t.account).sort(), date).toEqual(["card", "checking"]);
      expect(pair[0].cents + pair[1].cents, date).toBe(0);
    }
  });

  it("plants nothing else under a series' name on its account", () => {
    const seriesKeys = new Set(household.recurring.map((r) => `${r.account}/${r.name}`));
    const strays = plan.transactions.filter((t) => t.series === null && seriesKeys.has(`${t.account}/${t.name}`));
    expect(strays).toEqual([]);
  });
});
