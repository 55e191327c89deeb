import { mkdtempSync, readFileSync, statSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { readEnv } from "../../common/env.js";
import { embeddedEncryptionKey, encryptionKeyFor } from "../../cli/encryption-key.js";

const dir = () => mkdtempSync(join(tmpdir(), "coffer-key-"));

describe("the embedded database's encryption key", () => {
  it("is made on first use, readable by its owner only, and the same ever after", () => {
    const d = join(dir(), "data");
    const key = embeddedEncryptionKey(d);
    expect(key).toMatch(/^[0-9a-f]{64}$/);
    expect(statSync(join(d, "encryption.key")).mode & 0o777).toBe(0o600);
    expect(readFileSync(join(d, "encryption.key"), "utf8").trim()).toBe(key);
    expect(embeddedEncryptionKey(d)).toBe(key);
  });

  it("refuses a key file that holds something else, rather than making a new key over it", () => {
    const d = dir();
    writeFileSync(join(d, "encryption.key"), "not a key\n");
    expect(() => embeddedEncryptionKey(d)).toThrow(/does not hold a 64-hex-character key/);
    expect(readFileSync(join(d, "encryption.key"), "utf8")).toBe("not a key\n");
  });

  it("is used only without COFFER_ENCRYPTION_KEY and without DATABASE_URL", () => {
    const d = dir();
    const given = "12".repeat(32);
    expect(encryptionKeyFor(readEnv({ COFFER_ENCRYPTION_KEY: given, COFFER_DATA_DIR: d }))).toBe(given);
    expect(encryptionKeyFor(readEnv({ DATABASE_URL: "postgres://x/y", COFFER_DATA_DIR: d }))).toBeUndefined();
    expect(encryptionKeyFor(readEnv({ COFFER_DATA_DIR: d }))).toBe(embeddedEncryptionKey(d));
  });
});
