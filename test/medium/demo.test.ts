import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoDay, describeDemo, formatCents, loadDemo, type DemoSummary } from "../../cli/demo.js";
import { openOrm, type Orm } from "../../services/db/orm.js";
import { query } from "../../services/db/sql.js";
import { createTestDatabase } from "../helpers/db.js";

const TODAY = "2026-06-15";
let orm: Orm;
let first: DemoSummary;
let second: DemoSummary;
beforeAll(async () => {
  orm = await openOrm(await createTestDatabase(), 2);
  first = await loadDemo(orm.em.fork(), { today: TODAY });
  second = await loadDemo(orm.em.fork(), { today: TODAY });
});
afterAll(async () => {
  await orm?.close();
});

const q = <T = Record<string, unknown>>(sql: string, params: unknown[] = []) => query<T>(orm.em.fork(), sql, params);

describe("formatCents", () => {
  it.each([
    [0, "0.00"],
    [5, "0.05"],
    [-5, "-0.05"],
    [123456, "1234.56"],
    [-423077, "-4230.77"],
    [100, "1.00"],
  ])("%d → %s", (value, text) => {
    expect(formatCents(value)).toBe(text);
  });

  it("refuses anything but whole cents", () => {
    expect(() => formatCents(1.5)).toThrow();
  });
});

describe("coffer demo", () => {
  it("loads a household: two users, four accounts, ~2,000 transactions over the 365 days before today", () => {
    expect(first).toMatchObject({ users: 2, accounts: 4, from: "2025-06-15", to: "2026-06-14" });
    expect(first.transactions).toBeGreaterThanOrEqual(1800);
    expect(first.transactions).toBeLessThanOrEqual(2300);
    expect(first.insertedTransactions).toBe(first.transactions);
    expect(Object.keys(first.byCurrency)).toEqual(["EUR", "USD"]);
    expect(first.byCurrency.EUR).toBeGreaterThan(100);
    expect(first.comments).toBeGreaterThan(5);
    expect(describeDemo(first)).toContain(`transactions   ${first.transactions}`);
  });

  it("is idempotent: a second run adds nothing and the counts are the same", async () => {
    expect(second.insertedTransactions).toBe(0);
    expect(second.insertedComments).toBe(0);
    expect({ ...second, insertedTransactions: 0, insertedComments: 0 }).toEqual({
      ...first,
      insertedTransactions: 0,
      insertedComments: 0,
    });
    const [counts] = await q<Record<string, number>>(`
      select (select count(*)::int from users) as users, (select count(*)::int from accounts) as accounts,
             (select count(*)::int from tags) as tags, (select count(*)::int from counterparties) as counterparties,
             (select count(*)::int from transactions) as transactions,
             (select count(*)::int from comments) as comments`);
    expect(counts).toEqual({
      users: 2,
      accounts: 4,
      // The demo's three, and needs_review of the built-in rule (migration 0009).
      tags: 4,
      counterparties: 4,
      transactions: first.transactions,
      comments: first.comments,
    });
  });

  it("keeps every date inside the window and every account in its own currency", async () => {
    const [range] = await q<{ min: string; max: string }>(
      `select min(date)::text as min, max(date)::text as max from transactions`,
    );
    expect(range.min >= "2025-06-15" && range.max <= "2026-06-14").toBe(true);
    const mismatched = await q(
      `select 1 from transactions t join accounts a on a.id = t.account_id
       where t.iso_currency_code <> a.iso_currency_code`,
    );
    expect(mismatched).toEqual([]);
    const accounts = await q<{ name: string; iso_currency_code: string; user: string }>(
      `select a.name, a.iso_currency_code, u.email as user
       from accounts a join users u on u.id = a.user_id order by a.name`,
    );
    expect(accounts).toEqual([
      { name: "Girokonto", iso_currency_code: "EUR", user: "ben@demo.coffer.local" },
      { name: "High-Yield Savings", iso_currency_code: "USD", user: "ben@demo.coffer.local" },
      { name: "Joint Checking", iso_currency_code: "USD", user: "ann@demo.coffer.local" },
      { name: "Sapphire Card", iso_currency_code: "USD", user: "ann@demo.coffer.local" },
    ]);
  });

  it("looks like a real household: salaries, rent, refunds, mostly categorized by the system, some tags", async () => {
    const [t] = await q<Record<string, number>>(`
      select count(*) filter (where provider_name = 'NORTHWIND LABS PAYROLL')::int as ann_salaries,
             count(*) filter (where provider_name = 'Rheinwerk GmbH Gehalt')::int as ben_salaries,
             count(*) filter (where provider_name like 'MAPLE STREET%')::int as rents,
             count(*) filter (where amount < 0 and provider_name like '%REFUND%')::int as refunds,
             count(*) filter (where category_id is not null)::int as categorized,
             count(*) filter (where category_id is not null and category_source <> 'system')::int as not_system,
             count(*) filter (where counterparty_id is not null)::int as with_counterparty,
             count(*) filter (where provider_merchant_name is not null
                                and provider_category_primary is not null)::int as enriched,
             count(*)::int as total
      from transactions`);
    expect(t.ann_salaries).toBeGreaterThanOrEqual(26);
    expect(t.ben_salaries).toBe(12);
    expect(t.rents).toBe(12);
    expect(t.refunds).toBeGreaterThan(5);
    expect(t.categorized / t.total).toBeGreaterThan(0.85);
    expect(t.categorized).toBeLessThan(t.total);
    expect(t.not_system).toBe(0);
    expect(t.with_counterparty).toBeGreaterThanOrEqual(50);
    expect(t.enriched / t.total).toBeGreaterThan(0.8);
    const tags = await q<{ slug: string; n: number }>(
      `select g.slug, count(t.id)::int as n
       from tags g left join transactions t on g.id = any(t.tag_ids) group by g.slug order by g.slug`,
    );
    // needs_review comes with the built-in rule (migration 0009); the demo loads no rules, so it tags nothing.
    expect(tags.map((r) => r.slug)).toEqual(["needs_review", "reimbursable", "tax_deductible", "vacation"]);
    for (const r of tags.filter((t) => t.slug !== "needs_review")) expect(r.n, r.slug).toBeGreaterThan(0);
  });

  it("derives balances from the transactions, exactly", async () => {
    const [card] = await q<{ balance_current: string; sum: string; balance_limit: string }>(
      `select a.balance_current::text, a.balance_limit::text,
         (select sum(amount) from transactions where account_id = a.id)::text as sum
       from accounts a where a.name = 'Sapphire Card'`,
    );
    expect(card.balance_current).toBe(card.sum);
    expect(card.balance_limit).toBe("15000.00");
    const [giro] = await q<{ ok: boolean }>(
      `select a.balance_current = 3400.00 - (select sum(amount) from transactions where account_id = a.id) as ok
       from accounts a where a.name = 'Girokonto'`,
    );
    expect(giro.ok).toBe(true);
  });

  it("each day is a pure function of its date, so a later run only tops up the new day", async () => {
    expect(demoDay("2026-03-10")).toEqual(demoDay("2026-03-10"));
    const next = await loadDemo(orm.em.fork(), { today: "2026-06-16" });
    // The new day's own transactions, plus reimbursements of earlier work expenses that land on it.
    const earlier = Array.from({ length: 30 }, (_, k) =>
      new Date(Date.parse("2026-06-15T00:00:00Z") - k * 86_400_000).toISOString().slice(0, 10),
    );
    const expected = earlier.flatMap((d) => demoDay(d)).filter((i) => i.date === "2026-06-15").length;
    expect(expected).toBeGreaterThan(0);
    expect(next.insertedTransactions).toBe(expected);
    expect(next.transactions).toBe(first.transactions + expected);
    const [onNewDay] = await q<{ n: number }>(`select count(*)::int as n from transactions where date = '2026-06-15'`);
    expect(onNewDay.n).toBe(expected);
    const dupes = await q(
      `select 1 from transactions group by account_id, provider_transaction_id having count(*) > 1`,
    );
    expect(dupes).toEqual([]);
  });
});
