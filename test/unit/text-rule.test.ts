import { describe, expect, it } from "vitest";
import { isCurrencyCode } from "../../common/currency.js";
import { jsonNumberProblem } from "../../common/json-number.js";
import { checkText, cleanText, forbiddenCharacter, loneSurrogatePath } from "../../common/text.js";

describe("forbiddenCharacter", () => {
  it.each([
    ["plain", false, null],
    ["tab\tis fine", false, null],
    ["two\nlines", true, null],
    ["two\nlines", false, "U+000A"],
    ["del\u007f", true, "U+007F"],
    ["nul\u0000", true, "U+0000"],
    ["emoji 🎉 pair", false, null],
    ["high \ud800 alone", false, "a lone surrogate U+D800"],
    ["low \udc00 first", false, "a lone surrogate U+DC00"],
    ["ends high \ud83c", false, "a lone surrogate U+D83C"],
    ["swapped \udf89\ud83c", false, "a lone surrogate U+DF89"],
  ])("%j (line breaks %s) → %s", (text, lineBreaks, expected) => {
    expect(forbiddenCharacter(text, lineBreaks)).toBe(expected);
  });
});

describe("checkText", () => {
  it("checks before trimming, then trims and counts code points", () => {
    expect(checkText(" a\u000b", "f")).toEqual({
      ok: false,
      message: "f must not contain control characters other than tab (it is one line); found U+000B",
    });
    expect(checkText("  🎉🎉  ", "f", { max: 2 })).toEqual({ ok: true, value: "🎉🎉" });
    expect(checkText("x\ud800", "name")).toEqual({
      ok: false,
      message: "name must be valid Unicode text; found a lone surrogate U+D800",
    });
  });
});

describe("loneSurrogatePath", () => {
  it("names the first string or key holding one, as a path", () => {
    expect(loneSurrogatePath({ a: "ok", b: { c: ["ok", "x\udc00"] } }, "")).toBe("b.c[1]");
    expect(loneSurrogatePath({ "odd key": "\ud800" }, "")).toBe('["odd key"]');
    expect(loneSurrogatePath({ meta: { ["k\ud800"]: 1 } }, "")).toBe("a key in meta");
    expect(loneSurrogatePath("\ud800", "")).toBe("");
    expect(loneSurrogatePath({ a: "🎉", n: 1, z: null }, "")).toBeNull();
  });
});

describe("cleanText (provider text)", () => {
  it("turns controls into a space, keeps tab, replaces a lone surrogate, never cuts a pair", () => {
    expect(cleanText("a\u0000\u0007b\tc\nd", 100)).toBe("a b\tc d");
    expect(cleanText("x\ud800y", 100)).toBe("x\ufffdy");
    expect(cleanText("ab🎉cd", 3)).toBe("ab🎉");
    expect(cleanText(" \u0000 ", 10)).toBeNull();
    expect(cleanText(null, 10)).toBeNull();
  });
});

describe("jsonNumberProblem", () => {
  it.each([0, -1, 0.1, 123456789012345, 1.5e-7, 1e39, -0.000123])("%s is kept", (n) => {
    expect(jsonNumberProblem(n)).toBeNull();
  });
  // 12345678901234567890 as JSON.parse reads it: the double nearest to it.
  it.each([1234567890123456, 1.2345678901234568e39, 0.30000000000000004, Number("12345678901234567890")])(
    "%s is refused: more than 15 significant digits",
    (n) => {
      expect(jsonNumberProblem(n)).toMatch(/^has more than 15 significant digits/);
    },
  );
  it("NaN and the infinities are refused", () => {
    for (const n of [NaN, Infinity, -Infinity]) expect(jsonNumberProblem(n)).toBe("must be a finite number");
  });
});

describe("isCurrencyCode", () => {
  it("knows ISO 4217, funds and metals included, and nothing else", () => {
    for (const c of ["USD", "EUR", "JPY", "CHE", "XAU", "XCG"]) expect(isCurrencyCode(c), c).toBe(true);
    for (const c of ["NAN", "XYZ", "usd", "US", ""]) expect(isCurrencyCode(c), c).toBe(false);
  });
});
