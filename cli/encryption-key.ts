import { randomBytes } from "node:crypto";
import { chmodSync, existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
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
