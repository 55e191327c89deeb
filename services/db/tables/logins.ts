import type { PasswordHash } from "../../auth/passwords.js";
import type { LoginRole } from "../../auth/roles.js";
import type { Em } from "../orm.js";
import { iso, query } from "../sql.js";

/** A login as the API shows it, timestamps as UTC ISO text (never its password hash). */
export interface LoginViewRow {
  id: string;
  userId: string;
  userShortId: string;
  email: string;
  role: LoginRole;
  passwordSet: boolean;
  lastLoginAt: string | null;
  createdAt: string;
  updatedAt: string;
}

const LOGIN_VIEW_SQL = `select l.id, l.user_id as "userId", u.short_id as "userShortId", l.email, l.role,
    l.password_set as "passwordSet", ${iso("l.last_login_at")} as "lastLoginAt",
    ${iso("l.created_at")} as "createdAt", ${iso("l.updated_at")} as "updatedAt"
  from logins l join users u on u.id = l.user_id`;

export async function loginViewOfUser(em: Em, userId: string): Promise<LoginViewRow | undefined> {
  const [row] = await query<LoginViewRow>(em, `${LOGIN_VIEW_SQL} where l.user_id = ?`, [userId]);
  return row;
}

export async function loginViewById(em: Em, loginId: string): Promise<LoginViewRow | undefined> {
  const [row] = await query<LoginViewRow>(em, `${LOGIN_VIEW_SQL} where l.id = ?`, [loginId]);
  return row;
}

export async function insertLogin(
  em: Em,
  l: { id: string; userId: string; email: string; role: LoginRole },
): Promise<void> {
  await query(em, `insert into logins (id, user_id, email, role) values (?, ?, ?, ?)`, [
    l.id,
    l.userId,
    l.email,
    l.role,
  ]);
}

/** Locks the admin logins (`for update`), so two simultaneous demotions cannot both pass; returns their ids. */
export async function lockAdminLogins(em: Em): Promise<{ id: string }[]> {
  return query<{ id: string }>(em, `select id from logins where role = 'admin' for update`);
}

export async function updateLoginRole(em: Em, loginId: string, role: LoginRole): Promise<void> {
  await query(em, `update logins set role = ?, updated_at = now() where id = ?`, [role, loginId]);
}

export async function deleteLoginById(em: Em, loginId: string): Promise<void> {
  await query(em, `delete from logins where id = ?`, [loginId]);
}

export async function anyLoginExists(em: Em): Promise<boolean> {
  const [{ any }] = await query<{ any: boolean }>(em, `select exists (select 1 from logins) as any`);
  return any;
}

export async function updateLoginPassword(em: Em, loginId: string, password: PasswordHash): Promise<void> {
  await query(
    em,
    `update logins set password_hash = ?, password_salt = ?, password_params = ?::jsonb, updated_at = now()
     where id = ?`,
    [password.hash, password.salt, JSON.stringify(password.params), loginId],
  );
}

export async function updateLoginLastLogin(em: Em, loginId: string): Promise<void> {
  await query(em, `update logins set last_login_at = now() where id = ?`, [loginId]);
}

export interface LoginPasswordRow {
  id: string;
  hash: string | null;
  salt: string | null;
  params: PasswordHash["params"];
}

/** The login with this email (compared case-insensitively) and its stored password. */
export async function loginPasswordByEmail(em: Em, email: string): Promise<LoginPasswordRow | undefined> {
  const [row] = await query<LoginPasswordRow>(
    em,
    `select id, password_hash as hash, password_salt as salt, password_params as params
     from logins where lower(email) = lower(?)`,
    [email],
  );
  return row;
}
