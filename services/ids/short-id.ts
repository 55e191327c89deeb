import { randomBytes } from "node:crypto";

export const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
import { SHORT_ID_LENGTH } from "../../common/validation.js";

export { SHORT_ID_LENGTH };

/**
 * Random bytes are drawn from the CSPRNG in blocks: a sync page makes
 * thousands of ids, and one system call per id cost more than the ids.
 * Each byte is used once.
 */
const POOL_SIZE = 4096;
let pool = Buffer.alloc(0);
let next = 0;

function randomByte(): number {
  if (next === pool.length) {
    pool = randomBytes(POOL_SIZE);
    next = 0;
  }
  return pool[next++];
}

/**
 * Uniform random base62 string. Bytes >= 248 are rejected (248 = 4 * 62) so
 * every character is equally likely; a modulo alone would bias the alphabet.
 */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    const byte = randomByte();
    if (byte < 248) out += BASE62[byte % 62];
  }
  return out;
}

export const newShortId = () => randomBase62(SHORT_ID_LENGTH);
