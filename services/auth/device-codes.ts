import { randomBytes, randomInt } from "node:crypto";
import { UniqueConstraintViolationException } from "@mikro-orm/core";
import { DeviceCodeEntity, type ApiKeyScope, type DeviceCode } from "../db/entities/index.js";
import type { Em } from "../db/orm.js";
import type { Principal } from "../context.js";
import { CofferError, validation } from "../errors/coffer-error.js";
import { newShortId } from "../ids/short-id.js";
import { hashSecret } from "./key-hash.js";
import { insertApiKey, parseKeyName, parseScope } from "./api-keys.js";
import { nowOf } from "../clock.js";

/** Consonants only, without look-alikes, so a code read aloud or off a screen survives. */
const USER_CODE_ALPHABET = "BCDFGHJKLMNPQRSTVWXZ";
export const POLL_INTERVAL_SECONDS = 5;

export interface DeviceCodeConfig {
  ttlSeconds: number;
  verificationUrl: string;
}

function newUserCode(): string {
  let s = "";
  for (let i = 0; i < 8; i++) s += USER_CODE_ALPHABET[randomInt(USER_CODE_ALPHABET.length)];
  return `${s.slice(0, 4)}-${s.slice(4)}`;
}

/** Accepts "bcdf-ghjk", "BCDFGHJK" or " BCDF-GHJK "; returns null for anything else. */
export function normalizeUserCode(raw: string): string | null {
  const s = raw.trim().toUpperCase().replace(/-/g, "");
  if (s.length !== 8 || [...s].some((c) => !USER_CODE_ALPHABET.includes(c))) return null;
  return `${s.slice(0, 4)}-${s.slice(4)}`;
}

export async function createDeviceCode(em: Em, config: DeviceCodeConfig, requestedName?: string) {
  const name = requestedName?.trim() ? parseKeyName(requestedName) : null;
  const deviceCode = randomBytes(32).toString("base64url");
  const now = nowOf(em);
  for (let attempt = 1; ; attempt++) {
    const userCode = newUserCode();
    try {
      await em.insert(DeviceCodeEntity, {
        id: crypto.randomUUID(),
        shortId: newShortId(),
        deviceCodeHash: hashSecret(deviceCode),
        userCode,
        status: "pending",
        requestedName: name,
        scope: null,
        name: null,
        decidedByKeyId: null,
        decidedAt: null,
        apiKeyId: null,
        expiresAt: new Date(now.getTime() + config.ttlSeconds * 1000),
        createdAt: now,
      });
      return {
        deviceCode,
        userCode,
        verificationUrl: `${config.verificationUrl}?user_code=${userCode}`,
        expiresIn: config.ttlSeconds,
        interval: POLL_INTERVAL_SECONDS,
      };
    } catch (e) {
      if (!(e instanceof UniqueConstraintViolationException) || attempt >= 5) throw e;
    }
  }
}

const isExpired = (row: DeviceCode, now: Date) => row.expiresAt.getTime() <= now.getTime();

export type PollResult = { status: "authorization_pending" } | { status: "approved"; token?: string };

/**
 * The poll (docs/contract.md): pending → authorization_pending; approved → the new key's
 * plaintext on the first approved poll only; denied → DENIED; past its TTL →
 * EXPIRED; unknown → INVALID_DEVICE_CODE. The key is created inside the claim
 * so its plaintext exists only in this one response.
 */
export async function pollDeviceCode(em: Em, deviceCode: string): Promise<PollResult> {
  if (!deviceCode) throw validation("device_code is required");
  const row = await em.findOne(DeviceCodeEntity, { deviceCodeHash: hashSecret(deviceCode) });
  if (!row) throw new CofferError("INVALID_DEVICE_CODE", "Unknown device code");
  if (row.status === "denied") throw new CofferError("DENIED", "The operator denied this device code");
  if (row.status === "approved" && row.apiKeyId) return { status: "approved" };
  if (isExpired(row, nowOf(em))) throw new CofferError("EXPIRED", "The device code has expired; request a new one");
  if (row.status === "pending") return { status: "authorization_pending" };

  return em
    .transactional(async (tx) => {
      const { key, plaintext } = await insertApiKey(tx, {
        name: row.name ?? `device ${row.userCode}`,
        scope: row.scope ?? "read_only",
        actorType: "agent",
      });
      const claimed = await tx.nativeUpdate(DeviceCodeEntity, { id: row.id, apiKeyId: null }, { apiKeyId: key.id });
      if (claimed === 0) {
        // Another poll won the race: this key must not exist.
        throw new LostClaim();
      }
      return { status: "approved" as const, token: plaintext };
    })
    .catch((e) => {
      if (e instanceof LostClaim) return { status: "approved" as const };
      throw e;
    });
}

class LostClaim extends Error {}

export interface Decision {
  userCode: string;
  status: "approved" | "denied";
  scope: ApiKeyScope | null;
  name: string | null;
}

async function decide(
  em: Em,
  principal: Principal,
  rawUserCode: string,
  change: { status: "approved" | "denied"; scope: ApiKeyScope | null; name?: string | null },
): Promise<Decision> {
  const userCode = normalizeUserCode(rawUserCode ?? "");
  const row = userCode ? await em.findOne(DeviceCodeEntity, { userCode }) : null;
  if (!row) throw new CofferError("INVALID_DEVICE_CODE", "Unknown user code");
  if (row.status !== "pending") throw new CofferError("CONFLICT", `This code was already ${row.status}`);
  if (isExpired(row, nowOf(em))) throw new CofferError("EXPIRED", "The device code has expired");
  const name = change.status === "approved" ? (change.name ?? row.requestedName ?? `device ${row.userCode}`) : null;
  const updated = await em.nativeUpdate(
    DeviceCodeEntity,
    { id: row.id, status: "pending" },
    {
      status: change.status,
      scope: change.scope,
      name,
      decidedAt: nowOf(em),
      decidedByKeyId: principal.kind === "key" ? principal.keyId : null,
    },
  );
  if (updated === 0) throw new CofferError("CONFLICT", "This code was already decided");
  return { userCode: row.userCode, status: change.status, scope: change.scope, name };
}

export function approveDeviceCode(
  em: Em,
  principal: Principal,
  req: { userCode: string; scope?: string; name?: string },
) {
  const scope = parseScope(req.scope, "read_only");
  const name = req.name?.trim() ? parseKeyName(req.name) : null;
  return decide(em, principal, req.userCode, { status: "approved", scope, name });
}

export function denyDeviceCode(em: Em, principal: Principal, req: { userCode: string }) {
  return decide(em, principal, req.userCode, { status: "denied", scope: null });
}
