import type { BrowserContext } from "playwright-core";
import type { ConsoleStack } from "./stack.js";

export type Role = "admin" | "editor" | "viewer";

export interface Login {
  email: string;
  password: string;
  role: Role;
}

let seq = 0;

/**
 * A login account made the way an operator makes one (`coffer users create-login`, which prints the
 * one-time setup URL), with its password set through `POST /api/v1/auth/setup`.
 */
export async function createLogin(stack: ConsoleStack, role: Role = "admin", email?: string): Promise<Login> {
  const login = {
    email: email ?? `${role}${++seq}-${Date.now()}@example.com`,
    password: "correct horse battery",
    role,
  };
  const setupUrl = await setupUrlFor(stack, login.email, role);
  const token = new URL(setupUrl).searchParams.get("token");
  const res = await fetch(`${stack.url}/api/v1/auth/setup`, {
    method: "POST",
    headers: { "content-type": "application/json", origin: stack.url },
    body: JSON.stringify({ token, password: login.password }),
  });
  if (res.status !== 200) throw new Error(`auth/setup answered ${res.status}: ${await res.text()}`);
  return login;
}

/** `coffer users create-login --email E --role R`: its stdout is only the setup URL. */
export async function setupUrlFor(stack: ConsoleStack, email: string, role: Role): Promise<string> {
  const made = await stack.cli(["users", "create-login", "--email", email, "--role", role]);
  if (made.code !== 0) throw new Error(`coffer users create-login failed: ${made.stderr}`);
  return made.stdout.trim();
}

/**
 * Signs the browser context in through `POST /api/v1/auth/login`; the context keeps the session cookie
 * (Playwright's context request shares the browser's cookie jar), as the sign-in page would leave it.
 */
export async function signIn(context: BrowserContext, stack: ConsoleStack, login: Login): Promise<void> {
  const res = await context.request.post(`${stack.url}/api/v1/auth/login`, {
    data: { email: login.email, password: login.password },
    headers: { origin: stack.url },
  });
  if (res.status() !== 200) throw new Error(`auth/login answered ${res.status()}: ${await res.text()}`);
}
