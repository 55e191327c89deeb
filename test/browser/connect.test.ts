import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";

// A browser, three processes and real syncs: more time than a unit test.
vi.setConfig({ testTimeout: 90_000 });
import { startStackAndBrowser, openPage, screenshots } from "./harness/browser.js";
import { createLogin, signIn, type Login } from "./harness/session.js";
import type { ConsoleStack } from "./harness/stack.js";

/**
 * Connecting banks through the console: Plaid Link and Teller Connect (the fake widgets, handing over
 * tokens the fake provider servers accept), SimpleFIN's setup token, a CSV file with a remapped column,
 * and Plaid's update mode for a connection in pending_reauth; then the Connections page's actions.
 */
let stack: ConsoleStack;
let browser: Browser;
let admin: Login;
let key: string;

beforeAll(async () => {
  [stack, browser] = await startStackAndBrowser({ plaid: true, teller: true });
  [admin, key] = await Promise.all([createLogin(stack, "admin"), stack.createKey("full_access")]);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

async function signedIn(): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const opened = await openPage(browser, stack.url);
  await signIn(opened.context, stack, admin);
  return opened;
}

interface Conn {
  id: string;
  short_id: string;
  provider: string;
  status: string;
  institution_name: string;
}

const connections = async () => (await stack.api<Conn[]>(key, "GET", "/api/v1/connections")).body;

/** The transactions of one connection's accounts, through the API. */
async function transactionsOf(conn: { short_id: string }): Promise<{ name: string; amount: number; date: string }[]> {
  const accounts = (await stack.api(key, "GET", "/api/v1/accounts")).body.accounts as {
    id: string;
    connection_id: string | null;
  }[];
  const mine = accounts.filter((a) => a.connection_id === conn.short_id);
  const rows: { name: string; amount: number; date: string }[] = [];
  for (const a of mine) {
    const r = await stack.api(key, "GET", `/api/v1/transactions?account_id=${a.id}&limit=500`);
    rows.push(...r.body.transactions);
  }
  return rows;
}

/** Waits until the connection's newest sync log has finished successfully. */
async function syncedOnce(connectionId: string): Promise<void> {
  await expect
    .poll(
      async () => {
        const r = await stack.api(key, "GET", `/api/v1/sync/logs?connection_id=${connectionId}&limit=1`);
        return r.body.sync_logs[0]?.status;
      },
      { timeout: 30_000 },
    )
    .toBe("success");
}

describe("connect a bank", () => {
  it("lists the providers from GET /providers", async () => {
    const { page, context } = await signedIn();
    await page.goto("/connect");
    const list = page.getByRole("list", { name: "Providers" });
    for (const name of ["Plaid", "Teller", "SimpleFIN Bridge", "CSV file"]) {
      await list.getByRole("heading", { name }).waitFor();
    }
    await screenshots(page, "connect");
    await context.close();
  });

  it("Plaid: Link exits and fails in place, then succeeds; the connection syncs, its transactions show", async () => {
    const { page, context, errors } = await signedIn();
    await page.goto("/connect");
    await page.getByRole("link", { name: "Connect with Plaid" }).click();
    await page.waitForURL(`${stack.url}/connect/plaid`);
    await screenshots(page, "connect-plaid");
    const open = page.getByRole("button", { name: "Open Plaid Link" });
    const link = page.getByRole("dialog", { name: "Plaid Link (test double)" });

    await open.click();
    await link.waitFor();
    await screenshots(page, "connect-plaid-link");
    await link.getByRole("button", { name: "Exit" }).click();
    await page.getByText("You closed Plaid Link before finishing").waitFor();

    await open.click();
    await link.getByRole("button", { name: "Fail with an error" }).click();
    await expect
      .poll(() => page.getByRole("alert").textContent())
      .toContain("The credentials you provided were incorrect");
    expect(await connections()).toEqual([]);

    await open.click();
    await link.getByRole("button", { name: "Continue" }).click();
    await page.getByRole("heading", { name: "Connected: First Platypus Bank" }).waitFor();
    const [conn] = await connections();
    expect(conn).toMatchObject({ provider: "plaid", institution_name: "First Platypus Bank" });
    await syncedOnce(conn.id);
    const rows = await transactionsOf(conn);
    expect(rows.length).toBeGreaterThan(0);

    await page.getByRole("link", { name: "transactions", exact: true }).click();
    const grid = page.getByRole("table", { name: "Transactions" });
    await grid.getByText(rows[0].name).first().waitFor();
    expect(errors.filter((e) => e.startsWith("pageerror"))).toEqual([]);
    await context.close();
  });

  it("Plaid update mode: a pending_reauth connection logs in again from the Connections page", async () => {
    const conn = (await connections()).find((c) => c.provider === "plaid")!;
    // The Item the fake Link handed over when the connection was made.
    const made = stack.widgets.completed.find((c) => c.widget === "plaid" && c.id)!;
    const item = stack.plaid!.item(made.id!);
    await stack.plaid!.resetLogin(item);
    // The bank's "login required" arrives on the next sync (and by webhook): the connection waits for the person.
    await stack.api(key, "POST", `/api/v1/connections/${conn.id}/sync`, {});
    await expect
      .poll(async () => (await stack.api(key, "GET", `/api/v1/connections/${conn.id}`)).body.status, {
        timeout: 30_000,
      })
      .toBe("pending_reauth");

    const { page, context } = await signedIn();
    await page.goto("/connections");
    const card = page.getByRole("listitem", { name: "First Platypus Bank" });
    await card.getByText("needs login").waitFor();
    await screenshots(page, "connections-pending-reauth");
    await card.getByRole("link", { name: "Log in again" }).click();
    await page.waitForURL(new RegExp(`/connect/plaid\\?reauth=${conn.id}$`));
    await page.getByRole("heading", { name: "Reconnect with Plaid" }).waitFor();
    await page.getByRole("button", { name: "Log in again with Plaid" }).click();
    await page
      .getByRole("dialog", { name: "Plaid Link (test double)" })
      .getByRole("button", { name: "Continue" })
      .click();
    await page.getByRole("heading", { name: "Reconnected: First Platypus Bank" }).waitFor();
    // Update mode gave a link token for this Item (the same access token); the repaired login syncs again.
    const last = stack.widgets.completed.at(-1)!;
    expect(stack.plaid!.linkTokens.get(last.params.link_token)?.itemId).toBe(item.itemId);
    await expect
      .poll(async () => (await stack.api(key, "GET", `/api/v1/connections/${conn.id}`)).body.status, {
        timeout: 30_000,
      })
      .toBe("active");
    await page.getByRole("link", { name: "Connections" }).first().click();
    await page.getByRole("listitem", { name: "First Platypus Bank" }).getByText("active").waitFor();
    await context.close();
  });

  it("Teller: Connect hands over an enrollment; the connection syncs its accounts", async () => {
    const { page, context } = await signedIn();
    await page.goto("/connect");
    await page.getByRole("link", { name: "Connect with Teller" }).click();
    await page.waitForURL(`${stack.url}/connect/teller`);
    await screenshots(page, "connect-teller");
    await page.getByRole("button", { name: "Open Teller Connect" }).click();
    const dialog = page.getByRole("dialog", { name: "Teller Connect (test double)" });
    await dialog.getByRole("button", { name: "Fail with an error" }).click();
    await expect.poll(() => page.getByRole("alert").textContent()).toContain("did not respond in time");
    await page.getByRole("button", { name: "Open Teller Connect" }).click();
    await dialog.getByRole("button", { name: "Continue" }).click();
    await page.getByRole("heading", { name: "Connected: Chase" }).waitFor();
    const conn = (await connections()).find((c) => c.provider === "teller")!;
    await syncedOnce(conn.id);
    const rows = await transactionsOf(conn);
    // Three accounts, five posted rows and one pending row each.
    expect(rows.length).toBe(18);
    await page.goto("/connections");
    const card = page.getByRole("listitem", { name: "Chase" });
    await card.getByRole("button", { name: "Sync logs" }).click();
    await expect.poll(() => card.getByRole("table").textContent()).toContain("18");
    await context.close();
  });

  it("SimpleFIN: a pasted setup token connects; a claimed one is refused in place and the token stays", async () => {
    const token = stack.simplefin.createSetupToken();
    const { page, context } = await signedIn();
    await page.goto("/connect/simplefin");
    await screenshots(page, "connect-simplefin");
    await page.getByLabel("Setup token").fill(token);
    await page.getByRole("button", { name: "Connect" }).click();
    await page.getByRole("heading", { name: /^Connected: / }).waitFor();

    await page.goto("/connect/simplefin");
    await page.getByLabel("Setup token").fill(token);
    await page.getByRole("button", { name: "Connect" }).click();
    await expect.poll(() => page.getByRole("alert").textContent()).toMatch(/claimed|compromised/i);
    expect(await page.getByLabel("Setup token").inputValue()).toBe(token);
    await context.close();
  });
});

describe("CSV import", () => {
  const header = "Date,Payee,Memo,Amount\n";
  const rows = Array.from({ length: 40 }, (_, i) => {
    const day = String((i % 28) + 1).padStart(2, "0");
    return `2026-03-${day},SHOP ${i},memo line ${i},-${(i + 1) * 3}.25`;
  });
  const file = header + rows.join("\n") + "\n";

  it("previews the inferred mapping, re-parses live when a column is remapped, imports with progress", async () => {
    const { page, context } = await signedIn();
    await page.goto("/connect/csv");
    await page.getByLabel("CSV file").setInputFiles({
      name: "checking-export.csv",
      mimeType: "text/csv",
      buffer: Buffer.from(file),
    });
    const preview = page.getByRole("table", { name: "Preview" });
    await preview.getByText("SHOP 0", { exact: true }).waitFor();
    expect(await page.getByLabel("Account name").inputValue()).toBe("checking-export");
    expect(await page.getByLabel("Description column").inputValue()).toBe("Payee");
    expect(await page.getByLabel("Amount column").inputValue()).toBe("Amount");
    // Money out in the file is negative: stored positive (Coffer's sign).
    await preview.getByText("$3.25", { exact: true }).waitFor();

    // The description comes from the Memo column instead: the first rows are read again by the server.
    await page.getByLabel("Description column").selectOption("Memo");
    await preview.getByText("memo line 0", { exact: true }).waitFor();
    expect(await preview.getByText("SHOP 0", { exact: true }).count()).toBe(0);
    // The sign flips with the checkbox, live too.
    await page.getByLabel("Positive amounts are money out").check();
    await preview.getByText("-$3.25", { exact: true }).waitFor();
    await page.getByLabel("Positive amounts are money out").uncheck();
    await preview.getByText("$3.25", { exact: true }).waitFor();
    await page.getByLabel("Account name").fill("Joint checking");
    await screenshots(page, "connect-csv");

    await page.getByRole("button", { name: "Import 40 rows" }).click();
    await page.getByRole("progressbar", { name: "Import progress" }).waitFor();
    await page.getByRole("heading", { name: "Import finished" }).waitFor({ timeout: 30_000 });
    await page.getByText("40 of 40 rows: 40 new").waitFor();

    const conn = (await connections()).find((c) => c.provider === "csv")!;
    expect(conn.institution_name).toBe("Joint checking");
    const stored = await transactionsOf(conn);
    expect(stored.find((r) => r.name === "memo line 0")).toMatchObject({ amount: 3.25, date: "2026-03-01" });
    const names = stored.map((r) => r.name).sort();
    expect(names).toHaveLength(40);
    expect(names).toContain("memo line 0");
    expect(names.some((n) => n.startsWith("SHOP"))).toBe(false);
    await context.close();
  });
});

describe("the Connections page", () => {
  it("pauses, resumes, syncs now, shows sync logs, disconnects after a confirmation keeping the data", async () => {
    const { page, context } = await signedIn();
    await page.goto("/connections");
    const card = page.getByRole("listitem", { name: "Joint checking" });
    await card.getByRole("button", { name: "Pause" }).click();
    await card.getByText("paused", { exact: true }).waitFor();
    await card.getByRole("button", { name: "Resume" }).click();
    await card.getByRole("button", { name: "Pause" }).waitFor();
    await card.getByRole("button", { name: "Sync now" }).click();
    const logs = card.getByRole("table", { name: "Sync logs of Joint checking" });
    await expect.poll(() => logs.textContent(), { timeout: 30_000 }).toContain("manual");
    await screenshots(page, "connections");

    const conn = (await connections()).find((c) => c.provider === "csv")!;
    const count = async () => (await stack.api(key, "GET", "/api/v1/transactions/count")).body.count as number;
    const before = await count();
    expect(before).toBeGreaterThanOrEqual(40);
    await card.getByRole("button", { name: "Disconnect" }).click();
    const confirm = page.getByRole("alertdialog", { name: "Disconnect Joint checking?" });
    expect(await confirm.textContent()).toContain("Its accounts and transactions are kept");
    await confirm.getByRole("button", { name: "Cancel" }).click();
    expect((await stack.api(key, "GET", `/api/v1/connections/${conn.id}`)).body.status).toBe("active");
    await card.getByRole("button", { name: "Disconnect" }).click();
    await confirm.getByRole("button", { name: "Disconnect, keep the data" }).click();
    await card.getByText("disconnected").waitFor();
    expect((await stack.api(key, "GET", `/api/v1/connections/${conn.id}`)).body.status).toBe("disconnected");
    // The transactions are still there (their accounts no longer name the connection).
    expect(await count()).toBe(before);
    await context.close();
  });
});
