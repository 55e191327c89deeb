import { createHash, createPublicKey, timingSafeEqual, verify, type JsonWebKey, type KeyObject } from "node:crypto";
import { ProviderError, type WebhookEvent } from "../provider.js";
import { REAUTH_CODES } from "./errors.js";

/**
 * Plaid webhook verification: the `Plaid-Verification` header is a compact
 * JWT signed with ES256 by a key Plaid serves at /webhook_verification_key/get;
 * its claims carry `iat` and the SHA-256 of the raw body. Keys are cached by
 * kid; an unknown kid is fetched (and the cached, unexpired keys refreshed,
 * so a key Plaid has since expired stops being trusted).
 */

const MAX_AGE_SECONDS = 5 * 60;
/** Clock skew tolerated for an `iat` in the future. */
const MAX_SKEW_SECONDS = 60;

interface PlaidJwk {
  alg: string;
  crv: string;
  kid: string;
  kty: string;
  use: string;
  x: string;
  y: string;
  created_at: number;
  expired_at: number | null;
}

/** Fetches a key by id; resolves null when Plaid says there is no such key. */
export type KeyFetcher = (kid: string) => Promise<PlaidJwk | null>;

const reject = (why: string) => new ProviderError("invalid_input", "INVALID_SIGNATURE", `Plaid webhook: ${why}`);

function decodeJson(part: string, what: string): Record<string, unknown> {
  try {
    const value: unknown = JSON.parse(Buffer.from(part, "base64url").toString("utf8"));
    if (typeof value === "object" && value !== null && !Array.isArray(value)) return value as Record<string, unknown>;
  } catch {
    // fall through
  }
  throw reject(`the JWT ${what} is not JSON`);
}

function header(headers: Record<string, string | undefined>, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === wanted) return v;
  return undefined;
}

export class PlaidWebhookVerifier {
  private readonly keys = new Map<string, { jwk: PlaidJwk; key: KeyObject }>();

  constructor(
    private readonly fetchKey: KeyFetcher,
    private readonly nowSeconds: () => number = () => Math.floor(Date.now() / 1000),
  ) {}

  async verify(headers: Record<string, string | undefined>, rawBody: Buffer): Promise<WebhookEvent> {
    const token = header(headers, "plaid-verification")?.trim();
    if (!token) throw reject("no Plaid-Verification header");
    const parts = token.split(".");
    if (parts.length !== 3) throw reject("Plaid-Verification is not a compact JWT");
    const [encodedHeader, encodedClaims, encodedSignature] = parts;
    const jwtHeader = decodeJson(encodedHeader, "header");
    // Decided before any key is fetched: only ES256, never "none" or an HMAC algorithm.
    if (jwtHeader.alg !== "ES256") throw reject(`algorithm ${JSON.stringify(jwtHeader.alg)} is not ES256`);
    if (typeof jwtHeader.kid !== "string" || jwtHeader.kid === "") throw reject("the JWT names no key id");

    const key = await this.key(jwtHeader.kid);
    const signature = Buffer.from(encodedSignature, "base64url");
    const signed = Buffer.from(`${encodedHeader}.${encodedClaims}`);
    const valid = signature.length === 64 && verify("sha256", signed, { key, dsaEncoding: "ieee-p1363" }, signature);
    if (!valid) throw reject("bad signature");

    const claims = decodeJson(encodedClaims, "claims");
    const iat = claims.iat;
    if (typeof iat !== "number" || !Number.isFinite(iat)) throw reject("the JWT has no iat");
    const now = this.nowSeconds();
    if (now - iat > MAX_AGE_SECONDS) throw reject("the JWT is more than 5 minutes old");
    if (iat - now > MAX_SKEW_SECONDS) throw reject("the JWT is issued in the future");

    const expected = claims.request_body_sha256;
    const actual = createHash("sha256").update(rawBody).digest("hex");
    if (typeof expected !== "string" || !/^[0-9a-f]{64}$/i.test(expected)) throw reject("no body hash in the JWT");
    if (!timingSafeEqual(Buffer.from(expected.toLowerCase(), "hex"), Buffer.from(actual, "hex"))) {
      throw reject("the body does not match its signed hash");
    }
    return describeEvent(rawBody);
  }

  private async key(kid: string): Promise<KeyObject> {
    const cached = this.keys.get(kid);
    if (cached && !this.isExpired(cached.jwk)) return cached.key;
    if (!cached) {
      await this.refreshCached();
      const jwk = await this.fetchKey(kid);
      if (!jwk) throw reject("unknown key id");
      this.remember(jwk);
    }
    const entry = this.keys.get(kid);
    if (!entry || this.isExpired(entry.jwk)) throw reject("the signing key has expired");
    return entry.key;
  }

  /** Re-reads the cached keys Plaid had not expired, to learn of an expiry since. */
  private async refreshCached(): Promise<void> {
    for (const { jwk } of [...this.keys.values()]) {
      if (jwk.expired_at !== null) continue;
      const fresh = await this.fetchKey(jwk.kid);
      if (fresh) this.remember(fresh);
      else this.keys.delete(jwk.kid);
    }
  }

  private remember(jwk: PlaidJwk): void {
    if (jwk.kty !== "EC" || jwk.crv !== "P-256") throw reject(`key ${jwk.kid} is not a P-256 key`);
    let key: KeyObject;
    try {
      key = createPublicKey({ key: { kty: "EC", crv: "P-256", x: jwk.x, y: jwk.y } as JsonWebKey, format: "jwk" });
    } catch {
      throw reject(`key ${jwk.kid} is not a valid public key`);
    }
    this.keys.set(jwk.kid, { jwk, key });
  }

  private isExpired(jwk: PlaidJwk): boolean {
    return jwk.expired_at !== null && jwk.expired_at <= this.nowSeconds();
  }
}

/** What an authentic Plaid webhook asks for. */
export function describeEvent(rawBody: Buffer): WebhookEvent {
  let body: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(rawBody.toString("utf8"));
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error("not an object");
    body = parsed as Record<string, unknown>;
  } catch {
    return { eventId: null, type: "unreadable", providerItemIds: [], action: "none" };
  }
  const webhookType = typeof body.webhook_type === "string" ? body.webhook_type : "?";
  const code = typeof body.webhook_code === "string" ? body.webhook_code : "?";
  const itemIds = typeof body.item_id === "string" && body.item_id ? [body.item_id] : [];
  return {
    eventId: null,
    type: `${webhookType}/${code}`,
    providerItemIds: itemIds,
    action: action(webhookType, code, body),
  };
}

function action(type: string, code: string, body: Record<string, unknown>): WebhookEvent["action"] {
  if (type === "TRANSACTIONS") return code === "SYNC_UPDATES_AVAILABLE" ? "sync" : "none"; // legacy codes: ignored
  if (type !== "ITEM") return "none";
  if (code === "LOGIN_REPAIRED") return "repaired";
  if (code === "USER_PERMISSION_REVOKED") return "reauth_required";
  if (code === "ERROR") {
    const err = body.error;
    const errorCode = typeof err === "object" && err !== null ? (err as Record<string, unknown>).error_code : null;
    return typeof errorCode === "string" && REAUTH_CODES.has(errorCode) ? "reauth_required" : "none";
  }
  // PENDING_EXPIRATION, PENDING_DISCONNECT, NEW_ACCOUNTS_AVAILABLE, …: information only.
  return "none";
}
