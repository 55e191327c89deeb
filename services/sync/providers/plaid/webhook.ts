import { createHash, timingSafeEqual } from "node:crypto";
import { decodeProtectedHeader, errors, importJWK, jwtVerify, type CryptoKey, type JWTPayload } from "jose";
import { ProviderError, type WebhookEvent } from "../provider.js";
import { REAUTH_CODES } from "./errors.js";

/**
 * Plaid webhook verification: the `Plaid-Verification` header is a compact
 * JWT signed with ES256 by a key Plaid serves at /webhook_verification_key/get;
 * its claims carry `iat` and the SHA-256 of the raw body. jose checks the
 * signature, the algorithm and the age; Coffer keeps the key cache and the body
 * hash. Keys are cached by kid; an unknown kid is fetched (and the cached,
 * unexpired keys refreshed, so a key Plaid has since expired stops being trusted).
 */

/** Clock skew tolerated around `iat`, either way. */
const SKEW_SECONDS = 60;
/** The oldest `iat` accepted is 5 minutes; jose adds the skew to the age it allows, so it is taken off here. */
const MAX_AGE_SECONDS = 5 * 60 - SKEW_SECONDS;

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

function header(headers: Record<string, string | undefined>, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === wanted) return v;
  return undefined;
}

/** jose's refusal in Plaid's terms; anything else (a failed key fetch) passes through. */
function explain(err: unknown, token: string): unknown {
  if (err instanceof errors.JOSEAlgNotAllowed) {
    return reject(`algorithm ${JSON.stringify(decodeProtectedHeader(token).alg)} is not ES256`);
  }
  if (err instanceof errors.JWSSignatureVerificationFailed) return reject("bad signature");
  if (err instanceof errors.JWTExpired) return reject("the JWT is more than 5 minutes old");
  if (err instanceof errors.JWTClaimValidationFailed) {
    return reject(err.reason === "missing" ? "the JWT has no iat" : "the JWT is issued in the future");
  }
  if (err instanceof errors.JOSEError) return reject("Plaid-Verification is not a well-formed JWT");
  return err;
}

export class PlaidWebhookVerifier {
  private readonly keys = new Map<string, { jwk: PlaidJwk; key: CryptoKey }>();

  constructor(
    private readonly fetchKey: KeyFetcher,
    private readonly now: () => Date,
  ) {}

  async verify(headers: Record<string, string | undefined>, rawBody: Buffer): Promise<WebhookEvent> {
    const token = header(headers, "plaid-verification")?.trim();
    if (!token) throw reject("no Plaid-Verification header");
    let claims: JWTPayload;
    try {
      // jose refuses any algorithm but ES256 ("none" and HMAC included) before a key is fetched.
      ({ payload: claims } = await jwtVerify(
        token,
        async ({ kid }) => {
          if (typeof kid !== "string" || kid === "") throw reject("the JWT names no key id");
          return this.key(kid);
        },
        {
          algorithms: ["ES256"],
          maxTokenAge: MAX_AGE_SECONDS,
          clockTolerance: SKEW_SECONDS,
          currentDate: this.now(),
        },
      ));
    } catch (err) {
      throw explain(err, token);
    }

    const expected = claims.request_body_sha256;
    const actual = createHash("sha256").update(rawBody).digest("hex");
    if (typeof expected !== "string" || !/^[0-9a-f]{64}$/i.test(expected)) throw reject("no body hash in the JWT");
    if (!timingSafeEqual(Buffer.from(expected.toLowerCase(), "hex"), Buffer.from(actual, "hex"))) {
      throw reject("the body does not match its signed hash");
    }
    // jwtVerify required iat (maxTokenAge), so it is a number here.
    const iat = claims.iat as number;
    return { ...describeEvent(rawBody), replayKey: `${actual}:${iat}`, signedAt: new Date(iat * 1000) };
  }

  private async key(kid: string): Promise<CryptoKey> {
    const cached = this.keys.get(kid);
    if (cached && !this.isExpired(cached.jwk)) return cached.key;
    if (!cached) {
      await this.refreshCached();
      const jwk = await this.fetchKey(kid);
      if (!jwk) throw reject("unknown key id");
      await this.remember(jwk);
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
      if (fresh) await this.remember(fresh);
      else this.keys.delete(jwk.kid);
    }
  }

  private async remember(jwk: PlaidJwk): Promise<void> {
    if (jwk.kty !== "EC" || jwk.crv !== "P-256") throw reject(`key ${jwk.kid} is not a P-256 key`);
    let key: CryptoKey;
    try {
      key = await importJWK({ kty: "EC" as const, crv: "P-256", x: jwk.x, y: jwk.y }, "ES256");
    } catch {
      throw reject(`key ${jwk.kid} is not a valid public key`);
    }
    this.keys.set(jwk.kid, { jwk, key });
  }

  private isExpired(jwk: PlaidJwk): boolean {
    return jwk.expired_at !== null && jwk.expired_at * 1000 <= this.now().getTime();
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
