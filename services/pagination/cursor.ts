import { createHash } from "node:crypto";
import { CofferError } from "../errors/coffer-error.js";

/**
 * The one cursor codec for every paginated list (docs/contract.md, "Lists and
 * pagination"). A cursor is base64url of JSON
 *   {v, d, i, f, w, t, c}
 * v  format version (a cursor of another version is refused, e.g. after an upgrade)
 * d  sort position of the last row returned (transactions: its date; a list
 *    keyed on several columns encodes them here)
 * i  id of the last row returned (the keyset tie-breaker, and the anchor that must still exist)
 * f  hash of the normalised filters and sort the cursor was issued for
 * w  snapshot watermark of the first page ("" when a list has none)
 * t  when the first page was read (unix seconds); cursors live for a bounded time
 * c  checksum of the fields above, so an edited or truncated cursor is refused
 *    instead of being half-understood. It is not a secret: nothing in a cursor
 *    grants access to anything; it only says where to continue.
 */
export const CURSOR_VERSION = 1;

/** Longer than any cursor Coffer issues; refuse anything bigger before decoding it. */
export const MAX_CURSOR_LENGTH = 8192;

export interface CursorFields {
  d: string;
  i: string;
  f: string;
  w: string;
  t: number;
}

const RESTART = "restart from the first page by leaving out cursor";

export const invalidCursor = (why: string) => new CofferError("INVALID_CURSOR", `${why}; ${RESTART}`);

function checksum(v: number, c: CursorFields): string {
  return createHash("sha256")
    .update(JSON.stringify([v, c.d, c.i, c.f, c.w, c.t]))
    .digest("base64url")
    .slice(0, 16);
}

export function encodeCursor(fields: CursorFields): string {
  const payload = {
    v: CURSOR_VERSION,
    d: fields.d,
    i: fields.i,
    f: fields.f,
    w: fields.w,
    t: fields.t,
    c: checksum(CURSOR_VERSION, fields),
  };
  return Buffer.from(JSON.stringify(payload), "utf8").toString("base64url");
}

export interface DecodeExpectations {
  /** The hash of the filters and sort of the request presenting the cursor. */
  filterHash: string;
  /** How old (seconds since the first page) a cursor may be. */
  maxAgeSeconds: number;
  /** Unix seconds; defaults to the clock. */
  now?: number;
}

const isStr = (x: unknown, max: number): x is string => typeof x === "string" && x.length <= max;

/**
 * Decodes and checks a cursor: well-formed, this version, untouched, issued for
 * the same filters and sort, and not expired. Every failure is INVALID_CURSOR.
 * What the position means (a date, an id that must still exist) is for the
 * caller to check.
 */
export function decodeCursor(raw: string, expect: DecodeExpectations): CursorFields {
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
  const { d, i, f, w, t, c } = payload;
  if (
    !isStr(d, 256) ||
    !isStr(i, 64) ||
    !isStr(f, 128) ||
    !isStr(w, MAX_CURSOR_LENGTH) ||
    !Number.isSafeInteger(t) ||
    !isStr(c, 64)
  ) {
    throw invalidCursor("cursor is malformed");
  }
  const fields: CursorFields = { d, i, f, w, t: t as number };
  if (checksum(CURSOR_VERSION, fields) !== c) throw invalidCursor("cursor has been altered");
  if (f !== expect.filterHash) {
    throw invalidCursor("cursor was issued for different filters or sort; keep them identical across pages");
  }
  const now = expect.now ?? Math.floor(Date.now() / 1000);
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
