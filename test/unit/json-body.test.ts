import { describe, expect, it } from "vitest";
import { BodyError, MAX_JSON_DEPTH, nestsDeeperThan, readJsonBody } from "../../gateways/shared/json-body.js";

const parse = (t: string): unknown => JSON.parse(t);
const read = (bytes: Buffer | string) => readJsonBody(Buffer.isBuffer(bytes) ? bytes : Buffer.from(bytes), parse);

describe("nestsDeeperThan", () => {
  it.each([
    ["{}", 0, true],
    ["{}", 1, false],
    ["[[[]]]", 2, true],
    ["[[[]]]", 3, false],
    ['{"a":[{"b":{}}]}', 3, true],
    ['{"a":[{"b":{}}]}', 4, false],
    ['[1,[2],[3],{"x":[4]}]', 3, false],
    ['["[[[[", "{{{{"]', 1, false],
    ['["\\"[[[[", "\\\\", ["x"]]', 2, false],
    ['["\\"[[[[", "\\\\", ["x"]]', 1, true],
  ])("%s deeper than %i: %s", (text, max, expected) => {
    expect(nestsDeeperThan(text, max)).toBe(expected);
  });
});

describe("readJsonBody", () => {
  it("reads UTF-8 of every width and a leading BOM", () => {
    expect(read('{"n":"Zoë 李 🙂"}')).toEqual({ n: "Zoë 李 🙂" });
    expect(read(Buffer.concat([Buffer.from([0xef, 0xbb, 0xbf]), Buffer.from("[1]")]))).toEqual([1]);
  });

  it.each([[[0x80]], [[0xc0, 0xaf]], [[0xe2, 0x82]], [[0xed, 0xa0, 0x80]], [[0xf4, 0x90, 0x80, 0x80]], [[0xff]]])(
    "refuses invalid UTF-8 %j",
    (bad) => {
      const body = Buffer.concat([Buffer.from('{"n":"'), Buffer.from(bad), Buffer.from('"}')]);
      expect(() => read(body)).toThrow(new BodyError("The request body is not valid UTF-8"));
    },
  );

  it(`allows ${MAX_JSON_DEPTH} levels and refuses ${MAX_JSON_DEPTH + 1}`, () => {
    const deep = (n: number) => "[".repeat(n) + "]".repeat(n);
    expect(() => read(deep(MAX_JSON_DEPTH))).not.toThrow();
    expect(() => read(deep(MAX_JSON_DEPTH + 1))).toThrow(/deeper than 32 levels/);
    // Refused before parsing: 100,000 levels cost a scan, not a parse.
    expect(() => read(deep(100_000))).toThrow(BodyError);
  });

  it.each([
    ["1e400", "(the body)"],
    ['{"a":[1,-1e400]}', "a[1]"],
    ['{"a":{"b":1e999}}', "a.b"],
  ])("refuses %s, naming where the number is", (text, where) => {
    expect(() => read(text)).toThrow(`The request body holds a number too large to represent at ${where}`);
  });

  it("leaves bad JSON to the parser it is given", () => {
    expect(() => read("{")).toThrow(SyntaxError);
  });
});
