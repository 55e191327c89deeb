import { describe, expect, it } from "vitest";
import { normalizeUserCode } from "../../services/auth/device-codes.js";

describe("normalizeUserCode", () => {
  it.each([
    ["BCDF-GHJK", "BCDF-GHJK"],
    ["bcdf-ghjk", "BCDF-GHJK"],
    ["BCDFGHJK", "BCDF-GHJK"],
    [" BCDF-GHJK ", "BCDF-GHJK"],
    ["bc-df-gh-jk", "BCDF-GHJK"],
    ["ZXWV-TSRQ", "ZXWV-TSRQ"],
  ])("%j → %j", (raw, expected) => {
    expect(normalizeUserCode(raw)).toBe(expected);
  });

  it.each([
    [""],
    ["BCDF-GHJ"], // 7 letters
    ["BCDF-GHJKL"], // 9 letters
    ["BCDF-GHJA"], // vowel: not in the alphabet
    ["BCDF-GHJ1"], // digit
    ["BCDF-GHJY"], // Y is left out as a look-alike
    ["BCDF GHJK"],
    ["'; DROP--"],
  ])("%j → null", (raw) => {
    expect(normalizeUserCode(raw)).toBeNull();
  });
});
