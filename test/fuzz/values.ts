import fc from "fast-check";
import type { JsonSchema } from "../../gateways/rest/route.js";

/**
 * Values a careless or hostile client sends, by kind. Nothing here names a
 * server path or an SQL keyword a leak check looks for, so an error message
 * that echoes the input is not mistaken for a leak.
 */

const CONTROL = ["\u0000", "\u0001", "\u0007", "\u0008", "\u000b", "\u000c", "\u001b", "\u001f", "\u007f", "\u0085"];

export const controlText = fc
  .tuple(fc.string({ maxLength: 8 }), fc.constantFrom(...CONTROL), fc.string({ maxLength: 8 }))
  .map(([a, c, b]) => `${a}${c}${b}`);

/** Lengths past every limit: 201 (names), 1001, 10 KB, 100 KB. */
export const hugeText = fc
  .tuple(fc.constantFrom(201, 1001, 10_000, 100_000), fc.constantFrom("a", "é", "😀", "%", "0"))
  .map(([n, c]) => c.repeat(n));

export const oddText = fc.constantFrom(
  "",
  " ",
  "\t",
  "\n",
  "null",
  "undefined",
  "NaN",
  "[]",
  "{}",
  "'",
  '"',
  "\\",
  "%",
  "_",
  "%%",
  "' or '1'='1",
  "1; --",
  "$1",
  "?",
  "::uuid",
  "\ud800",
  "\udfff",
  "\ufeff",
  "\u202e",
  "😀",
  "ǅ",
  "ß",
  "İ",
  "<script>",
  "${x}",
  "../..",
  "a".repeat(64),
  "a".repeat(65),
);

export const badNumber = fc.constantFrom(
  "Infinity",
  "-Infinity",
  "NaN",
  "1e999",
  "-1e999",
  "1e308",
  "9007199254740993",
  "-9007199254740993",
  "99999999999999999999999999",
  "0x10",
  "1_000",
  "1.5",
  "-0",
  "-1",
  "0",
  "1e-400",
  "12.345",
  "0.001",
  "1,5",
  " 5",
  "5 ",
  "+5",
  "",
);

export const badDate = fc.constantFrom(
  "0000-01-01",
  "0001-01-01",
  "1899-12-31",
  "1900-01-01",
  "2999-12-31",
  "3000-01-01",
  "9999-12-31",
  "10000-01-01",
  "-2026-01-01",
  "2026-02-29",
  "2024-02-29",
  "2026-02-30",
  "2026-13-01",
  "2026-00-10",
  "2026-01-32",
  "2026-1-1",
  "26-01-01",
  "2026-01-01T00:00:00Z",
  "2026-01-01 ",
  "2026‐01‐01",
  "２０２６-01-01",
  "2026/01/01",
  "yesterday",
);

export const badId = fc.constantFrom(
  "0",
  "-1",
  "00000000-0000-0000-0000-000000000000",
  "ffffffff-ffff-ffff-ffff-ffffffffffff",
  "00000000-0000-0000-0000-00000000000g",
  "0000000000000000000000000000000000000",
  "AAAAAAAA",
  "aaaaaaa",
  "aaaaaaaaa",
  "IIIIIIII",
  "00000000",
  "%",
  ".",
  "..",
  "a/b",
  "a b",
  "a".repeat(300),
);

/** A date the API accepts, now and then, so that some filters get through. */
export const goodDate = fc
  .record({
    y: fc.integer({ min: 1900, max: 2999 }),
    m: fc.integer({ min: 1, max: 12 }),
    d: fc.integer({ min: 1, max: 28 }),
  })
  .map(({ y, m, d }) => `${y}-${String(m).padStart(2, "0")}-${String(d).padStart(2, "0")}`);

/** Any text at all: the kinds above and fast-check's own strings. */
export const nastyText = fc.oneof(
  { weight: 3, arbitrary: fc.string({ maxLength: 20 }) },
  { weight: 2, arbitrary: fc.string({ unit: "binary", maxLength: 20 }) },
  { weight: 3, arbitrary: controlText },
  { weight: 1, arbitrary: hugeText },
  { weight: 3, arbitrary: oddText },
  { weight: 2, arbitrary: badNumber },
  { weight: 2, arbitrary: badDate },
  { weight: 2, arbitrary: badId },
);

/** JSON nested `depth` levels deep, as text (objects and arrays alternating or not). */
export const deepJson = fc
  .tuple(fc.integer({ min: 20, max: 400 }), fc.constantFrom("[", "{", "mixed"))
  .map(([depth, kind]) => {
    let s = "1";
    for (let i = 0; i < depth; i++) s = kind === "[" || (kind === "mixed" && i % 2) ? `[${s}]` : `{"a":${s}}`;
    return s;
  });

/** A JSON value of any type, nasty scalars included. */
export const anyJson: fc.Arbitrary<unknown> = fc.letrec<{ v: unknown }>((tie) => ({
  v: fc.oneof(
    { depthSize: "small", withCrossShrink: true },
    nastyText,
    fc.double(),
    fc.integer(),
    fc.constantFrom(1e308, -1e308, 2 ** 53 + 1, -(2 ** 63), 0.1, -0),
    fc.boolean(),
    fc.constant(null),
    fc.array(tie("v"), { maxLength: 4 }),
    fc.dictionary(fc.string({ maxLength: 8 }), tie("v"), { maxKeys: 4 }),
  ),
})).v;

type Schema = JsonSchema & Record<string, unknown>;

const typesOf = (s: Schema): string[] => (Array.isArray(s.type) ? s.type : s.type ? [s.type] : []);

/**
 * A value the schema accepts, most of the time (lengths, enums, numbers in
 * range, date patterns), so that requests reach the core; `wrong` gives any
 * value instead, at any depth.
 */
export function fromSchema(schema: JsonSchema | boolean | undefined, depth = 0): fc.Arbitrary<unknown> {
  if (!schema || schema === true || depth > 4) return anyJson;
  const s = schema as Schema;
  const wrong = { weight: 1, arbitrary: anyJson };
  const right = (a: fc.Arbitrary<unknown>) => fc.oneof({ weight: 6, arbitrary: a }, wrong);
  if (Array.isArray(s.enum)) return right(fc.constantFrom(...(s.enum as unknown[])));
  if (s.const !== undefined) return right(fc.constant(s.const));
  const alts = s.anyOf ?? s.oneOf;
  if (alts?.length) return fc.oneof(...alts.map((a) => fromSchema(a, depth + 1)));
  const types = typesOf(s);
  const options: fc.Arbitrary<unknown>[] = types.map((t) => {
    switch (t) {
      case "string": {
        const max = typeof s.maxLength === "number" ? Math.min(s.maxLength, 40) : 40;
        const min = typeof s.minLength === "number" ? Math.min(s.minLength, max) : 0;
        if (typeof s.pattern === "string" && s.pattern.includes("\\d{4}-")) return goodDate;
        return fc.oneof(fc.string({ minLength: Math.max(min, 1), maxLength: Math.max(max, 1) }), goodDate, nastyText);
      }
      case "integer":
      case "number": {
        const min = typeof s.minimum === "number" ? s.minimum : -1000;
        const max = typeof s.maximum === "number" ? s.maximum : 1000;
        const int = fc.integer({ min: Math.ceil(Math.max(min, -1e9)), max: Math.floor(Math.min(max, 1e9)) });
        return t === "integer" ? int : fc.oneof(int, fc.double({ min, max, noNaN: true }));
      }
      case "boolean":
        return fc.boolean();
      case "null":
        return fc.constant(null);
      case "array": {
        const item = fromSchema(s.items as JsonSchema | undefined, depth + 1);
        return fc.array(item, { minLength: Math.min((s.minItems as number) ?? 0, 3), maxLength: 3 });
      }
      case "object":
        return objectFrom(s, depth);
      default:
        return anyJson;
    }
  });
  if (options.length === 0) return s.properties ? objectFrom(s, depth) : anyJson;
  return right(fc.oneof(...options));
}

function objectFrom(s: Schema, depth: number): fc.Arbitrary<unknown> {
  const props = (s.properties ?? {}) as Record<string, JsonSchema>;
  const required = new Set(s.required ?? []);
  const names = Object.keys(props);
  if (names.length === 0)
    return fc.dictionary(fc.string({ maxLength: 10 }), fromSchema(undefined, depth + 1), { maxKeys: 3 });
  return fc
    .tuple(
      ...names.map((n) =>
        fc.option(fromSchema(props[n], depth + 1), { freq: required.has(n) ? 20 : 2, nil: undefined }),
      ),
    )
    .map((values) => Object.fromEntries(names.flatMap((n, i) => (values[i] === undefined ? [] : [[n, values[i]]]))));
}
