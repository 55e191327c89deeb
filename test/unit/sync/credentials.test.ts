import { describe, expect, it } from "vitest";
import { CredentialCipher, CredentialsUnreadable } from "../../../services/sync/credentials.js";
import { checkCredentials } from "../../../services/sync/credentials-schema.js";

const KEY = "ab".repeat(32);
const ID = "6c1b1b1e-8a5e-4f3a-9a57-9a2b5f0d1e11";

describe("CredentialCipher (AES-256-GCM)", () => {
  it("seals and opens, with a fresh IV each time and no plaintext in the stored bytes", () => {
    const c = new CredentialCipher(KEY);
    const a = c.seal(ID, { access_token: "access-sandbox-123" });
    const b = c.seal(ID, { access_token: "access-sandbox-123" });
    expect(a.equals(b)).toBe(false);
    expect(a.toString("latin1")).not.toContain("access-sandbox");
    expect(c.open(ID, a)).toEqual({ access_token: "access-sandbox-123" });
  });

  it("does not open with another key, for another connection, or after tampering", () => {
    const sealed = new CredentialCipher(KEY).seal(ID, { t: 1 });
    expect(() => new CredentialCipher("cd".repeat(32)).open(ID, sealed)).toThrow(CredentialsUnreadable);
    expect(() => new CredentialCipher(KEY).open(ID.replace("6c", "7c"), sealed)).toThrow(CredentialsUnreadable);
    const tampered = Buffer.from(sealed);
    tampered[tampered.length - 1] ^= 1;
    expect(() => new CredentialCipher(KEY).open(ID, tampered)).toThrow(CredentialsUnreadable);
    expect(() => new CredentialCipher(KEY).open(ID, Buffer.from([1, 2, 3]))).toThrow(CredentialsUnreadable);
  });

  it("without a key refuses to store with ENCRYPTION_KEY_MISSING and a message that says what to do", () => {
    const c = new CredentialCipher(undefined);
    expect(c.hasKey).toBe(false);
    expect(() => c.assertCanStore()).toThrow(
      expect.objectContaining({
        code: "ENCRYPTION_KEY_MISSING",
        message: expect.stringMatching(/COFFER_ENCRYPTION_KEY/),
      }),
    );
    expect(() => c.seal(ID, {})).toThrow(expect.objectContaining({ code: "ENCRYPTION_KEY_MISSING" }));
  });
});

describe("checkCredentials", () => {
  const schema = {
    token: { type: "string" as const, required: true, description: "the public token" },
    mapping: { type: "object" as const, required: false, description: "columns" },
    flag: { type: "boolean" as const, required: false, description: "a flag" },
    days: { type: "integer" as const, required: false, description: "days" },
  };

  it("passes credentials that fit the schema", () => {
    const input = { token: "t", mapping: { a: 1 }, flag: false, days: 30 };
    expect(checkCredentials("plaid", schema, input)).toBe(input);
  });

  it.each([
    [null, "credentials must be an object"],
    [["t"], "credentials must be an object"],
    [{}, "credentials.token is required (the public token)"],
    [{ token: "  " }, "credentials.token is required"],
    [{ token: 1 }, "credentials.token must be a string"],
    [{ token: "t", mapping: [] }, "credentials.mapping must be an object"],
    [{ token: "t", flag: "yes" }, "credentials.flag must be a boolean"],
    [{ token: "t", days: 1.5 }, "credentials.days must be an integer"],
    [{ token: "t", extra: 1 }, "credentials.extra is not a plaid credential; expected: token, mapping, flag, days"],
  ])("refuses %j: %s", (input, message) => {
    expect(() => checkCredentials("plaid", schema, input)).toThrow(
      expect.objectContaining({ code: "VALIDATION_ERROR", message: expect.stringContaining(message) }),
    );
  });
});
