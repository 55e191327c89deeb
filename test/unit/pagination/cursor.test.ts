import { describe, expect, it } from "vitest";
import { CofferError } from "../../../services/errors/coffer-error.js";
import {
  CURSOR_VERSION,
  decodeCursor,
  encodeCursor,
  filterHash,
  type CursorFields,
  type CursorKey,
} from "../../../services/pagination/cursor.js";

const NOW = 1_800_000_000;
const fields: CursorFields = {
  d: "2026-01-15",
  i: "0b7c9a54-6a0e-4d8c-9a55-2c1f0e7c1a11",
  f: filterHash({ a: 1 }),
  w: "100:105:101,103",
  t: NOW - 60,
};
const key: CursorKey = { generation: 7, secret: Buffer.alloc(32, 1) };
const otherKey: CursorKey = { generation: 7, secret: Buffer.alloc(32, 2) };
/** Generation 7 verifies; no other does. */
const secretFor = (generation: number) => Promise.resolve(generation === key.generation ? key.secret : undefined);
const expectations = { filterHash: fields.f, maxAgeSeconds: 3600, now: NOW, secretFor };

const b64 = (o: unknown) => Buffer.from(typeof o === "string" ? o : JSON.stringify(o), "utf8").toString("base64url");
const payloadOf = (cursor: string) =>
  JSON.parse(Buffer.from(cursor, "base64url").toString("utf8")) as Record<string, unknown>;

async function failure(fn: () => Promise<unknown>): Promise<CofferError> {
  try {
    await fn();
  } catch (e) {
    expect(e).toBeInstanceOf(CofferError);
    return e as CofferError;
  }
  throw new Error("expected INVALID_CURSOR");
}

describe("cursor codec", () => {
  it("round-trips its fields, as opaque base64url", async () => {
    const c = encodeCursor(fields, key);
    expect(c).toMatch(/^[A-Za-z0-9_-]+$/);
    expect(await decodeCursor(c, expectations)).toEqual(fields);
    expect(payloadOf(c)).toMatchObject({
      v: CURSOR_VERSION,
      k: 7,
      d: fields.d,
      i: fields.i,
      f: fields.f,
      w: fields.w,
      t: fields.t,
    });
  });

  const valid = payloadOf(encodeCursor(fields, key));
  // What a client could build itself: the previous format's unkeyed checksum over a watermark of its choosing.
  const unkeyed = { v: 1, d: fields.d, i: fields.i, f: fields.f, w: "0:0:", t: fields.t, c: "AAAAAAAAAAAAAAAA" };
  const cases: [string, string, RegExp][] = [
    ["empty string", "", /malformed/],
    ["not base64url", "abc$def", /malformed/],
    ["base64 of garbage", b64("garbage{"), /malformed/],
    ["base64 of a JSON array", b64([1, 2]), /malformed/],
    ["base64 of null", b64("null"), /malformed/],
    ["wrong version", b64({ ...valid, v: 3 }), /another version/],
    ["the previous, unkeyed format", b64(unkeyed), /another version/],
    ["an unknown key generation", b64({ ...valid, k: 8 }), /no longer accepts/],
    ["a key generation of the wrong type", b64({ ...valid, k: "7" }), /malformed/],
    ["no signature", b64({ ...valid, s: undefined }), /malformed/],
    ["signed with another secret", encodeCursor(fields, otherKey), /altered/],
    ["no version", b64({ ...valid, v: undefined }), /another version/],
    ["a field of the wrong type", b64({ ...valid, t: "soon" }), /malformed/],
    ["a missing field", b64({ ...valid, i: undefined }), /malformed/],
    ["tampered position", b64({ ...valid, d: "2020-01-01" }), /altered/],
    ["tampered id", b64({ ...valid, i: "00000000-0000-0000-0000-000000000000" }), /altered/],
    ["tampered watermark", b64({ ...valid, w: "1:2:" }), /altered/],
    ["tampered signature", b64({ ...valid, s: "A".repeat(43) }), /altered/],
    ["truncated signature", b64({ ...valid, s: String(valid.s).slice(0, 20) }), /altered/],
    ["far too long", "A".repeat(9000), /malformed/],
  ];
  it.each(cases)("refuses %s with INVALID_CURSOR", async (_name, raw, message) => {
    const e = await failure(() => decodeCursor(raw, expectations));
    expect(e.code).toBe("INVALID_CURSOR");
    expect(e.message).toMatch(message);
    expect(e.message).toMatch(/restart from the first page/);
  });

  it("refuses a cursor issued for other filters", async () => {
    const other = { ...expectations, filterHash: filterHash({ a: 2 }) };
    const e = await failure(() => decodeCursor(encodeCursor(fields, key), other));
    expect(e.code).toBe("INVALID_CURSOR");
    expect(e.message).toMatch(/different filters/);
  });

  it("refuses an expired cursor and one from the future", async () => {
    const at = (t: number) => encodeCursor({ ...fields, t }, key);
    expect((await failure(() => decodeCursor(at(NOW - 3601), expectations))).message).toMatch(/expired/);
    expect((await decodeCursor(at(NOW - 3600), expectations)).t).toBe(NOW - 3600);
    expect((await failure(() => decodeCursor(at(NOW + 3600), expectations))).code).toBe("INVALID_CURSOR");
  });

  it("checks the signature before the filters, so a forged cursor learns nothing about them", async () => {
    const forged = b64({ ...valid, f: filterHash({ a: 2 }) });
    expect((await failure(() => decodeCursor(forged, expectations))).message).toMatch(/altered/);
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
