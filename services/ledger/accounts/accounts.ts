import { UniqueConstraintViolationException } from "@mikro-orm/core";
import { AccountEntity, ConnectionEntity, UserEntity, type Account } from "../../db/entities/index.js";
import type { Em } from "../../db/orm.js";
import { CofferError, notFound, validation } from "../../errors/coffer-error.js";
import { withShortId } from "../../ids/insert.js";
import { parseId } from "../../ids/resolve-id.js";
import { parseCurrency, parseText } from "../../shared/validate.js";
import { resolveUser } from "../../users/users.js";
import type { Actor } from "../actor.js";
import { recordAnnotation } from "../annotations.js";
import { nowOf } from "../../clock.js";
import { BALANCE, canonicalMoney } from "../../../common/money.js";

import { ACCOUNT_TYPES } from "../../../common/enums.js";
export { ACCOUNT_TYPES };
const MASK = /^[0-9A-Za-z]{1,8}$/;

export async function resolveAccount(em: Em, raw: string): Promise<Account> {
  const lookup = parseId(raw);
  const where = lookup?.column === "id" ? { id: lookup.value } : lookup ? { shortId: lookup.value } : null;
  const found = where ? await em.findOne(AccountEntity, where, { refresh: true }) : null;
  if (!found) throw notFound("Account");
  return found;
}

const parseName = (raw: string | undefined) => parseText(raw, "name", { max: 200 });

/** Optional one-line text: "" means none. */
const optionalText = (raw: string | undefined, field: string, max: number): string | null =>
  parseText(raw, field, { min: 0, max }) || null;

function parseType(raw: string): string {
  const type = raw.trim().toLowerCase();
  if (!(ACCOUNT_TYPES as readonly string[]).includes(type))
    throw validation(`type must be one of ${ACCOUNT_TYPES.join(", ")}`);
  return type;
}

/**
 * An exact decimal balance in its canonical text ("0042.5" → "42.50"); it stays
 * text all the way to the database, and "unchanged" is a string comparison.
 */
export function parseBalance(raw: string, field = "balance_current"): string {
  const balance = canonicalMoney(raw, BALANCE);
  if (balance === null) {
    throw validation(`${field} must be a decimal number with at most 12 digits before the point and 2 after`);
  }
  return balance;
}

/** An importer's own key for an account; "" means none. */
const parseProviderAccountId = (raw: string | undefined) =>
  parseText(raw, "provider_account_id", { min: 0, max: 200 }) || null;

const providerAccountTaken = (e: unknown) => {
  if (e instanceof UniqueConstraintViolationException && /provider_account/.test(e.message)) {
    throw new CofferError("CONFLICT", "Another account already has this provider_account_id");
  }
  throw e;
};

function parseMask(raw: string | undefined): string | null {
  const mask = (raw ?? "").trim();
  if (!mask) return null;
  if (!MASK.test(mask))
    throw validation("mask must be 1 to 8 letters or digits (usually the last 4 digits of the account number)");
  return mask;
}

/** An account with its owner's short id and name, and its connection's short id, as the API shows it. */
export type AccountView = Account & { ownerShortId: string; ownerName: string; connectionShortId: string | null };

async function withOwners(em: Em, accounts: Account[]): Promise<AccountView[]> {
  const ids = [...new Set(accounts.map((a) => a.userId))];
  const users = ids.length ? await em.find(UserEntity, { id: { $in: ids } }, { refresh: true }) : [];
  const byId = new Map(users.map((u) => [u.id, u]));
  const connectionIds = [...new Set(accounts.flatMap((a) => (a.connectionId ? [a.connectionId] : [])))];
  const connections = connectionIds.length
    ? await em.find(ConnectionEntity, { id: { $in: connectionIds } }, { refresh: true })
    : [];
  const connectionShortIds = new Map(connections.map((c) => [c.id, c.shortId]));
  return accounts.map((a) => {
    const owner = byId.get(a.userId)!;
    return {
      ...a,
      ownerShortId: owner.shortId,
      ownerName: owner.name,
      connectionShortId: a.connectionId ? (connectionShortIds.get(a.connectionId) ?? null) : null,
    };
  });
}

export async function listAccounts(em: Em, req: { userId?: string; includeHidden: boolean }): Promise<AccountView[]> {
  const where: Record<string, unknown> = {};
  if (req.userId !== undefined) where.userId = (await resolveUser(em, req.userId)).id;
  if (!req.includeHidden) where.hidden = false;
  const accounts = await em.find(AccountEntity, where, { orderBy: { name: "asc", id: "asc" }, refresh: true });
  return withOwners(em, accounts);
}

export async function loadAccount(em: Em, id: string): Promise<AccountView> {
  const a = await em.findOneOrFail(AccountEntity, { id }, { refresh: true });
  return (await withOwners(em, [a]))[0];
}

export interface CreateAccountInput {
  userId: string;
  name: string;
  type: string;
  subtype?: string;
  isoCurrencyCode: string;
  mask?: string;
  officialName?: string;
  balanceCurrent?: string;
  /** An importer's own key for the account (unique per provider), so that a re-import finds it. */
  providerAccountId?: string;
}

/** The id of the account a provider knows by `providerAccountId`, or null. */
export async function findAccountIdByProviderId(
  em: Em,
  req: { provider: string; providerAccountId: string },
): Promise<string | null> {
  const provider = req.provider.trim();
  const providerAccountId = parseProviderAccountId(req.providerAccountId);
  if (!provider || !providerAccountId) throw validation("provider and provider_account_id are required");
  const found = await em.findOne(AccountEntity, { provider, providerAccountId }, { refresh: true });
  return found?.id ?? null;
}

/** A manual account (cash, or a bank without a provider, filled by CSV imports). */
export async function createAccount(em: Em, actor: Actor, req: CreateAccountInput): Promise<string> {
  if (!req.userId?.trim()) throw validation("user_id is required");
  const name = parseName(req.name);
  const type = parseType(req.type);
  const subtype = optionalText(req.subtype, "subtype", 64);
  const isoCurrencyCode = parseCurrency(req.isoCurrencyCode);
  const mask = parseMask(req.mask);
  const officialName = optionalText(req.officialName, "official_name", 200);
  const balanceCurrent =
    req.balanceCurrent === undefined || req.balanceCurrent === "" ? null : parseBalance(req.balanceCurrent);
  const providerAccountId = parseProviderAccountId(req.providerAccountId);
  return em.transactional(async (tx) => {
    const owner = await resolveUser(tx, req.userId.trim());
    const id = crypto.randomUUID();
    const now = nowOf(tx);
    // Each attempt in its own savepoint, so a short-id clash does not abort the transaction.
    await withShortId((shortId) =>
      tx.transactional((sp) =>
        sp.insert(AccountEntity, {
          id,
          shortId,
          userId: owner.id,
          connectionId: null,
          provider: "manual",
          providerAccountId,
          name,
          officialName,
          type,
          subtype,
          mask,
          balanceCurrent,
          balanceAvailable: null,
          balanceLimit: null,
          isoCurrencyCode,
          hidden: false,
          createdAt: now,
          updatedAt: now,
        }),
      ),
    ).catch(providerAccountTaken);
    await recordAnnotation(tx, actor, {
      entityType: "account",
      entityId: id,
      action: "created",
      details: {
        name,
        type,
        iso_currency_code: isoCurrencyCode,
        user_id: owner.shortId,
        balance_current: balanceCurrent,
        ...(providerAccountId ? { provider_account_id: providerAccountId } : {}),
      },
    });
    return id;
  });
}

/** Renames, hides or shows, or moves an account to another household member. */
export async function updateAccount(
  em: Em,
  actor: Actor,
  req: { id: string; name?: string; hidden?: boolean; userId?: string },
): Promise<string> {
  return em.transactional(async (tx) => {
    const a = await resolveAccount(tx, req.id);
    const set: Partial<Account> = {};
    const changes: Record<string, { from: unknown; to: unknown }> = {};
    if (req.name !== undefined) {
      const name = parseName(req.name);
      if (name !== a.name) {
        set.name = name;
        changes.name = { from: a.name, to: name };
      }
    }
    if (req.hidden !== undefined && req.hidden !== a.hidden) {
      set.hidden = req.hidden;
      changes.hidden = { from: a.hidden, to: req.hidden };
    }
    if (req.userId !== undefined) {
      const owner = await resolveUser(tx, req.userId.trim());
      if (owner.id !== a.userId) {
        const previous = await tx.findOneOrFail(UserEntity, { id: a.userId });
        set.userId = owner.id;
        changes.user_id = { from: previous.shortId, to: owner.shortId };
      }
    }
    if (Object.keys(changes).length === 0) return a.id;
    await tx.nativeUpdate(AccountEntity, { id: a.id }, { ...set, updatedAt: nowOf(tx) });
    await recordAnnotation(tx, actor, {
      entityType: "account",
      entityId: a.id,
      action: "updated",
      details: { changes },
    });
    return a.id;
  });
}
