import fc from "fast-check";
import { encodeCursor } from "../../services/pagination/cursor.js";
import type { Pools } from "./harness.js";
import { badDate, badId, nastyText } from "./values.js";

interface Payload {
  v: number;
  k: number;
  d: string;
  i: string;
  f: string;
  w: string;
  t: number;
  s: string;
}

const decode = (c: string) => JSON.parse(Buffer.from(c, "base64url").toString("utf8")) as Payload;
const encode = (p: unknown) => Buffer.from(JSON.stringify(p), "utf8").toString("base64url");

/**
 * Cursors for a list route: its own, another list's (foreign), edited after
 * signing, signed anew with the real key but with fields no Coffer writes
 * (authentic but inconsistent: the case the signature cannot catch), and
 * plain garbage.
 */
export function cursorFor(url: string, pools: Pools): fc.Arbitrary<string> {
  const own = pools.cursorsByUrl.get(url) ?? [];
  const all = [...pools.cursorsByUrl.values()].flat();
  const foreign = [...pools.cursorsByUrl.entries()].filter(([u]) => u !== url).flatMap(([, c]) => c);
  const garbage = fc.oneof(
    nastyText,
    fc.string({ maxLength: 200 }).map(encode),
    fc.constantFrom("e30", "W10", "bnVsbA", "eyJ2IjoyfQ", "A".repeat(9000), "eyJ2IjoxfQ"),
  );
  if (all.length === 0) return garbage;
  const base = fc.constantFrom(...(own.length ? own : all));
  const field = fc.oneof(nastyText, badDate, badId, fc.constantFrom("0:0:", "", "x", "0", "-1:-1:", "1:2:3:4"));
  const time = fc.oneof(
    fc.constantFrom(0, -1, 2 ** 53, 4_102_444_800, Math.floor(Date.now() / 1000)),
    fc.integer({ min: 0, max: 2 ** 40 }),
  );
  const key = pools.cursorKey;
  const resigned = fc
    .tuple(base, fc.record({ d: field, i: field, w: field, t: time }, { requiredKeys: [] }))
    .map(([c, change]) => {
      const p = decode(c);
      return encodeCursor({ d: p.d, i: p.i, f: p.f, w: p.w, t: p.t, ...change }, key);
    });
  const edited = fc
    .tuple(base, fc.record({ d: field, i: field, w: field, k: fc.integer() }, { requiredKeys: [] }))
    .map(([c, change]) => encode({ ...decode(c), ...change }));
  const flipped = fc.tuple(base, fc.nat(), fc.constantFrom("A", "_", "-", "z")).map(([c, at, ch]) => {
    const i = at % c.length;
    return c.slice(0, i) + ch + c.slice(i + 1);
  });
  return fc.oneof(
    { weight: 2, arbitrary: base },
    { weight: 2, arbitrary: foreign.length ? fc.constantFrom(...foreign) : base },
    { weight: 3, arbitrary: resigned },
    { weight: 2, arbitrary: edited },
    { weight: 1, arbitrary: flipped },
    { weight: 2, arbitrary: garbage },
  );
}
