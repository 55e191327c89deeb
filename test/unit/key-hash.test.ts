import { createHash } from "node:crypto";
import { describe, expect, it } from "vitest";
import {
  base62,
  displayPrefix,
  generateApiKey,
  hashSecret,
  KEY_PREFIX,
  looksLikeApiKey,
} from "../../services/auth/key-hash.js";

describe("API key generation and hashing", () => {
  it("generates cf_ + 43 base62 characters (32 random bytes)", () => {
    for (let i = 0; i < 500; i++) expect(generateApiKey()).toMatch(/^cf_[0-9A-Za-z]{43}$/);
    expect(KEY_PREFIX).toBe("cf_");
  });

  it("never generates the same key twice", () => {
    const keys = new Set(Array.from({ length: 2000 }, generateApiKey));
    expect(keys.size).toBe(2000);
  });

  it.each([
    ["zeros", new Uint8Array(32), "0".repeat(43)],
    ["ones", new Uint8Array(32).fill(255), null],
  ])("base62 of 32 bytes (%s) is always 43 characters", (_name, bytes, exact) => {
    const s = base62(bytes);
    expect(s).toMatch(/^[0-9A-Za-z]{43}$/);
    if (exact) expect(s).toBe(exact);
  });

  // 2 bytes pad to ceil(16 / log2 62) = 3 characters, so short inputs stay fixed-width.
  it.each([
    [Uint8Array.of(0, 61), "00z"],
    [Uint8Array.of(0, 62), "010"],
    [Uint8Array.of(1, 0), "048"], // 256 = 4 * 62 + 8
  ])("base62 is big-endian positional (%#)", (bytes, expected) => {
    expect(base62(bytes)).toBe(expected);
  });

  it.each(["cf_abc", "", "ünïcödé", generateApiKey()])("hashSecret(%j) is the SHA-256 hex", (s) => {
    const h = hashSecret(s);
    expect(h).toMatch(/^[0-9a-f]{64}$/);
    expect(h).toBe(createHash("sha256").update(s, "utf8").digest("hex"));
  });

  it("hashes two different keys differently and the same key the same way", () => {
    const a = generateApiKey();
    const b = generateApiKey();
    expect(hashSecret(a)).not.toBe(hashSecret(b));
    expect(hashSecret(a)).toBe(hashSecret(a));
  });

  it("shows only the prefix and four characters", () => {
    const k = generateApiKey();
    expect(displayPrefix(k)).toBe(k.slice(0, 7));
    expect(displayPrefix(k)).toHaveLength(7);
  });

  it.each([
    [generateApiKey(), true],
    ["cf_" + "a".repeat(43), true],
    ["cf_" + "a".repeat(39), false],
    ["cf_" + "a".repeat(51), false],
    ["xx_" + "a".repeat(43), false],
    ["CF_" + "a".repeat(43), false],
    ["cf_" + "a".repeat(42) + "!", false],
    ["cf_" + "a".repeat(42) + "-", false],
    [" cf_" + "a".repeat(43), false],
    ["", false],
    ["' OR 1=1 --", false],
  ])("looksLikeApiKey(%j) = %s", (s, expected) => {
    expect(looksLikeApiKey(s)).toBe(expected);
  });
});
