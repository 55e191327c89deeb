import type { Browser } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { demoDay, formatCents } from "../../cli/demo.js";
import { startStackAndBrowser, openPage } from "./harness/browser.js";
import { createLogin, signIn, type Login } from "./harness/session.js";
import type { ConsoleStack } from "./harness/stack.js";

/**
 * The transaction grid over 10,000 rows of the demo household: a cold load shows the first rows
 * (the time is printed), and pages are fetched only as the person scrolls toward the end.
 */
const TARGET = 10_000;
const PAGE_SIZE = 100;
const GRID = "[role=table][aria-label='Transactions']";
const USD_ACCOUNTS = new Set(["checking", "card", "savings"]);

let stack: ConsoleStack;
let browser: Browser;
let key: string;
let admin: Login;
let total = 0;

/** YYYY-MM-DD, `days` before today (UTC). */
const daysAgo = (days: number) => new Date(Date.now() - days * 86_400_000).toISOString().slice(0, 10);

/**
 * The demo household's everyday spending before the demo's 12-month window, as a bank's CSV export
 * of the USD accounts: the same generator `coffer demo` uses, one day at a time, going back.
 */
function historyCsv(rows: number): string {
  const lines = ["id,date,amount,description,merchant"];
  const quote = (s: string) => `"${s.replace(/"/g, '""')}"`;
  for (let day = 370; lines.length <= rows; day++) {
    for (const t of demoDay(daysAgo(day))) {
      if (!USD_ACCOUNTS.has(t.account)) continue;
      lines.push(
        [`${t.id}-${t.account}-history`, t.date, formatCents(t.cents), quote(t.name), quote(t.merchant ?? "")].join(
          ",",
        ),
      );
      if (lines.length > rows) break;
    }
  }
  return lines.join("\n") + "\n";
}

beforeAll(async () => {
  [stack, browser] = await startStackAndBrowser({ plaid: false });
  await stack.loadDemo();
  key = await stack.createKey("full_access", "grid test");
  admin = await createLogin(stack, "admin");
  const count = async () => (await stack.api<{ count: number }>(key, "GET", "/api/v1/transactions/count")).body.count;
  const missing = TARGET - (await count());
  const users = await stack.api<{ users: { short_id: string; email: string | null }[] }>(key, "GET", "/api/v1/users");
  const ann = users.body.users.find((u) => u.email === "ann@demo.coffer.local")!;
  // Imported through the CSV provider like a person's export; the connection's first sync loads it.
  const made = await stack.api(key, "POST", "/api/v1/connections", {
    provider: "csv",
    user_id: ann.short_id,
    credentials: {
      csv: historyCsv(missing),
      column_mapping: { id: "id", date: "date", amount: "amount", description: "description", merchant: "merchant" },
      date_format: "YYYY-MM-DD",
      positive_is_debit: true,
      account_name: "Joint Checking (history)",
      iso_currency_code: "USD",
    },
  });
  expect(made.status, JSON.stringify(made.body)).toBe(201);
  for (const deadline = Date.now() + 120_000; (total = await count()) < TARGET;) {
    if (Date.now() > deadline) throw new Error(`only ${total} transactions after the import`);
    await new Promise((r) => setTimeout(r, 500));
  }
}, 300_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

describe("the transaction grid over 10,000 rows", () => {
  it("shows the first rows on a cold load and fetches a page only when scrolled near the end", async () => {
    expect(total).toBeGreaterThanOrEqual(TARGET);
    const { page, context, errors } = await openPage(browser, stack.url);
    await signIn(context, stack, admin);
    const lists: string[] = [];
    page.on("request", (r) => {
      const u = new URL(r.url());
      if (u.pathname === "/api/v1/transactions") lists.push(u.search);
    });

    // Cold: a fresh context has nothing cached, so this is the whole first load (HTML, JS, session, page 1).
    await page.goto("/transactions");
    await page.locator(`${GRID} .tx-body [role=row]`).first().waitFor();
    const firstRowsMs = await page.evaluate(() => Math.round(performance.now()));
    console.log(`grid: first rows ${firstRowsMs} ms after navigation start (cold load, ${total} transactions)`);
    expect(firstRowsMs).toBeLessThan(10_000);

    // Rows loaded so far (the grid draws only those near the viewport, and says how many it holds).
    const loadedRows = async () => Number(await page.locator(GRID).getAttribute("data-loaded"));
    await expect.poll(loadedRows).toBe(PAGE_SIZE);
    await expect
      .poll(() => page.getByRole("status").filter({ hasText: "transactions" }).first().textContent())
      .toContain(`${total.toLocaleString("en-US")} transactions`);
    // Sitting still, or scrolling within what is loaded, fetches nothing more.
    await page.waitForTimeout(1_000);
    await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight * 0.3));
    await page.waitForTimeout(1_000);
    expect(lists).toHaveLength(1);

    // Each scroll to the end asks for one more page, until the list ends.
    const started = Date.now();
    let scrolls = 0;
    for (let loaded = PAGE_SIZE; loaded < total;) {
      scrolls++;
      await page.evaluate(() => window.scrollTo(0, document.documentElement.scrollHeight));
      await page.waitForFunction(
        ([grid, n]) => Number(document.querySelector<HTMLElement>(grid as string)?.dataset.loaded) > (n as number),
        [GRID, loaded],
        { timeout: 15_000, polling: 50 },
      );
      loaded = await loadedRows();
      expect(lists.length).toBeLessThanOrEqual(scrolls + 1);
    }
    await expect.poll(() => page.getByText("End of the list.").count()).toBe(1);
    const pages = Math.ceil(total / PAGE_SIZE);
    expect(await loadedRows()).toBe(total);
    // Drawn are only the rows near the viewport, not all 10,000.
    expect(await page.locator(`${GRID} .tx-body [role=row]`).count()).toBeLessThan(200);
    expect(lists).toHaveLength(pages);
    expect(scrolls).toBe(pages - 1);
    // Every page after the first carried the previous page's cursor.
    expect(lists.slice(1).every((q) => q.includes("cursor="))).toBe(true);
    const ms = Date.now() - started;
    console.log(`grid: scrolled through ${total} rows in ${pages} page requests (${scrolls} scrolls) in ${ms} ms`);
    await page.waitForTimeout(1_000);
    expect(lists).toHaveLength(pages);
    expect(errors).toEqual([]);
    await context.close();
  }, 300_000);
});
