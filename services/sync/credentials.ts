import { createCipheriv, createDecipheriv, randomBytes } from "node:crypto";
import { CofferError } from "../errors/coffer-error.js";
import type { Credentials } from "./providers/provider.js";

/**
 * Provider credentials at rest: AES-256-GCM under COFFER_ENCRYPTION_KEY.
 * Stored form: a format byte (1), a random 96-bit IV, the 128-bit tag, then
 * the ciphertext of the credentials' JSON. The connection's id is the
 * additional authenticated data, so a ciphertext copied onto another
 * connection's row does not open. Plaintext credentials exist only in memory,
 * for the provider call that needs them; they are never returned or logged.
 */
const FORMAT = 1;
const IV_BYTES = 12;
const TAG_BYTES = 16;

/** The stored credentials do not open with this key (the key changed, or the row was tampered with). */
export class CredentialsUnreadable extends Error {
  constructor() {
    super("The stored credentials cannot be decrypted with this COFFER_ENCRYPTION_KEY");
    this.name = "CredentialsUnreadable";
  }
}

export class CredentialCipher {
  private readonly key: Buffer | null;

  /** `hexKey`: 64 hex characters (common/env.ts checked them), or undefined when the core has no key. */
  constructor(hexKey: string | undefined) {
    this.key = hexKey ? Buffer.from(hexKey, "hex") : null;
  }

  get hasKey(): boolean {
    return this.key !== null;
  }

  /** Throws ENCRYPTION_KEY_MISSING unless credentials can be stored: checked before a provider is called. */
  assertCanStore(): void {
    this.requireKey();
  }

  private requireKey(): Buffer {
    if (!this.key) {
      throw new CofferError(
        "ENCRYPTION_KEY_MISSING",
        "This Coffer cannot store provider credentials: COFFER_ENCRYPTION_KEY is not set on the core " +
          "(64 hex characters, e.g. from `openssl rand -hex 32`; `coffer start` makes one for the embedded database)",
      );
    }
    return this.key;
  }

  seal(connectionId: string, credentials: Credentials): Buffer {
    const key = this.requireKey();
    const iv = randomBytes(IV_BYTES);
    const cipher = createCipheriv("aes-256-gcm", key, iv);
    cipher.setAAD(aad(connectionId));
    const body = Buffer.concat([cipher.update(JSON.stringify(credentials), "utf8"), cipher.final()]);
    return Buffer.concat([Buffer.from([FORMAT]), iv, cipher.getAuthTag(), body]);
  }

  open(connectionId: string, sealed: Buffer): Credentials {
    const key = this.requireKey();
    if (sealed.length < 1 + IV_BYTES + TAG_BYTES || sealed[0] !== FORMAT) throw new CredentialsUnreadable();
    const iv = sealed.subarray(1, 1 + IV_BYTES);
    const tag = sealed.subarray(1 + IV_BYTES, 1 + IV_BYTES + TAG_BYTES);
    try {
      const decipher = createDecipheriv("aes-256-gcm", key, iv);
      decipher.setAAD(aad(connectionId));
      decipher.setAuthTag(tag);
      const text = Buffer.concat([decipher.update(sealed.subarray(1 + IV_BYTES + TAG_BYTES)), decipher.final()]);
      return JSON.parse(text.toString("utf8")) as Credentials;
    } catch {
      throw new CredentialsUnreadable();
    }
  }
}

const aad = (connectionId: string) => Buffer.from(`coffer:connection:${connectionId}`, "utf8");
