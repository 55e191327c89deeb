import { describe, expect, it } from "vitest";
import { CofferError } from "../../services/errors/coffer-error.js";
import { parseInstant, parseText } from "../../services/shared/validate.js";

/** The CofferError a call throws, as {code, message}. */
function failure(call: () => unknown): { code: string; message: string } {
  try {
    call();
  } catch (e) {
    expect(e).toBeInstanceOf(CofferError);
    return { code: (e as CofferError).code, message: (e as CofferError).message };
  }
  throw new Error("expected the call to throw");
}

describe("parseText", () => {
  it.each([
    ["  Weekly review  ", {}, "Weekly review"],
    ["a\tb", {}, "a\tb"],
    ["x", { max: 1 }, "x"],
    ["", { min: 0 }, ""],
    ["   ", { min: 0 }, ""],
    ["😀😀", { max: 2 }, "😀😀"], // characters, not UTF-16 units
    ["line 1\r\nline 2\r\n", { multiline: true }, "line 1\nline 2"],
    ["a\rb", { multiline: true }, "a\rb"],
    ["\n  \n    indented code\nnext\n\n  ", { markdown: true }, "    indented code\nnext"],
    ["  indented\n", { multiline: true }, "indented"],
    ["# Title\n\n\t- item", { markdown: true }, "# Title\n\n\t- item"],
  ])("%j with %o → %j", (raw, opts, expected) => {
    expect(parseText(raw, "f", opts)).toBe(expected);
  });

  it.each([
    ["a\u0000b", {}, "U+0000"],
    ["\u0000", { multiline: true }, "U+0000"],
    ["bell\u0007", { multiline: true }, "U+0007"],
    ["tab\u000Bvertical", { multiline: true }, "U+000B"], // trim() would have hidden a trailing one
    ["form feed\u000C", { multiline: true }, "U+000C"],
    ["esc\u001B[31m", { multiline: true }, "U+001B"],
    ["unit\u001Fsep", {}, "U+001F"],
    ["two\nlines", {}, "U+000A"],
    ["carriage\rreturn", {}, "U+000D"],
  ])("%j with %o → VALIDATION_ERROR naming the field and %s", (raw, opts, codePoint) => {
    const f = failure(() => parseText(raw, "title", opts));
    expect(f.code).toBe("VALIDATION_ERROR");
    expect(f.message).toMatch(/^title must not contain control characters/);
    expect(f.message).toContain(codePoint);
  });

  it.each([
    ["", {}, "body is required"],
    [" \n\t ", { multiline: true }, "body is required"],
    ["ab", { min: 3 }, "body must be at least 3 characters"],
    ["abcd", { max: 3 }, "body must be at most 3 characters (got 4)"],
    ["😀😀😀😀", { max: 3 }, "body must be at most 3 characters (got 4)"],
  ])("%j with %o → %s", (raw, opts, message) => {
    expect(failure(() => parseText(raw, "body", opts))).toEqual({ code: "VALIDATION_ERROR", message });
  });
});

describe("parseInstant", () => {
  it.each([
    ["2026-05-01", "2026-05-01T00:00:00.000Z"],
    [" 2026-05-01 ", "2026-05-01T00:00:00.000Z"],
    ["2026-05-01T08:30Z", "2026-05-01T08:30:00.000Z"],
    ["2026-05-01T08:30:15.250Z", "2026-05-01T08:30:15.250Z"],
    ["2026-05-01T08:30:00+02:00", "2026-05-01T06:30:00.000Z"],
    ["2026-05-01T08:30:00.123456-05:00", "2026-05-01T13:30:00.123Z"],
  ])("%j → %s", (raw, expected) => {
    expect(parseInstant(raw, "since").toISOString()).toBe(expected);
  });

  it.each([
    "",
    "yesterday",
    "2026-02-30",
    "2026-13-01",
    "2026-05-01T08:30", // no zone: which one?
    "2026-05-01T25:00Z",
    "2026-05-01T08:30:60Z",
    "2026-05-01 08:30Z",
    "1714550400",
    "2026-05-01T08:30Z\u0000",
  ])("%j → INVALID_PARAMETER naming the field", (raw) => {
    const f = failure(() => parseInstant(raw, "since"));
    expect(f.code).toBe("INVALID_PARAMETER");
    expect(f.message).toMatch(/^since must be a date/);
  });
});
