import type { Browser, Page } from "playwright-core";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startStackAndBrowser, openPage, screenshots } from "./harness/browser.js";
import { createLogin, setupUrlFor, signIn } from "./harness/session.js";
import type { ConsoleStack } from "./harness/stack.js";

/** Types the password on /login and sends the form; resolves the status of POST /auth/login. */
async function submitLogin(page: Page, password: string): Promise<number> {
  await page.getByLabel("Password").fill(password);
  const [res] = await Promise.all([
    page.waitForResponse((r) => r.url().endsWith("/api/v1/auth/login")),
    page.getByRole("button", { name: "Sign in" }).click(),
  ]);
  return res.status();
}

/** First run, sign-in, its rate limit, and the Origin check on cookie requests, in a real Chromium. */
let stack: ConsoleStack;
let browser: Browser;

beforeAll(async () => {
  [stack, browser] = await startStackAndBrowser({ plaid: false });
}, 120_000);

afterAll(async () => {
  await browser?.close();
  await stack?.stop();
});

describe("first run and sign-in", () => {
  it("coffer start prints a setup URL; the setup page sets the password and signs the person in", async () => {
    // No login account exists yet, so `coffer start` printed the one-time link.
    const line = stack.lines.find((l) => l.includes("/setup?token="));
    expect(line, stack.lines.join("\n")).toBeDefined();
    const setupUrl = /(https?:\/\/\S+\/setup\?token=\S+)/.exec(line!)![1];
    expect(new URL(setupUrl).origin).toBe(stack.url);

    const { page, context } = await openPage(browser, stack.url);
    await page.goto(setupUrl);
    // The first-run link makes the first admin, who names the email they will sign in with.
    await page.getByRole("heading", { name: "Create the admin account" }).waitFor();
    await page.getByLabel("Email (you sign in with it)").fill("first@example.com");
    await page.getByLabel("Your name (optional)").fill("Ada");
    await screenshots(page, "setup");
    // Too short: the server's 400 VALIDATION_ERROR is shown, and what was typed stays.
    await page.getByLabel("New password").fill("short");
    await page.getByLabel("Repeat the password").fill("short");
    await page.getByRole("button", { name: "Set password and sign in" }).click();
    await expect.poll(() => page.getByRole("alert").textContent()).toContain("VALIDATION_ERROR");
    expect(await page.getByLabel("New password").inputValue()).toBe("short");
    expect(await page.getByLabel("Email (you sign in with it)").inputValue()).toBe("first@example.com");
    await page.getByLabel("New password").fill("a long enough passphrase");
    await page.getByLabel("Repeat the password").fill("a long enough passphrase");
    await page.getByRole("button", { name: "Set password and sign in" }).click();
    await page.waitForURL(`${stack.url}/`);
    await page.getByText("Ada (admin)").waitFor();
    const cookies = await context.cookies();
    const session = cookies.find((c) => c.name === "coffer_session");
    expect(session).toMatchObject({ httpOnly: true, sameSite: "Strict" });

    // The link works once: opening it again says so at once.
    const again = await openPage(browser, stack.url);
    await again.page.goto(setupUrl);
    await expect.poll(() => again.page.getByRole("alert").textContent()).toContain("EXPIRED");
    expect(await again.page.getByLabel("New password").count()).toBe(0);
    await again.context.close();
    await context.close();
  });

  it("signs in from /login and goes back to the page asked for; a wrong password is refused in place", async () => {
    const login = await createLogin(stack, "editor");
    const { page, context } = await openPage(browser, stack.url);
    await page.goto("/connections");
    await page.waitForURL(/\/login\?next=%2Fconnections$/);
    await screenshots(page, "login");
    await page.getByLabel("Email").fill(login.email);
    expect(await submitLogin(page, "not the password")).toBe(401);
    await expect.poll(() => page.getByRole("alert").textContent()).toContain("INVALID_CREDENTIALS");
    // The form keeps what was typed.
    expect(await page.getByLabel("Email").inputValue()).toBe(login.email);
    expect(await submitLogin(page, login.password)).toBe(200);
    await page.waitForURL(`${stack.url}/connections`);
    await expect.poll(() => page.getByRole("heading", { name: "Connections", level: 1 }).count()).toBe(1);
    await context.close();
  });
});

describe("the session cookie and other origins", () => {
  it("a POST carrying the cookie from another origin is refused with 403 ORIGIN_MISMATCH", async () => {
    const login = await createLogin(stack, "admin");
    const { page, context } = await openPage(browser, stack.url);
    await signIn(context, stack, login);
    const cookie = (await context.cookies()).find((c) => c.name === "coffer_session")!;
    const post = (origin: string) =>
      fetch(`${stack.url}/api/v1/api-keys`, {
        method: "POST",
        headers: { "content-type": "application/json", cookie: `coffer_session=${cookie.value}`, origin },
        body: JSON.stringify({ name: `from ${origin}`, scope: "full_access" }),
      });
    const refusals = () =>
      stack.lines.filter(
        (l) => l.includes('"method":"POST","url":"/api/v1/api-keys"') && l.includes('"statusCode":403'),
      ).length;
    const foreign = await post("http://evil.example");
    expect(foreign.status).toBe(403);
    expect((await foreign.json()).error.code).toBe("ORIGIN_MISMATCH");
    // The gateway logs each request once it has answered it (the log line may come a little later).
    await expect.poll(refusals, { timeout: 10_000 }).toBe(1);
    // The same request from the console's own origin passes: it is the Origin that was refused.
    expect((await post(stack.url)).status).toBe(201);

    // A page on another origin (the widget server, another port on this host) makes the browser send the POST
    // with the cookie (same site, so SameSite=Strict lets it through); the server refuses it, nothing is made.
    await page.goto(stack.widgets.url + "/blank.html");
    await page.evaluate(async (target) => {
      await fetch(`${target}/api/v1/api-keys`, {
        method: "POST",
        mode: "no-cors",
        credentials: "include",
        headers: { "content-type": "text/plain" },
        body: JSON.stringify({ name: "cross-site", scope: "full_access" }),
      });
    }, stack.url);
    // The request did reach the REST gateway, which refused it (its request log says so).
    await expect.poll(refusals, { timeout: 10_000 }).toBe(2);
    const keys = await stack.api(await stack.createKey("full_access", "lister"), "GET", "/api/v1/api-keys");
    const names = keys.body.api_keys.map((k: { name: string }) => k.name);
    expect(names).toContain(`from ${stack.url}`);
    expect(names).not.toContain("cross-site");
    await context.close();
  });

  it("a setup URL from the CLI lands on the setup page of this console", async () => {
    const url = await setupUrlFor(stack, "cli-made@example.com", "viewer");
    expect(url).toMatch(new RegExp(`^${stack.url}/setup\\?token=`));
  });
});

describe("the sign-in rate limit", () => {
  // Last in the file: failures count per address too (all of ours come from 127.0.0.1), and only failures
  // count. One failed before (the sign-in test), so the fifth failure here is the sixth from this address.
  it("the sixth failed attempt in a minute is 429 RATE_LIMITED, shown with the wait", async () => {
    const login = await createLogin(stack, "viewer");
    const { page, context } = await openPage(browser, stack.url);
    await page.goto("/login");
    await page.getByLabel("Email").fill(login.email);
    for (let i = 1; i <= 5; i++) {
      const status = await submitLogin(page, `wrong password ${i}`);
      expect(status).toBe(i <= 4 ? 401 : 429);
      const expected = i <= 4 ? "INVALID_CREDENTIALS" : "RATE_LIMITED";
      await expect.poll(() => page.getByRole("alert").textContent()).toContain(expected);
    }
    const text = (await page.getByRole("alert").textContent()) ?? "";
    expect(text).toMatch(/Too many attempts/);
    expect(text).toMatch(/Try again in \d+ s/);
    // Even the right password waits now.
    expect(await submitLogin(page, login.password)).toBe(429);
    await expect.poll(() => page.getByRole("alert").textContent()).toContain("RATE_LIMITED");
    await context.close();
  });
});
