import { describe, expect, it } from "vitest";
import { CofferError } from "../../../services/errors/coffer-error.js";
import {
  CURSOR_VERSION,
  decodeCursor,
  encodeCursor,
  filterHash,
  type CursorFields,
} from "../../../services/pagination/cursor.js";

const NOW = 1_800_000_000;
const fields: CursorFields = {
  d: "2026-01-15",
  i: "0b7c9a54-6a0e-4d8c-9a55-2c1f0e7c1a11",
  f: filterHash({ a: 1 }),
  w: "100:105:101,103",
  t: NOW - 60,
};
const expectations = { filterHash: fields.f, maxAgeSeconds: 3600, now: NOW };

const b64 = (o: unknown) => Buffer.from(typeof o === "string" ? o : JSON.stringify(o), "utf8").toString("base64url");
const payloadOf = (cursor: string) =>
  JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as Record<string, unknown>;

function failure(fn: () => unknown): CofferError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(CofferError);
    return e as CofferError;
  }
  throw new Error("expected INVALID_CURSOR");
}

describe("cursor codec", () => {
  it("round-trips its fields, as opaque base64url", () => {
    const c = encodeCursor(fields);
    expect(c).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(decodeCursor(c, expectations)).toEqual(fields);
    expect(payloadOf(c)).toMatchObject({
      v: CURSOR_VERSION,
      d: fields.d,
      i: fields.i,
      f: fields.f,
      w: fields.w,
      t: fields.t,
    });
  });

  const valid = payloadOf(encodeCursor(fields));
  const cases: [string, string, RegExp][] = [
    ["empty string", "", /malformed/],
    ["not base64url", "abc$def", /malformed/],
    ["base64 of garbage", b64("garbage{"), /malformed/],
    ["base64 of a JSON array", b64([1, 2]), /malformed/],
    ["base64 of null", b64("null"), /malformed/],
    ["wrong version", b64({ ...valid, v: 2 }), /another version/],
    ["no version", b64({ ...valid, v: undefined }), /another version/],
    ["a field of the wrong type", b64({ ...valid, t: "soon" }), /malformed/],
    ["a missing field", b64({ ...valid, i: undefined }), /malformed/],
    ["tampered position", b64({ ...valid, d: "2020-01-01" }), /altered/],
    ["tampered id", b64({ ...valid, i: "00000000-0000-0000-0000-000000000000" }), /altered/],
    ["tampered watermark", b64({ ...valid, w: "1:2:" }), /altered/],
    ["tampered checksum", b64({ ...valid, c: "AAAAAAAAAAAAAAAA" }), /altered/],
    ["far too long", "A".repeat(9000), /malformed/],
  ];
  it.each(cases)("refuses %s with INVALID_CURSOR", (_name, raw, message) => {
    const e = failure(() => decodeCursor(raw, expectations));
    expect(e.code).toBe("INVALID_CURSOR");
    expect(e.message).toMatch(message);
    expect(e.message).toMatch(/restart from the first page/);
  });

  it("refuses a cursor issued for other filters", () => {
    const e = failure(() => decodeCursor(encodeCursor(fields), { ...expectations, filterHash: filterHash({ a: 2 }) }));
    expect(e.code).toBe("INVALID_CURSOR");
    expect(e.message).toMatch(/different filters/);
  });

  it("refuses an expired cursor and one from the future", () => {
    expect(failure(() => decodeCursor(encodeCursor({ ...fields, t: NOW - 3601 }), expectations)).message).toMatch(
      /expired/,
    );
    expect(decodeCursor(encodeCursor({ ...fields, t: NOW - 3600 }), expectations).t).toBe(NOW - 3600);
    expect(failure(() => decodeCursor(encodeCursor({ ...fields, t: NOW + 3600 }), expectations)).code).toBe(
      "INVALID_CURSOR",
    );
  });
});

describe("filterHash", () => {
  it("ignores key order and undefined values, and tells different values apart", () => {
    expect(filterHash({ a: 1, b: [1, 2], c: { x: 1, y: 2 } })).toBe(
      filterHash({ c: { y: 2, x: 1 }, b: [1, 2], a: 1, d: undefined }),
    );
    expect(filterHash({ a: 1 })).not.toBe(filterHash({ a: "1" }));
    expect(filterHash({ b: [1, 2] })).not.toBe(filterHash({ b: [2, 1] }));
    expect(filterHash({})).toMatch(/^[A-Za-z0-9_-]{22}$/);
  });
});
