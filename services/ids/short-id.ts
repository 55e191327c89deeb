import { randomBytes } from "node:crypto";

export const BASE62 = "0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz";
import { SHORT_ID_LENGTH } from "../../common/validation.js";

export { SHORT_ID_LENGTH };

/**
 * Uniform random base62 string. Bytes >= 248 are rejected (248 = 4 * 62) so
 * every character is equally likely; a modulo alone would bias the alphabet.
 */
export function randomBase62(length: number): string {
  let out = "";
  while (out.length < length) {
    for (const byte of randomBytes(length * 2)) {
      if (byte < 248) out += BASE62[byte % 62];
      if (out.length === length) break;
    }
  }
  return out;
}

export const newShortId = () => randomBase62(SHORT_ID_LENGTH);
