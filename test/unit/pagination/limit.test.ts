import { describe, expect, it } from "vitest";
import { parseLimit } from "../../../services/pagination/limit.js";

describe("parseLimit", () => {
  it("defaults to 50 when unset (proto3 0) and honours 1..500", () => {
    expect(parseLimit(undefined)).toBe(50);
    expect(parseLimit(0)).toBe(50);
    expect(parseLimit(1)).toBe(1);
    expect(parseLimit(500)).toBe(500);
    expect(parseLimit(0, { default: 10, max: 50 })).toBe(10);
  });

  it.each([-1, 501, 1.5, Number.NaN])("refuses %s with INVALID_PARAMETER", (n) => {
    expect(() => parseLimit(n)).toThrow(
      expect.objectContaining({ code: "INVALID_PARAMETER", message: "limit must be between 1 and 500" }),
    );
  });
});
