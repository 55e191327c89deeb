import { createHash, randomBytes } from "node:crypto";
import { BASE62 } from "../ids/short-id.js";

export const KEY_PREFIX = "cf_";

/** Big-endian base62 of the bytes: 32 random bytes give 43 characters. */
export function base62(bytes: Uint8Array): string {
  let n = BigInt("0x" + Buffer.from(bytes).toString("hex"));
  let out = "";
  while (n > 0n) {
    out = BASE62[Number(n % 62n)] + out;
    n /= 62n;
  }
  return out.padStart(Math.ceil((bytes.length * 8) / Math.log2(62)), "0");
}

/** A new API key: `cf_` + base62 of 32 random bytes. */
export function generateApiKey(): string {
  return KEY_PREFIX + base62(randomBytes(32));
}

/** Keys are high-entropy, so a plain SHA-256 (no salt, no stretching) is the right storage form. */
export function hashSecret(plaintext: string): string {
  return createHash("sha256").update(plaintext, "utf8").digest("hex");
}

/** What may be shown of a key later: the prefix and four characters. */
export const displayPrefix = (key: string) => key.slice(0, KEY_PREFIX.length + 4);

export const looksLikeApiKey = (s: string) => /^cf_[0-9A-Za-z]{40,50}$/.test(s);
