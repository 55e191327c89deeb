import { UniqueConstraintViolationException } from "@mikro-orm/core";
import { isForeignKeyViolation } from "../db/sql.js";
import { userIdByEmail } from "../db/tables/users.js";
import { UserEntity, type User } from "../db/entities/index.js";
import type { Em } from "../db/orm.js";
import { CofferError, notFound, validation } from "../errors/coffer-error.js";
import { findByIdOrShortId } from "../ids/find.js";
import { withShortId } from "../ids/insert.js";
import { parseText } from "../shared/validate.js";
import { nowOf } from "../clock.js";

const EMAIL = /^[^\s@]+@[^\s@]+\.[^\s@]+$/;

export async function resolveUser(em: Em, raw: string): Promise<User> {
  const user = await findByIdOrShortId(em, UserEntity, raw);
  if (!user) throw notFound("User");
  return user;
}

const parseName = (raw: string | undefined) => parseText(raw, "name", { max: 200 });

/** "" means no email; otherwise it must look like one. */
export function parseEmail(raw: string | undefined): string | null {
  const email = parseText(raw, "email", { min: 0, max: 320 });
  if (!email) return null;
  if (!EMAIL.test(email)) throw validation("email is not a valid email address");
  return email;
}

function emailTaken(e: unknown): never {
  if (e instanceof UniqueConstraintViolationException && /email/.test(e.message)) {
    throw new CofferError("CONFLICT", "Another user already has this email");
  }
  throw e;
}

/** The id of the user with this email (compared case-insensitively, like its unique index), or null. */
export async function findUserIdByEmail(em: Em, rawEmail: string): Promise<string | null> {
  const email = parseEmail(rawEmail);
  if (!email) throw validation("email is required");
  return (await userIdByEmail(em, email)) ?? null;
}

export async function listUsers(em: Em): Promise<User[]> {
  return em.find(UserEntity, {}, { orderBy: { createdAt: "asc", id: "asc" } });
}

export async function createUser(em: Em, req: { name: string; email?: string }): Promise<User> {
  const name = parseName(req.name);
  const email = parseEmail(req.email);
  const id = crypto.randomUUID();
  const now = nowOf(em);
  await withShortId((shortId) =>
    em.insert(UserEntity, { id, shortId, name, email, createdAt: now, updatedAt: now }),
  ).catch(emailTaken);
  return em.findOneOrFail(UserEntity, { id });
}

export async function updateUser(em: Em, req: { id: string; name?: string; email?: string }): Promise<User> {
  const user = await resolveUser(em, req.id);
  const changes: Partial<User> = {};
  if (req.name !== undefined) changes.name = parseName(req.name);
  if (req.email !== undefined) changes.email = parseEmail(req.email);
  if (Object.keys(changes).length > 0) {
    await em.nativeUpdate(UserEntity, { id: user.id }, { ...changes, updatedAt: nowOf(em) }).catch(emailTaken);
  }
  return em.findOneOrFail(UserEntity, { id: user.id }, { refresh: true });
}

/** Foreign keys to users are ON DELETE RESTRICT, so "still owns data" is the database's answer. */
export async function deleteUser(em: Em, raw: string): Promise<void> {
  const user = await resolveUser(em, raw);
  try {
    await em.nativeDelete(UserEntity, { id: user.id });
  } catch (e) {
    if (isForeignKeyViolation(e)) {
      throw new CofferError(
        "CONFLICT",
        "This user still owns data (accounts, connections, API keys or a login); remove or reassign it first",
      );
    }
    throw e;
  }
}
