import { createHash, createHmac, timingSafeEqual } from "node:crypto";
import { CofferError } from "../errors/coffer-error.js";

/**
 * The one cursor codec for every paginated list (docs/contract.md, "Lists and
 * pagination"). A cursor is base64url of JSON
 *   {v, k, d, i, f, w, t, s}
 * v  format version (a cursor of another version is refused, e.g. after an upgrade)
 * k  generation of the key that signed it (services/pagination/cursor-keys.ts)
 * d  sort position of the last row returned (transactions: its date; a list
 *    keyed on several columns encodes them here)
 * i  id of the last row returned (the keyset tie-breaker, and the anchor that must still exist)
 * f  hash of the normalised filters and sort the cursor was issued for
 * w  snapshot watermark of the first page ("" when a list has none)
 * t  when the first page was read (unix seconds); cursors live for a bounded time
 * s  HMAC-SHA-256 of the fields above under the server's key, so a cursor a
 *    client edited or built itself is refused before any of it is used. The
 *    fields are not secret (nothing in a cursor grants access); the signature
 *    only proves that this Coffer wrote them.
 */
export const CURSOR_VERSION = 2;

/** Longer than any cursor Coffer issues; refuse anything bigger before decoding it. */
export const MAX_CURSOR_LENGTH = 8192;

export interface CursorFields {
  d: string;
  i: string;
  f: string;
  w: string;
  t: number;
}

/** A signing key: its generation (carried in the cursor) and its secret. */
export interface CursorKey {
  generation: number;
  secret: Uint8Array;
}

const RESTART = "restart from the first page by leaving out cursor";

export const invalidCursor = (why: string) => new CofferError("INVALID_CURSOR", `${why}; ${RESTART}`);

function signature(secret: Uint8Array, v: number, k: number, c: CursorFields): Buffer {
  return createHmac("sha256", secret)
    .update(JSON.stringify([v, k, c.d, c.i, c.f, c.w, c.t]))
    .digest();
}

export function encodeCursor(fields: CursorFields, key: CursorKey): string {
  const payload = {
    v: CURSOR_VERSION,
    k: key.generation,
    d: fields.d,
    i: fields.i,
    f: fields.f,
    w: fields.w,
    t: fields.t,
    s: signature(key.secret, CURSOR_VERSION, key.generation, fields).toString("base64url"),
  };
  return Buffer.from(JSON.stringify(payload), "utf8").toString("base64url");
}

export interface DecodeExpectations {
  /** The hash of the filters and sort of the request presenting the cursor. */
  filterHash: string;
  /** How old (seconds since the first page) a cursor may be. */
  maxAgeSeconds: number;
  /** The secret of a key generation that still verifies cursors, or undefined. */
  secretFor(generation: number): Promise<Uint8Array | undefined>;
  /** Unix seconds by the core's clock. */
  now: number;
}

const isStr = (x: unknown, max: number): x is string => typeof x === "string" && x.length <= max;

/**
 * Decodes and checks a cursor: well-formed, this version, signed by a key
 * that is still accepted, issued for the same filters and sort, and not
 * expired. Every failure is INVALID_CURSOR. What the position means (a date,
 * an id that must still exist) is for the caller to check, before any of it
 * reaches SQL: a signature proves who wrote the fields, not that they are sane.
 */
export async function decodeCursor(raw: string, expect: DecodeExpectations): Promise<CursorFields> {
  if (raw.length > MAX_CURSOR_LENGTH || !/^[A-Za-z0-9_-]+$/.test(raw)) throw invalidCursor("cursor is malformed");
  let payload: Record<string, unknown>;
  try {
    const parsed: unknown = JSON.parse(Buffer.from(raw, "base64url").toString("utf8"));
    if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) throw new Error("not an object");
    payload = parsed as Record<string, unknown>;
  } catch {
    throw invalidCursor("cursor is malformed");
  }
  if (payload.v !== CURSOR_VERSION) throw invalidCursor("cursor comes from another version of Coffer");
  const { k, d, i, f, w, t, s } = payload;
  if (
    !Number.isSafeInteger(k) ||
    (k as number) < 1 ||
    !isStr(d, 256) ||
    !isStr(i, 64) ||
    !isStr(f, 128) ||
    !isStr(w, MAX_CURSOR_LENGTH) ||
    !Number.isSafeInteger(t) ||
    !isStr(s, 64)
  ) {
    throw invalidCursor("cursor is malformed");
  }
  const fields: CursorFields = { d, i, f, w, t: t as number };
  const secret = await expect.secretFor(k as number);
  // A retired key's cursors are past their lifetime anyway; an unknown one was never ours.
  if (!secret) throw invalidCursor("cursor was signed with a key this Coffer no longer accepts");
  const given = Buffer.from(s, "base64url");
  const wanted = signature(secret, CURSOR_VERSION, k as number, fields);
  if (given.length !== wanted.length || !timingSafeEqual(given, wanted)) throw invalidCursor("cursor has been altered");
  if (f !== expect.filterHash) {
    throw invalidCursor("cursor was issued for different filters or sort; keep them identical across pages");
  }
  const now = expect.now;
  // A little slack for clocks of different processes; a cursor from the far future is not ours.
  if (fields.t > now + 300) throw invalidCursor("cursor is malformed");
  if (now - fields.t > expect.maxAgeSeconds) throw invalidCursor("cursor has expired");
  return fields;
}

/**
 * A short, stable hash of a JSON-able value with object keys sorted, so the
 * same filters always hash the same whatever order they were given in.
 */
export function filterHash(value: unknown): string {
  return createHash("sha256").update(canonicalJson(value)).digest("base64url").slice(0, 22);
}

function canonicalJson(value: unknown): string {
  if (Array.isArray(value)) return `[${value.map(canonicalJson).join(",")}]`;
  if (value !== null && typeof value === "object") {
    const entries = Object.entries(value as Record<string, unknown>)
      .filter(([, v]) => v !== undefined)
      .sort(([a], [b]) => (a < b ? -1 : a > b ? 1 : 0));
    return `{${entries.map(([k, v]) => `${JSON.stringify(k)}:${canonicalJson(v)}`).join(",")}}`;
  }
  return JSON.stringify(value);
}
