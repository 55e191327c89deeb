import { nowOf } from "../clock.js";
import type { Em } from "../db/orm.js";
import { lockForTransaction } from "../db/locks.js";
import {
  consumeSetupToken,
  consumeSetupTokensOf,
  insertSetupToken,
  liveSetupTokenByHash,
  type LiveSetupTokenRow,
} from "../db/tables/login-setup-tokens.js";
import {
  anyLoginExists,
  deleteLoginById,
  insertLogin,
  lockAdminLogins,
  loginPasswordByEmail,
  loginViewById,
  loginViewOfUser,
  updateLoginPassword,
  updateLoginRole,
  type LoginViewRow,
} from "../db/tables/logins.js";
import { CofferError, notFound, validation } from "../errors/coffer-error.js";
import { createUser, parseEmail, resolveUser } from "../users/users.js";
import { hashSecret } from "./key-hash.js";
import { admitAttempt, forgetAttempt } from "./login-attempts.js";
import { checkNewPassword, hashPassword, verifyPassword } from "./passwords.js";
import { parseRole, type LoginRole } from "./roles.js";
import { parseText } from "../shared/validate.js";
import { newSecretToken, openSession, revokeSessionsOf } from "./sessions.js";

/** A setup link works for an hour, once. */
export const SETUP_TOKEN_TTL_SECONDS = 3600;

/** What the API shows of a login (never its password hash). */
export interface LoginView {
  id: string;
  userId: string;
  userShortId: string;
  email: string;
  role: LoginRole;
  passwordSet: boolean;
  lastLoginAt: Date | null;
  createdAt: Date;
  updatedAt: Date;
}

const loginView = (r: LoginViewRow): LoginView => ({
  ...r,
  lastLoginAt: r.lastLoginAt === null ? null : new Date(r.lastLoginAt),
  createdAt: new Date(r.createdAt),
  updatedAt: new Date(r.updatedAt),
});

/** <COFFER_PUBLIC_URL>/setup?token=…: the console's setup page. */
export const setupUrl = (publicUrl: string, token: string) => `${publicUrl}/setup?token=${token}`;

function parseLoginEmail(raw: string | undefined): string {
  const email = parseEmail(raw);
  if (!email) throw validation("email is required");
  return email;
}

function emailTaken(e: unknown): never {
  if (e instanceof Error && /logins_email_index/.test(e.message)) {
    throw new CofferError("CONFLICT", "Another login already has this email");
  }
  throw e;
}

async function findLogin(em: Em, userId: string): Promise<LoginView | null> {
  const row = await loginViewOfUser(em, userId);
  return row ? loginView(row) : null;
}

export async function getLogin(em: Em, rawUserId: string): Promise<LoginView> {
  const user = await resolveUser(em, rawUserId);
  const login = await findLogin(em, user.id);
  if (!login) throw notFound("Login");
  return login;
}

/** A new one-time setup token (for a login, or for the first admin when loginId is null); earlier ones stop working. */
export async function issueSetupToken(em: Em, loginId: string | null): Promise<string> {
  const token = newSecretToken();
  if (loginId !== null) {
    await consumeSetupTokensOf(em, loginId);
  }
  await insertSetupToken(em, {
    id: crypto.randomUUID(),
    loginId,
    tokenHash: hashSecret(token),
    ttlSeconds: SETUP_TOKEN_TTL_SECONDS,
    now: nowOf(em),
  });
  return token;
}

export async function createLogin(
  em: Em,
  publicUrl: string,
  req: { userId: string; email: string; role: string },
): Promise<{ login: LoginView; setupUrl: string }> {
  const email = parseLoginEmail(req.email);
  const role = parseRole(req.role);
  const user = await resolveUser(em, req.userId);
  return em.transactional(async (tx) => {
    if (await findLogin(tx, user.id)) throw new CofferError("CONFLICT", "This household member already has a login");
    const id = crypto.randomUUID();
    await insertLogin(tx, { id, userId: user.id, email, role }).catch(emailTaken);
    const token = await issueSetupToken(tx, id);
    return { login: (await findLogin(tx, user.id))!, setupUrl: setupUrl(publicUrl, token) };
  });
}

/**
 * `coffer users create-login`: a login for an existing household member, or
 * (without userId) for a new one named `name` or after the email's local part.
 */
export async function createLoginForMember(
  em: Em,
  publicUrl: string,
  req: { email: string; role: string; userId?: string; name?: string },
): Promise<{ login: LoginView; setupUrl: string }> {
  const email = parseLoginEmail(req.email);
  parseRole(req.role);
  return em.transactional(async (tx) => {
    const userId = req.userId ?? (await createUser(tx, { name: req.name ?? email.split("@")[0], email })).id;
    return createLogin(tx, publicUrl, { userId, email, role: req.role });
  });
}

/** Refuses to leave the household without an admin login (the console would have nobody to manage access). */
async function keepAnAdmin(em: Em, login: LoginView): Promise<void> {
  if (login.role !== "admin") return;
  // Locks the admin logins, so two simultaneous demotions cannot both pass.
  const admins = await lockAdminLogins(em);
  if (admins.length <= 1) {
    throw new CofferError("CONFLICT", "This is the only admin login; make another login admin first");
  }
}

export async function updateLogin(em: Em, req: { userId: string; role?: string }): Promise<LoginView> {
  const user = await resolveUser(em, req.userId);
  const role = req.role === undefined ? undefined : parseRole(req.role);
  return em.transactional(async (tx) => {
    const login = await findLogin(tx, user.id);
    if (!login) throw notFound("Login");
    if (role !== undefined && role !== login.role) {
      if (role !== "admin") await keepAnAdmin(tx, login);
      await updateLoginRole(tx, login.id, role);
    }
    return (await findLogin(tx, user.id))!;
  });
}

/** Deletes the login, its sessions and setup links; the household member and their data stay. */
export async function deleteLogin(em: Em, rawUserId: string): Promise<void> {
  const user = await resolveUser(em, rawUserId);
  await em.transactional(async (tx) => {
    const login = await findLogin(tx, user.id);
    if (!login) throw notFound("Login");
    await keepAnAdmin(tx, login);
    await deleteLoginById(tx, login.id);
  });
}

export async function resetLoginPassword(em: Em, publicUrl: string, rawUserId: string): Promise<string> {
  const user = await resolveUser(em, rawUserId);
  return em.transactional(async (tx) => {
    const login = await findLogin(tx, user.id);
    if (!login) throw notFound("Login");
    return setupUrl(publicUrl, await issueSetupToken(tx, login.id));
  });
}

/** The first-run setup URL while no login exists (`coffer start` prints it), else null. */
export async function firstRunSetupUrl(em: Em, publicUrl: string): Promise<string | null> {
  return (await anyLoginExists(em)) ? null : setupUrl(publicUrl, await issueSetupToken(em, null));
}

const EXPIRED_LINK = "This setup link has been used or has expired; ask for a new one";

async function liveSetupToken(em: Em, token: string, lock = false): Promise<LiveSetupTokenRow> {
  const row = /^[A-Za-z0-9_-]{43}$/.test(token)
    ? await liveSetupTokenByHash(em, hashSecret(token), nowOf(em), lock)
    : undefined;
  if (!row) throw new CofferError("EXPIRED", EXPIRED_LINK);
  return row;
}

/** What a setup link is for: the first admin (who still needs an email) or an existing login. */
export async function inspectSetupToken(
  em: Em,
  token: string,
): Promise<{ firstRun: boolean; email: string | null; role: LoginRole }> {
  const row = await liveSetupToken(em, token);
  return { firstRun: row.login_id === null, email: row.email, role: row.role ?? "admin" };
}

/**
 * Sets a login's password with a setup link and signs it in. The first-run
 * link creates the first admin (and the household member it belongs to),
 * only while no login exists. The link is consumed in the same transaction
 * that sets the password; every earlier session of the login ends.
 */
export async function completeSetup(
  em: Em,
  req: { token: string; password: string; email?: string; name?: string },
): Promise<{ login: LoginView; sessionToken: string }> {
  checkNewPassword(req.password);
  const peek = await liveSetupToken(em, req.token);
  const firstRun = peek.login_id === null;
  if (!firstRun && (req.email !== undefined || req.name !== undefined)) {
    throw validation("email and name are set by whoever created the login; send only token and password");
  }
  if (firstRun && !req.email?.trim()) {
    throw validation("email is required: this first-run link creates the admin account, which signs in with it");
  }
  const email = firstRun ? parseLoginEmail(req.email) : null;
  const name = firstRun ? (req.name?.trim() ? req.name : email!.split("@")[0]) : null;
  const password = await hashPassword(req.password);
  return em.transactional(async (tx) => {
    const token = await liveSetupToken(tx, req.token, true);
    await consumeSetupToken(tx, token.id);
    let loginId = token.login_id;
    if (loginId === null) {
      // One first admin, however many first-run links were printed: the lock orders simultaneous setups.
      await lockForTransaction(tx, "firstLogin");
      if (await anyLoginExists(tx))
        throw new CofferError("EXPIRED", "An admin login exists already; sign in, or ask an admin for a link");
      const user = await createUser(tx, { name: name!, email: email! });
      loginId = crypto.randomUUID();
      await insertLogin(tx, { id: loginId, userId: user.id, email: email!, role: "admin" }).catch(emailTaken);
    }
    await updateLoginPassword(tx, loginId, password);
    await revokeSessionsOf(tx, loginId);
    const sessionToken = await openSession(tx, loginId);
    return { login: loginView((await loginViewById(tx, loginId))!), sessionToken };
  });
}

const BAD_CREDENTIALS = "The email or password is not right";

/**
 * Signs in with email and password. An unknown email, a login without a
 * password and a wrong password all answer the same INVALID_CREDENTIALS after
 * the same scrypt work; attempts are limited per account and per address
 * (login-attempts.ts) before any password is looked at.
 */
export async function signIn(
  em: Em,
  req: { email: string; password: string; ip: string },
): Promise<{ login: LoginView; sessionToken: string }> {
  // The text rule before anything is looked up: the email is stored (in login_attempts) and compared in SQL.
  const email = parseText(req.email, "email", { min: 0, max: 320 });
  const attempt = await admitAttempt(em, email, req.ip);
  const row = await loginPasswordByEmail(em, email);
  const stored = row?.hash && row.salt ? { hash: row.hash, salt: row.salt, params: row.params } : null;
  if (!(await verifyPassword(req.password ?? "", stored)) || !row) {
    throw new CofferError("INVALID_CREDENTIALS", BAD_CREDENTIALS);
  }
  await forgetAttempt(em, attempt);
  return em.transactional(async (tx) => {
    const sessionToken = await openSession(tx, row.id);
    return { login: loginView((await loginViewById(tx, row.id))!), sessionToken };
  });
}
