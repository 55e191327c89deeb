import { mkdirSync } from "node:fs";
import { join } from "node:path";
import { chromium, type Browser, type BrowserContext, type Page } from "playwright-core";
import { REPO_ROOT } from "../../helpers/processes.js";
import { trackedEnv } from "../../helpers/tracked-processes.js";
import { chooseChromium } from "./chromium.js";
import { ConsoleStack, type ConsoleStackOptions } from "./stack.js";

export const RESULTS = join(REPO_ROOT, "test-results");

export const DESKTOP = { width: 1280, height: 800 };
export const PHONE = { width: 390, height: 844 };

/**
 * One headless Chromium for a test file (chromium.ts says which); each test opens its own context (cookies
 * are per context). Its environment carries the test-process mark, so a Chromium left running is found.
 */
export async function launchBrowser(): Promise<Browser> {
  const chosen = await chooseChromium();
  const browser = await chromium.launch({
    executablePath: chosen.executablePath,
    headless: true,
    args: chosen.args,
    env: trackedEnv("chromium", { ...process.env, ...chosen.env }).env,
  });
  console.log(`browser: Chromium ${browser.version()}, ${chosen.source} (${chosen.executablePath})`);
  return browser;
}

/**
 * The file's stack and browser, started side by side. When either fails the other is stopped before the
 * error is thrown: the caller's afterAll never sees a stack it could stop.
 */
export async function startStackAndBrowser(options: ConsoleStackOptions): Promise<[ConsoleStack, Browser]> {
  const [stack, browser] = await Promise.allSettled([ConsoleStack.start(options), launchBrowser()]);
  if (stack.status === "fulfilled" && browser.status === "fulfilled") return [stack.value, browser.value];
  await Promise.all([
    stack.status === "fulfilled" ? stack.value.stop() : null,
    browser.status === "fulfilled" ? browser.value.close() : null,
  ]);
  throw stack.status === "rejected" ? stack.reason : (browser as PromiseRejectedResult).reason;
}

/** A fresh context (no cookies) at desktop size, whose page errors and failed requests fail loudly in logs. */
export async function newContext(browser: Browser, baseURL: string): Promise<BrowserContext> {
  // A set locale: the npm Chromium takes its language from LANG, and C.UTF-8 makes navigator.language
  // "en-US@posix", which Intl refuses (the console formats with it); and the same formats on every machine.
  return browser.newContext({ baseURL, viewport: DESKTOP, locale: "en-US" });
}

/**
 * Saves test-results/<name>-desktop.png (1280x800) and test-results/<name>-phone.png (390x844) of the
 * page as it is, and checks that the phone layout does not scroll sideways. The viewport is restored.
 */
export async function screenshots(page: Page, name: string): Promise<void> {
  mkdirSync(RESULTS, { recursive: true });
  const before = page.viewportSize() ?? DESKTOP;
  await page.setViewportSize(DESKTOP);
  await page.screenshot({ path: join(RESULTS, `${name}-desktop.png`), fullPage: true });
  await page.setViewportSize(PHONE);
  // Let layout settle after the resize (media queries, wrapping).
  await page.evaluate(() => new Promise((r) => requestAnimationFrame(() => requestAnimationFrame(r))));
  const overflow = await page.evaluate(() => document.documentElement.scrollWidth - window.innerWidth);
  await page.screenshot({ path: join(RESULTS, `${name}-phone.png`), fullPage: true });
  await page.setViewportSize(before);
  if (overflow > 1) throw new Error(`${name}: the page is ${overflow}px wider than a 390px phone screen`);
}

/** Collects the page's console errors and uncaught exceptions, to show when a test fails. */
export function watchErrors(page: Page): string[] {
  const errors: string[] = [];
  page.on("pageerror", (e) => errors.push(`pageerror: ${e.message}`));
  page.on("console", (m) => {
    if (m.type() === "error") errors.push(`console: ${m.text()}`);
  });
  return errors;
}

/** A page in a fresh context at desktop size, with its errors collected (see `watchErrors`). */
export async function openPage(
  browser: Browser,
  baseURL: string,
): Promise<{ context: BrowserContext; page: Page; errors: string[] }> {
  const context = await newContext(browser, baseURL);
  const page = await context.newPage();
  page.setDefaultTimeout(15_000);
  return { context, page, errors: watchErrors(page) };
}
