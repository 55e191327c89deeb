import { describe, expect, it } from "vitest";
import { isCalendarDate } from "../../common/validation.js";
import { CofferError } from "../../services/errors/coffer-error.js";
import {
  MAX_JSON_DEPTH,
  parseDate,
  parseInteger,
  parseJsonValue,
  parseText,
  searchTerm,
} from "../../services/shared/validate.js";

function failure(fn: () => unknown): CofferError {
  try {
    fn();
  } catch (e) {
    expect(e).toBeInstanceOf(CofferError);
    return e as CofferError;
  }
  throw new Error("expected a CofferError");
}

describe("dates", () => {
  it.each([
    ["2026-05-01", true],
    ["1900-01-01", true],
    ["2999-12-31", true],
    ["2024-02-29", true],
    ["0000-01-01", false],
    ["1899-12-31", false],
    ["3000-01-01", false],
    ["9999-12-31", false],
    ["2026-02-29", false],
    ["2026-13-01", false],
    ["2026-5-1", false],
    ["+02026-05-01", false],
  ])("isCalendarDate(%s) is %s", (s, ok) => {
    expect(isCalendarDate(s)).toBe(ok);
  });

  it("parseDate names the field, with INVALID_PARAMETER for filters and VALIDATION_ERROR for bodies", () => {
    const filter = failure(() => parseDate("0000-01-01", "start_date"));
    expect(filter.code).toBe("INVALID_PARAMETER");
    expect(filter.message).toMatch(/^start_date .*1900 to 2999/);
    expect(failure(() => parseDate("3000-01-01", "date", "VALIDATION_ERROR")).code).toBe("VALIDATION_ERROR");
    expect(parseDate(" 2026-05-01 ", "start_date")).toBe("2026-05-01");
  });
});

describe("parseInteger", () => {
  it.each([Infinity, -Infinity, NaN, 1.5, 0, 501, 2 ** 53])("refuses %s", (n) => {
    const e = failure(() => parseInteger(n, "limit", { min: 1, max: 500 }));
    expect(e.code).toBe("INVALID_PARAMETER");
    expect(e.message).toBe("limit must be between 1 and 500");
  });

  it("returns a whole number in range", () => {
    expect(parseInteger(1, "limit", { min: 1, max: 500 })).toBe(1);
    expect(parseInteger(500, "limit", { min: 1, max: 500 })).toBe(500);
  });
});

describe("parseText: stored text", () => {
  const controls = ["\u0000", "\u0001", "\u0007", "\u0008", "\u000b", "\u000c", "\u000e", "\u001b", "\u001f"];

  it.each(controls.map((c) => [JSON.stringify(c), c]))("refuses %s anywhere, naming the field", (_name, c) => {
    for (const multiline of [false, true]) {
      const e = failure(() => parseText(`a${c}b`, "display_name", { multiline }));
      expect(e.code).toBe("VALIDATION_ERROR");
      expect(e.message).toMatch(/^display_name .*control characters/);
    }
  });

  it("keeps tab everywhere; line breaks only in multiline fields, with CRLF stored as LF", () => {
    expect(parseText("a\tb", "name")).toBe("a\tb");
    expect(failure(() => parseText("a\nb", "name")).message).toMatch(
      /^name must not contain control characters .*U\+000A/,
    );
    expect(failure(() => parseText("a\rb", "name")).code).toBe("VALIDATION_ERROR");
    expect(parseText("one\r\ntwo\nthree\rfour", "body", { multiline: true })).toBe("one\ntwo\nthree\rfour");
  });

  it("trims, requires by default, and counts characters as code points", () => {
    expect(parseText("  Ann  ", "name")).toBe("Ann");
    expect(failure(() => parseText("   ", "name")).message).toBe("name is required");
    expect(failure(() => parseText(undefined, "name")).message).toBe("name is required");
    expect(parseText("", "notes", { min: 0 })).toBe("");
    expect(parseText("😀".repeat(3), "name", { max: 3 })).toBe("😀😀😀");
    expect(failure(() => parseText("abcd", "name", { max: 3 })).message).toBe(
      "name must be at most 3 characters (got 4)",
    );
  });
});

describe("searchTerm", () => {
  it("turns runs of spaces and control characters into one space", () => {
    expect(searchTerm("a\u0000b")).toBe("a b");
    expect(searchTerm(" \u0000 coffee \u001f\t shop\n")).toBe("coffee shop");
    expect(searchTerm("\u0000\u0001")).toBe("");
  });
});

describe("parseJsonValue: stored JSON (metadata)", () => {
  const nest = (levels: number): unknown => (levels === 0 ? "leaf" : { a: nest(levels - 1) });

  it("checks strings and keys at every depth, naming the path", () => {
    const value = failure(() => parseJsonValue({ trip: { days: ["ok", "b\u0000d"] } }, "metadata"));
    expect(value.code).toBe("VALIDATION_ERROR");
    expect(value.message).toMatch(/^metadata\.trip\.days\[1\] /);
    const key = failure(() => parseJsonValue({ trip: { "k\u0000": 1 } }, "metadata"));
    expect(key.message).toMatch(/^a key in metadata\.trip /);
    expect(failure(() => parseJsonValue({ "a b": { "c\nd": 1 } }, "metadata")).message).toMatch(
      /^a key in metadata\["a b"\] /,
    );
  });

  it("stores CRLF as LF, keeps other strings as given, and refuses non-finite numbers", () => {
    expect(parseJsonValue({ note: " two\r\nlines\t", n: 1.5, ok: true, none: null }, "metadata")).toEqual({
      note: " two\nlines\t",
      n: 1.5,
      ok: true,
      none: null,
    });
    for (const n of [NaN, Infinity, -Infinity]) {
      expect(failure(() => parseJsonValue({ n }, "metadata")).message).toBe("metadata.n must be a finite number");
    }
  });

  it(`nests at most ${MAX_JSON_DEPTH} levels`, () => {
    expect(parseJsonValue(nest(MAX_JSON_DEPTH), "metadata")).toEqual(nest(MAX_JSON_DEPTH));
    expect(failure(() => parseJsonValue(nest(MAX_JSON_DEPTH + 1), "metadata")).message).toMatch(
      /nests deeper than 32 levels/,
    );
  });

  it("keeps a key named __proto__ as a plain key", () => {
    const parsed = parseJsonValue(JSON.parse('{"__proto__": {"x": 1}}'), "metadata") as Record<string, unknown>;
    expect(Object.keys(parsed)).toEqual(["__proto__"]);
    expect(Object.getPrototypeOf(parsed)).toBe(Object.prototype);
  });
});
