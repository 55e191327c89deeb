import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStackAndBrowser, openPage, screenshots } from "./harness/browser.js";
import { createLogin, signIn, type Login } from "./harness/session.js";
import type { ConsoleStack } from "./harness/stack.js";

/**
 * The console's pages A in a real Chromium against the three real processes on the demo household:
 * home, transactions (grid, side panel, bulk categorize), the review queue by keyboard, rules with live
 * preview and apply, categories and tags, settings, and a viewer refused a write.
 */
let stack: ConsoleStack;
let browser: Browser;
let key: string;
let admin: Login;

interface Tx {
  id: string;
  short_id: string;
  name: string;
  date: string;
  category_slug: string | null;
  category_source: string | null;
  tags: string[];
}

beforeAll(async () => {
  [stack, browser] = await startStackAndBrowser({ plaid: false });
  await stack.loadDemo();
  key = await stack.createKey("full_access", "pages-a test");
  admin = await createLogin(stack, "admin");
}, 180_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

async function signedIn(login: Login = admin): Promise<{ page: Page; context: BrowserContext; errors: string[] }> {
  const opened = await openPage(browser, stack.url);
  // A failed request names its URL (the console message alone does not).
  opened.page.on("response", (r) => {
    if (r.status() >= 400) opened.errors.push(`${r.status()} ${r.request().method()} ${r.url()}`);
  });
  await signIn(opened.context, stack, login);
  return opened;
}

/** A regular expression matching `text` literally at the start. */
const startsWith = (text: string) => new RegExp(`^${text.replace(/[.*+?^${}()|[\]\\]/g, "\\$&")}`);

async function tx(id: string): Promise<Tx> {
  const r = await stack.api<Tx>(key, "GET", `/api/v1/transactions/${id}`);
  expect(r.status).toBe(200);
  return r.body;
}

/** Newest transactions of the demo household, read through the API. */
async function newest(limit: number, query = ""): Promise<Tx[]> {
  const r = await stack.api<{ transactions: Tx[] }>(key, "GET", `/api/v1/transactions?limit=${limit}${query}`);
  return r.body.transactions;
}

describe("review queue", () => {
  it("recategorizes with c and accepts with a, by keyboard; the count follows", async () => {
    // Three transactions to review (new demo rows do not pass through the sync's rules, so tag them here).
    const queued = (await newest(40)).filter((t) => t.category_source !== "user").slice(0, 3);
    for (const t of queued) {
      expect(
        (await stack.api(key, "POST", `/api/v1/transactions/${t.short_id}/tags`, { slug: "needs_review" })).status,
      ).toBe(200);
    }
    const { page, context, errors } = await signedIn();
    await page.goto("/review");
    await expect.poll(() => page.getByRole("heading", { name: "Review queue", level: 1 }).count()).toBe(1);
    const rows = page.locator("[role=table][aria-label='Transactions to review'] .tx-body [role=row]");
    await expect.poll(() => rows.count()).toBe(3);
    await expect
      .poll(() => page.getByRole("status").filter({ hasText: "transactions" }).first().textContent())
      .toContain("3 transactions");
    await screenshots(page, "review");

    // c on the first row opens its category picker; Enter saves it.
    const first = queued[0];
    const target =
      first.category_slug === "food_and_drink_groceries" ? "general_merchandise_gifts" : "food_and_drink_groceries";
    await rows.first().focus();
    await page.keyboard.press("c");
    const picker = page.getByRole("combobox", { name: `Category for ${first.name}` });
    await picker.selectOption(target);
    const [patched] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === "PATCH" && r.url().endsWith(`/${first.short_id}/category`)),
      picker.press("Enter"),
    ]);
    expect(patched.status()).toBe(200);
    await expect.poll(async () => (await tx(first.short_id)).category_slug).toBe(target);
    expect((await tx(first.short_id)).category_source).toBe("user");

    // a on the same row drops the tag: the row leaves the queue, focus moves on, the count follows.
    await rows.first().focus();
    const [accepted] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === "DELETE" && r.url().includes("/tags/needs_review")),
      page.keyboard.press("a"),
    ]);
    expect(accepted.status()).toBe(200);
    await expect.poll(() => rows.count()).toBe(2);
    expect((await tx(first.short_id)).tags).not.toContain("needs_review");
    await expect
      .poll(() => page.getByRole("status").filter({ hasText: "transactions" }).first().textContent())
      .toContain("2 transactions");
    // The Accept button does the same for a pointer.
    await page
      .getByRole("button", { name: `Accept ${queued[1].name} on ${queued[1].date}` })
      .first()
      .click();
    await expect.poll(() => rows.count()).toBe(1);
    expect((await tx(queued[1].short_id)).tags).not.toContain("needs_review");
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe("transactions", () => {
  it("shows the count, filters by URL, opens the audit timeline, and bulk-categorizes a selection", async () => {
    const { page, context, errors } = await signedIn();
    const total = (await stack.api<{ count: number }>(key, "GET", "/api/v1/transactions/count")).body.count;
    await page.goto("/transactions");
    await expect
      .poll(() => page.getByRole("status").filter({ hasText: "transactions" }).first().textContent())
      .toContain(`${total.toLocaleString("en-US")} transactions`);

    // A filter typed in the form lands in the URL and in the count.
    await page.getByRole("searchbox", { name: "Search" }).fill("Starbucks");
    await page.getByRole("button", { name: "Apply filters" }).click();
    await page.waitForURL(/search=Starbucks/);
    const starbucks = (await stack.api<{ count: number }>(key, "GET", "/api/v1/transactions/count?search=Starbucks"))
      .body.count;
    await expect
      .poll(() => page.getByRole("status").filter({ hasText: "transactions" }).first().textContent())
      .toContain(`${starbucks.toLocaleString("en-US")} transactions`);

    // Bulk: select two rows and categorize them together.
    const rows = page.locator("[role=table][aria-label='Transactions'] .tx-body [role=row]");
    await rows.nth(0).getByRole("checkbox").check();
    await rows.nth(1).getByRole("checkbox").check();
    const ids = await Promise.all([0, 1].map((i) => rows.nth(i).getAttribute("data-id")));
    await page.getByRole("combobox", { name: "Category for the selected" }).selectOption("entertainment_games");
    await page.getByRole("button", { name: "Categorize 2 selected" }).click();
    await expect.poll(() => page.getByText(/Updated 2 transactions/).count()).toBe(1);
    for (const id of ids) expect((await tx(id!)).category_slug).toBe("entertainment_games");

    // The side panel shows the change on the audit timeline.
    const firstName = (await tx(ids[0]!)).name;
    await rows
      .nth(0)
      .getByRole("button", { name: startsWith(`Details of ${firstName}`) })
      .click();
    const panel = page.getByRole("dialog");
    await expect.poll(() => panel.getByRole("heading", { name: "Audit timeline" }).count()).toBe(1);
    await expect.poll(() => panel.locator(".timeline").textContent()).toContain("entertainment_games (bulk)");
    // A comment added in the panel lands on the transaction and its timeline.
    await panel.getByLabel("Add a comment").fill("checked the receipt");
    await panel.getByRole("button", { name: "Add comment" }).click();
    await expect.poll(() => panel.locator(".comment").first().textContent()).toContain("checked the receipt");
    await expect.poll(() => panel.locator(".timeline").textContent()).toContain("Comment added");
    await screenshots(page, "transactions");
    await page.keyboard.press("Escape");
    await expect.poll(() => page.getByRole("dialog").count()).toBe(0);
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe("rules", () => {
  it("creates a rule with a live preview, then applies it and shows what changed", async () => {
    const { page, context, errors } = await signedIn();
    const previews: string[] = [];
    page.on("request", (r) => {
      if (r.url().endsWith("/api/v1/rules/preview")) previews.push(r.postData() ?? "");
    });
    await page.goto("/rules/new");
    await page.getByRole("textbox", { name: "Rule name" }).fill("Blue Bottle is a treat");
    // Typed a key at a time: the preview waits for a pause (debounced), not one request per key.
    await page.getByRole("textbox", { name: "Value" }).first().pressSequentially("Blue Bottle", { delay: 40 });
    const expected = await stack.api<{ match_count: number; total_scanned: number }>(
      key,
      "POST",
      "/api/v1/rules/preview",
      {
        conditions: { and: [{ field: "provider_merchant_name", op: "contains", value: "Blue Bottle" }] },
      },
    );
    expect(expected.body.match_count).toBeGreaterThan(0);
    await expect
      .poll(() => page.getByTestId("match-count").textContent())
      .toBe(expected.body.match_count.toLocaleString("en-US"));
    expect(previews.filter((p) => p.includes("Blue Bottle")).length).toBe(1);
    expect(previews.length).toBeLessThanOrEqual(3);
    await expect
      .poll(() => page.getByRole("table", { name: "Newest matches" }).locator("tbody tr").count())
      .toBeGreaterThan(0);

    // The raw JSON mode edits the same tree; broken JSON is named and keeps the text.
    await page.getByRole("radio", { name: "Raw JSON" }).check();
    const json = page.getByRole("textbox", { name: "Conditions as JSON" });
    expect(JSON.parse(await json.inputValue())).toEqual({
      and: [{ field: "provider_merchant_name", op: "contains", value: "Blue Bottle" }],
    });
    await json.fill('{"and": [');
    await expect.poll(() => page.getByRole("alert").first().textContent()).toContain("Not valid JSON");
    // Back to the builder is refused while the JSON does not parse: nothing typed is lost.
    await page.getByRole("radio", { name: "Builder" }).click();
    expect(await page.getByRole("radio", { name: "Raw JSON" }).isChecked()).toBe(true);
    expect(await json.inputValue()).toBe('{"and": [');
    await json.fill(
      JSON.stringify({
        and: [
          { field: "provider_merchant_name", op: "contains", value: "Blue Bottle" },
          { not: { field: "amount", op: "gt", value: "1000" } },
        ],
      }),
    );
    await page.getByRole("radio", { name: "Builder" }).check();
    await expect.poll(() => page.getByRole("group", { name: "NOT conditions.and[1]" }).count()).toBe(1);

    // The action: set a category; then create.
    await page.getByRole("combobox", { name: "Category", exact: true }).selectOption("entertainment_other");
    await page.getByRole("button", { name: "Create rule" }).click();
    await page.waitForURL(/\/rules\/[A-Za-z0-9]{8}$/);
    const ruleId = page.url().split("/").pop()!;
    const stored = await stack.api<{ name: string; enabled: boolean }>(key, "GET", `/api/v1/rules/${ruleId}`);
    expect(stored.body).toMatchObject({ name: "Blue Bottle is a treat", enabled: true });
    await expect.poll(() => page.getByRole("heading", { name: "Rule: Blue Bottle is a treat" }).count()).toBe(1);

    const [applied] = await Promise.all([
      page.waitForResponse((r) => r.url().endsWith(`/api/v1/rules/${ruleId}/apply`)),
      page.getByRole("button", { name: "Apply rule now" }).click(),
    ]);
    const { matched, changed } = (await applied.json()) as { matched: number; changed: number };
    expect(matched).toBe(expected.body.match_count);
    expect(changed).toBeGreaterThan(0);
    await expect
      .poll(() => page.getByRole("status").filter({ hasText: "Matched" }).textContent())
      .toContain(`Matched ${matched.toLocaleString("en-US")} transactions, changed ${changed.toLocaleString("en-US")}`);
    const moved = await stack.api<{ count: number }>(
      key,
      "GET",
      "/api/v1/transactions/count?search=Blue%20Bottle&category_slug=entertainment_other",
    );
    expect(moved.body.count).toBeGreaterThanOrEqual(changed);
    await screenshots(page, "rule-editor");

    // The list finds it by name, and disables it.
    await page.goto("/rules?search=Blue%20Bottle");
    const toggle = page.getByRole("button", { name: "Disable Blue Bottle is a treat" });
    await toggle.click();
    await expect.poll(async () => (await stack.api(key, "GET", `/api/v1/rules/${ruleId}`)).body.enabled).toBe(false);
    await expect.poll(() => page.getByRole("button", { name: "Enable Blue Bottle is a treat" }).count()).toBe(1);
    await page.goto("/rules");
    await screenshots(page, "rules");
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe("categories and tags", () => {
  it("deleting a category in use asks where its transactions go, then moves them", async () => {
    const { page, context, errors } = await signedIn();
    // A category of its own with two transactions in it.
    const made = await stack.api(key, "POST", "/api/v1/categories", { display_name: "Board games" });
    expect(made.status).toBe(201);
    const two = await newest(2, "&search=Target");
    await stack.api(key, "POST", "/api/v1/transactions/batch-categorize", {
      transaction_ids: two.map((t) => t.short_id),
      category_slug: "board_games",
    });
    await page.goto("/categories");
    await page.getByRole("button", { name: "Delete Board games" }).click();
    await expect.poll(() => page.getByText("2 transactions use “Board games”").count()).toBe(1);
    await page.getByRole("combobox", { name: "Move its transactions to" }).selectOption("entertainment_games");
    await page.getByRole("button", { name: "Delete “Board games”" }).click();
    await expect.poll(() => page.getByRole("button", { name: "Delete Board games" }).count()).toBe(0);
    for (const t of two) expect((await tx(t.short_id)).category_slug).toBe("entertainment_games");
    await screenshots(page, "categories");
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe("home and settings", () => {
  it("home shows the review count and this month's spending chart; settings shows versions and providers", async () => {
    const { page, context, errors } = await signedIn();
    await page.goto("/");
    await expect.poll(() => page.getByRole("heading", { name: "Spending this month" }).count()).toBe(1);
    // One chart per currency with spending this month (uPlot draws into a canvas).
    await expect.poll(() => page.locator(".uplot canvas").count()).toBeGreaterThan(0);
    const review = (await stack.api<{ count: number }>(key, "GET", "/api/v1/transactions/count?tags=needs_review")).body
      .count;
    await expect
      .poll(() => page.locator("#h-review ~ p").first().textContent())
      .toMatch(new RegExp(`^${review.toLocaleString("en-US")} transactions? needs? review`));
    await screenshots(page, "home");

    await page.goto("/settings");
    await expect.poll(() => page.getByRole("table", { name: "Providers" }).textContent()).toContain("csv");
    await expect.poll(() => page.locator("dl.facts").first().textContent()).toContain("1.1.0");
    await expect.poll(() => page.getByText("The core answers and its database is reachable").count()).toBe(1);
    await screenshots(page, "settings");
    expect(errors).toEqual([]);
    await context.close();
  });
});

describe("a viewer", () => {
  it("is refused a write: the 403 is shown in the page and nothing changes", async () => {
    const viewer = await createLogin(stack, "viewer");
    const { page, context } = await signedIn(viewer);
    const [first] = await newest(1);
    await page.goto("/transactions");
    const row = page.locator(`[role=row][data-id='${first.id}']`);
    await row.getByRole("button", { name: startsWith(`Category of ${first.name}`) }).click();
    const picker = page.getByRole("combobox", { name: `Category for ${first.name}` });
    const target = first.category_slug === "travel_flights" ? "travel_lodging" : "travel_flights";
    await picker.selectOption(target);
    const [refused] = await Promise.all([
      page.waitForResponse((r) => r.request().method() === "PATCH"),
      row.getByRole("button", { name: "Save" }).click(),
    ]);
    expect(refused.status()).toBe(403);
    const alert = row.getByRole("alert");
    await expect.poll(() => alert.textContent()).toContain("Not allowed");
    expect(await alert.textContent()).toMatch(/INSUFFICIENT_SCOPE|FORBIDDEN/);
    expect((await tx(first.short_id)).category_slug).toBe(first.category_slug);
    await screenshots(page, "viewer-refused");
    await context.close();
  });
});
