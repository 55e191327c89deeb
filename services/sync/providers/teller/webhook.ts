import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { ProviderError, type WebhookEvent } from "../provider.js";

/**
 * Teller webhooks: `Teller-Signature: t=<unix seconds>,v1=<hex>[,v1=<hex>…]`,
 * each v1 the HMAC-SHA256 of `"<t>.<raw body>"` under one signing secret (two
 * while a secret is being rotated). Authentic when any v1 matches any
 * configured secret and t is at most 3 minutes old.
 */

const MAX_AGE_SECONDS = 3 * 60;
const MAX_SKEW_SECONDS = 60;

const reject = (why: string) => new ProviderError("invalid_input", "INVALID_SIGNATURE", `Teller webhook: ${why}`);

function header(headers: Record<string, string | undefined>, name: string): string | undefined {
  const wanted = name.toLowerCase();
  for (const [k, v] of Object.entries(headers)) if (k.toLowerCase() === wanted) return v;
  return undefined;
}

export function verifyTellerWebhook(
  headers: Record<string, string | undefined>,
  rawBody: Buffer,
  secrets: string[],
  nowSeconds: number,
): WebhookEvent {
  if (secrets.length === 0) throw reject("no signing secret is configured (TELLER_WEBHOOK_SECRETS)");
  const value = header(headers, "teller-signature");
  if (!value) throw reject("no Teller-Signature header");
  let t: string | null = null;
  const signatures: Buffer[] = [];
  for (const part of value.split(",")) {
    const [k, v] = part.trim().split("=", 2);
    if (k === "t" && v !== undefined) t = v;
    else if (k === "v1" && v !== undefined && /^[0-9a-f]{64}$/i.test(v)) signatures.push(Buffer.from(v, "hex"));
  }
  if (t === null || !/^\d{1,12}$/.test(t)) throw reject("the signature has no timestamp");
  if (signatures.length === 0) throw reject("the signature has no v1 value");
  const age = nowSeconds - Number(t);
  if (age > MAX_AGE_SECONDS) throw reject("the signature is more than 3 minutes old");
  if (age < -MAX_SKEW_SECONDS) throw reject("the signature is dated in the future");
  const signed = Buffer.concat([Buffer.from(`${t}.`), rawBody]);
  const matches = secrets.some((secret) => {
    const expected = createHmac("sha256", secret).update(signed).digest();
    return signatures.some((sig) => timingSafeEqual(sig, expected));
  });
  if (!matches) throw reject("bad signature");
  const bodyHash = createHash("sha256").update(rawBody).digest("hex");
  return { ...describeEvent(rawBody), replayKey: `${t}:${bodyHash}`, signedAt: new Date(Number(t) * 1000) };
}

/** What an authentic Teller webhook asks for. */
export function describeEvent(rawBody: Buffer): WebhookEvent {
  let body: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(rawBody.toString("utf8"));
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error("not an object");
    body = parsed as Record<string, unknown>;
  } catch {
    return { eventId: null, type: "unreadable", providerItemIds: [], action: "none" };
  }
  const type = typeof body.type === "string" ? body.type : "?";
  const payload =
    typeof body.payload === "object" && body.payload !== null ? (body.payload as Record<string, unknown>) : {};
  const enrollment = typeof payload.enrollment_id === "string" && payload.enrollment_id ? [payload.enrollment_id] : [];
  const action: WebhookEvent["action"] =
    type === "enrollment.disconnected" ? "reauth_required" : type === "transactions.processed" ? "sync" : "none";
  return { eventId: typeof body.id === "string" ? body.id : null, type, providerItemIds: enrollment, action };
}
