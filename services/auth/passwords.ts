import { randomBytes, scrypt, timingSafeEqual, type ScryptOptions } from "node:crypto";
import { validation } from "../errors/coffer-error.js";

/** scrypt's cost parameters, stored with each hash so they can be raised without breaking old ones. */
export interface ScryptParams {
  N: number;
  r: number;
  p: number;
  keylen: number;
}

/** 64 MiB and about 140 ms per hash on one core of a small server: costly to guess, cheap to sign in with. */
export const CURRENT_PARAMS: ScryptParams = { N: 2 ** 16, r: 8, p: 1, keylen: 32 };

export const MIN_PASSWORD_LENGTH = 12;
/** Longer inputs only cost hashing time; no passphrase needs more. */
export const MAX_PASSWORD_LENGTH = 1024;

export interface PasswordHash {
  hash: string;
  salt: string;
  params: ScryptParams;
}

function derive(password: string, salt: Buffer, params: ScryptParams): Promise<Buffer> {
  const options: ScryptOptions = { N: params.N, r: params.r, p: params.p, maxmem: 256 * params.N * params.r };
  return new Promise((resolve, reject) =>
    scrypt(password.normalize("NFC"), salt, params.keylen, options, (err, key) => (err ? reject(err) : resolve(key))),
  );
}

/** Checks a new password's length (characters, not bytes) before anything is stored. */
export function checkNewPassword(password: string): void {
  const length = [...password].length;
  if (length < MIN_PASSWORD_LENGTH) throw validation(`password must be at least ${MIN_PASSWORD_LENGTH} characters`);
  if (length > MAX_PASSWORD_LENGTH) throw validation(`password must be at most ${MAX_PASSWORD_LENGTH} characters`);
}

export async function hashPassword(password: string): Promise<PasswordHash> {
  const salt = randomBytes(16);
  const key = await derive(password, salt, CURRENT_PARAMS);
  return { hash: key.toString("base64"), salt: salt.toString("base64"), params: { ...CURRENT_PARAMS } };
}

/**
 * Stands in for a login that does not exist (or has no password yet), so a
 * wrong email costs the same scrypt work as a wrong password and the two
 * cannot be told apart by timing.
 */
const DUMMY: PasswordHash = {
  hash: randomBytes(CURRENT_PARAMS.keylen).toString("base64"),
  salt: randomBytes(16).toString("base64"),
  params: CURRENT_PARAMS,
};

/** True when `password` matches `stored`; with no stored hash, does the same work and returns false. */
export async function verifyPassword(password: string, stored: PasswordHash | null): Promise<boolean> {
  const against = stored ?? DUMMY;
  const expected = Buffer.from(against.hash, "base64");
  // An over-long input is hashed all the same (and fails): refusing it early would answer faster.
  const key = await derive(password.slice(0, MAX_PASSWORD_LENGTH * 2), Buffer.from(against.salt, "base64"), {
    ...against.params,
    keylen: expected.length,
  });
  return timingSafeEqual(key, expected) && stored !== null;
}
