import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, renameSync, rmSync, writeFileSync } from "node:fs";
import { resolve } from "node:path";
import type { CofferEnv } from "../common/env.js";

const KEY = /^[0-9a-f]{64}$/;

/**
 * The key that encrypts provider credentials when Coffer runs on its embedded
 * database: made on first use (32 random bytes, hex) and kept in
 * `<dataDir>/encryption.key`, readable by its owner only. Losing it makes the
 * stored credentials unreadable (connections then need a new login), so it
 * belongs in the same backup as the data directory.
 */
export function embeddedEncryptionKey(dataDir: string): string {
  const file = resolve(dataDir, "encryption.key");
  if (existsSync(file)) {
    const key = readFileSync(file, "utf8").trim().toLowerCase();
    if (!KEY.test(key)) throw new Error(`${file} does not hold a 64-hex-character key; restore it from a backup`);
    chmodSync(file, 0o600);
    return key;
  }
  mkdirSync(resolve(dataDir), { recursive: true });
  const key = randomBytes(32).toString("hex");
  // wx: two processes starting at once cannot both write a key; the second one fails and reads the first's.
  try {
    writeFileSync(file, `${key}\n`, { mode: 0o600, flag: "wx" });
  } catch (e) {
    if ((e as NodeJS.ErrnoException).code === "EEXIST") return embeddedEncryptionKey(dataDir);
    throw e;
  }
  return key;
}

/**
 * COFFER_ENCRYPTION_KEY when it is set; else, on the embedded database, the
 * data directory's key; else (a database of one's own without a key) none.
 */
export function encryptionKeyFor(env: CofferEnv): string | undefined {
  if (env.encryptionKey) return env.encryptionKey;
  return env.databaseUrl ? undefined : embeddedEncryptionKey(env.dataDir);
}

/** A rotation the operator must fix something for (a setting, a running core); nothing was changed. */
export class RotationRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "RotationRefused";
  }
}

/** What `coffer encryption-key rotate` did: where the new key is, and how many credentials it now seals. */
export interface Rotation {
  resealed: number;
  /** The new key when the operator must store it (it is not kept in the data directory), else null. */
  printedKey: string | null;
}

/**
 * `coffer encryption-key rotate`: re-seals every stored credential under a new
 * key in one transaction (services/sync/reseal.ts). The new key is
 * COFFER_NEW_ENCRYPTION_KEY, or a fresh random one. On the embedded database
 * without COFFER_ENCRYPTION_KEY it replaces the data directory's key file: it
 * is written beside it first and renamed over it only once the transaction
 * has committed, so a failure leaves the old key and the old seals together.
 * Otherwise the operator gets the new key to give every core.
 */
export async function rotateEncryptionKey(env: NodeJS.ProcessEnv = process.env): Promise<Rotation> {
  const [{ readEnv }, { withOrm }, { CredentialCipher }, { resealCredentials, ResealRefused }] = await Promise.all([
    import("../common/env.js"),
    import("./with-orm.js"),
    import("../services/sync/credentials.js"),
    import("../services/sync/reseal.js"),
  ]);
  const e = readEnv(env);
  const oldKey = encryptionKeyFor(e);
  if (!oldKey) throw new RotationRefused("COFFER_ENCRYPTION_KEY must be set to the current key to rotate it");
  const given = env.COFFER_NEW_ENCRYPTION_KEY?.trim().toLowerCase();
  if (given !== undefined && given !== "" && !KEY.test(given)) {
    throw new RotationRefused("COFFER_NEW_ENCRYPTION_KEY must be 64 hex characters (32 bytes)");
  }
  const newKey = given || randomBytes(32).toString("hex");
  if (newKey === oldKey) throw new RotationRefused("COFFER_NEW_ENCRYPTION_KEY is the current key");

  const keyFile = !e.encryptionKey && !e.databaseUrl ? resolve(e.dataDir, "encryption.key") : null;
  const pending = keyFile && `${keyFile}.new`;
  if (pending) writeFileSync(pending, `${newKey}\n`, { mode: 0o600 });
  try {
    const resealed = await withOrm(
      (em) => resealCredentials(em, new CredentialCipher(oldKey), new CredentialCipher(newKey)),
      env,
    );
    if (keyFile && pending) renameSync(pending, keyFile);
    return { resealed, printedKey: keyFile || given ? null : newKey };
  } catch (err) {
    if (pending) rmSync(pending, { force: true });
    throw err instanceof ResealRefused ? new RotationRefused(err.message) : err;
  }
}
