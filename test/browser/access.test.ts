import { execFile } from "node:child_process";
import { promisify } from "node:util";
import type { Browser, BrowserContext, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it, vi } from "vitest";
import { startStackAndBrowser, openPage, screenshots } from "./harness/browser.js";
import { createLogin, signIn, type Login } from "./harness/session.js";
import type { ConsoleStack } from "./harness/stack.js";

// A browser and three real processes: more time than a unit test.
vi.setConfig({ testTimeout: 90_000 });

/** The Access page (API keys, login accounts) and device approval at /device, in a real Chromium. */
let stack: ConsoleStack;
let browser: Browser;
let admin: Login;
let key: string;

beforeAll(async () => {
  [stack, browser] = await startStackAndBrowser({ plaid: false });
  [admin, key] = await Promise.all([createLogin(stack, "admin"), stack.createKey("full_access", "checker")]);
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

async function signedIn(login = admin): Promise<{ context: BrowserContext; page: Page }> {
  const opened = await openPage(browser, stack.url);
  await signIn(opened.context, stack, login);
  return opened;
}

/** A real HTTP request from outside the browser, as a device would make it: curl. */
async function curl(method: string, path: string, body?: unknown, headers: Record<string, string> = {}) {
  const args = ["-s", "-X", method, "-w", "\n%{http_code}", `${stack.url}${path}`];
  for (const [k, v] of Object.entries(headers)) args.push("-H", `${k}: ${v}`);
  if (body !== undefined) args.push("-H", "content-type: application/json", "--data", JSON.stringify(body));
  const { stdout } = await promisify(execFile)("curl", args);
  const cut = stdout.lastIndexOf("\n");
  const text = stdout.slice(0, cut);
  return { status: Number(stdout.slice(cut + 1)), body: text ? JSON.parse(text) : null };
}

describe("API keys", () => {
  it("creates a key whose plaintext is shown once with a copy button, lists it, and revokes it", async () => {
    const { page, context } = await signedIn();
    await context.grantPermissions(["clipboard-read", "clipboard-write"], { origin: stack.url });
    await page.goto("/access");
    await page.getByLabel("Key name").fill("home assistant");
    await page.getByLabel("Scope").selectOption("read_only");
    await page.getByRole("button", { name: "Create key" }).click();
    const shown = page.getByLabel("New key “home assistant”");
    await shown.waitFor();
    const plaintext = (await shown.textContent())!;
    expect(plaintext).toMatch(/^cf_[0-9A-Za-z]{43}$/);
    await page.getByRole("button", { name: "Copy" }).click();
    await page.getByText("Copied.").waitFor();
    expect(await page.evaluate(() => navigator.clipboard.readText())).toBe(plaintext);

    // The key works, with its scope.
    const me = await curl("GET", "/api/v1/keys/me", undefined, { "x-api-key": plaintext });
    expect(me).toMatchObject({ status: 200, body: { name: "home assistant", scope: "read_only" } });

    const table = page.getByRole("table", { name: "API keys" });
    await table.getByText("home assistant").waitFor();
    await screenshots(page, "access");
    // After a reload the plaintext is gone for good; the list shows only its first characters.
    await page.reload();
    await table.getByText("home assistant").waitFor();
    expect(await page.getByText(plaintext).count()).toBe(0);
    await table.getByText(`${plaintext.slice(0, 7)}…`).waitFor();

    await page.getByRole("button", { name: "Revoke home assistant" }).click();
    const confirm = page.getByRole("alertdialog", { name: "Revoke home assistant?" });
    await confirm.getByRole("button", { name: "Revoke the key" }).click();
    await expect.poll(() => table.getByText("home assistant").count()).toBe(0);
    await page.getByText("1 revoked keys").waitFor();
    const after = await curl("GET", "/api/v1/keys/me", undefined, { "x-api-key": plaintext });
    expect(after.status).toBe(401);
    expect(after.body.error.code).toBe("REVOKED_API_KEY");
    await context.close();
  });
});

describe("device approval", () => {
  it("approves a device code at /device (prefilled from ?user_code=); a curl poll gets the key", async () => {
    const started = await curl("POST", "/api/v1/auth/device-code", { name: "kitchen tablet" });
    expect(started.status).toBe(201);
    const { device_code, user_code, verification_url } = started.body;
    expect(verification_url).toBe(`${stack.url}/device?user_code=${user_code}`);
    expect((await curl("POST", "/api/v1/auth/device-code/poll", { device_code })).body).toEqual({
      status: "authorization_pending",
    });

    const { page, context } = await signedIn();
    await page.goto(verification_url);
    await page.getByRole("heading", { name: "Device approval" }).waitFor();
    expect(await page.getByLabel("Code shown by the device").inputValue()).toBe(user_code);
    await page.getByLabel("Read and change data (full_access)").check();
    await screenshots(page, "device");
    await page.getByRole("button", { name: "Approve" }).click();
    await page.getByText("Approved. The device gets a full_access key").waitFor();

    const polled = await curl("POST", "/api/v1/auth/device-code/poll", { device_code });
    expect(polled.status).toBe(200);
    expect(polled.body.status).toBe("approved");
    const token = polled.body.token as string;
    expect(token).toMatch(/^cf_/);
    const me = await curl("GET", "/api/v1/keys/me", undefined, { "x-api-key": token });
    expect(me).toMatchObject({ status: 200, body: { scope: "full_access", actor_type: "agent" } });
    // The plaintext exists only in that first answer.
    expect((await curl("POST", "/api/v1/auth/device-code/poll", { device_code })).body).toEqual({ status: "approved" });
    await context.close();
  });

  it("denies a code; approving a code twice or an unknown code shows the API's error in place", async () => {
    const started = await curl("POST", "/api/v1/auth/device-code", {});
    const { device_code, user_code } = started.body;
    const { page, context } = await signedIn();
    await page.goto(`/device?user_code=${user_code}`);
    await page.getByRole("button", { name: "Deny" }).click();
    await page.getByText("Denied. The device gets no key.").waitFor();
    const polled = await curl("POST", "/api/v1/auth/device-code/poll", { device_code });
    expect(polled).toMatchObject({ status: 400, body: { error: { code: "DENIED" } } });

    await page.goto(`/device?user_code=${user_code}`);
    await page.getByRole("button", { name: "Approve" }).click();
    await expect.poll(() => page.getByRole("alert").textContent()).toContain("CONFLICT");
    await page.getByLabel("Code shown by the device").fill("BBBB-CCCC");
    await page.getByRole("button", { name: "Approve" }).click();
    await expect.poll(() => page.getByRole("alert").textContent()).toContain("INVALID_DEVICE_CODE");
    // What was typed stays after the refusal.
    expect(await page.getByLabel("Code shown by the device").inputValue()).toBe("BBBB-CCCC");
    await context.close();
  });

  it("a person who is not signed in is sent to sign in, then back to /device with the code", async () => {
    const started = await curl("POST", "/api/v1/auth/device-code", {});
    const { page, context } = await openPage(browser, stack.url);
    await page.goto(started.body.verification_url);
    await page.waitForURL(/\/login\?next=/);
    await page.getByLabel("Email").fill(admin.email);
    await page.getByLabel("Password").fill(admin.password);
    await page.getByRole("button", { name: "Sign in" }).click();
    await page.waitForURL(started.body.verification_url);
    expect(await page.getByLabel("Code shown by the device").inputValue()).toBe(started.body.user_code);
    await context.close();
  });
});

describe("login accounts", () => {
  it("an admin gives a household member a login; its setup link lets them choose a password and sign in", async () => {
    const member = await stack.api(key, "POST", "/api/v1/users", { name: "Robin" });
    expect(member.status).toBe(201);
    const { page, context } = await signedIn();
    await page.goto("/access");
    const card = page.getByRole("listitem", { name: "Login of Robin" });
    await card.getByLabel("Email").fill("robin@example.com");
    await card.getByLabel("Role").selectOption("viewer");
    await card.getByRole("button", { name: "Create login" }).click();
    const link = card.getByLabel("Setup link for Robin");
    await link.waitFor();
    const setupUrl = (await link.textContent())!;
    expect(setupUrl).toMatch(new RegExp(`^${stack.url}/setup\\?token=`));
    await card.getByText("robin@example.com · password not set yet").waitFor();

    const robin = await openPage(browser, stack.url);
    await robin.page.goto(setupUrl);
    await robin.page.getByLabel("New password").fill("robin's long passphrase");
    await robin.page.getByLabel("Repeat the password").fill("robin's long passphrase");
    await robin.page.getByRole("button", { name: "Set password and sign in" }).click();
    await robin.page.getByText("Robin (viewer)").waitFor();
    await robin.context.close();

    // The admin changes the role; the member's login says so.
    await page.reload();
    await card.getByLabel("Role").selectOption("editor");
    await expect
      .poll(async () => (await stack.api(key, "GET", `/api/v1/users/${member.body.short_id}/login`)).body.role)
      .toBe("editor");
    await context.close();
  });

  it("is for admins: an editor is told who manages access, and the API refuses them too", async () => {
    const editor = await createLogin(stack, "editor");
    const { page, context } = await signedIn(editor);
    await page.goto("/access");
    await page.getByText("managed by the household's admins").waitFor();
    expect(await page.getByRole("heading", { name: "Login accounts" }).count()).toBe(0);
    expect(await page.getByRole("heading", { name: "API keys" }).count()).toBe(0);
    // The page is not the guard: the device approval an editor might still open is refused by the API, in place.
    const started = await curl("POST", "/api/v1/auth/device-code", {});
    await page.goto(`/device?user_code=${started.body.user_code}`);
    await page.getByRole("button", { name: "Approve" }).click();
    await expect.poll(() => page.getByRole("alert").textContent()).toContain("FORBIDDEN");
    await context.close();
  });
});

describe("providers without their settings", () => {
  it("the Connect page says how to configure Plaid and Teller on this server", async () => {
    // This file's stack has neither PLAID_* nor TELLER_* set.
    const { page, context } = await signedIn();
    await page.goto("/connect");
    const list = page.getByRole("list", { name: "Providers" });
    const plaid = list.getByRole("listitem").filter({ has: page.getByRole("heading", { name: "Plaid" }) });
    await plaid.getByText("Not configured on this server.").waitFor();
    expect(await plaid.textContent()).toContain("PLAID_CLIENT_ID");
    expect(await plaid.getByRole("link").count()).toBe(0);
    const teller = list.getByRole("listitem").filter({ has: page.getByRole("heading", { name: "Teller" }) });
    expect(await teller.textContent()).toContain("TELLER_APPLICATION_ID");
    await list.getByRole("link", { name: "Connect with CSV file" }).waitFor();
    await screenshots(page, "connect-unconfigured");
    await context.close();
  });
});
