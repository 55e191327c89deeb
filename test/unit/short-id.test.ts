import { describe, expect, it } from "vitest";
import { BASE62, newShortId, randomBase62, SHORT_ID_LENGTH } from "../../services/ids/short-id.js";

describe("short ids", () => {
  it("are 8 base62 characters", () => {
    expect(SHORT_ID_LENGTH).toBe(8);
    for (let i = 0; i < 1000; i++) expect(newShortId()).toMatch(/^[0-9A-Za-z]{8}$/);
  });

  it.each([1, 8, 43, 100])("randomBase62(%i) has exactly that length", (n) => {
    expect(randomBase62(n)).toHaveLength(n);
  });

  it("uses the whole alphabet, uniformly", () => {
    // 20k ids = 160k characters, ~2580 per symbol (sd ~51). A plain `byte % 62`
    // would give the first 8 symbols ~3125 each: far outside ±10%, and a
    // chi-square in the thousands instead of ~61.
    const counts = new Map<string, number>();
    for (let i = 0; i < 20_000; i++) for (const c of newShortId()) counts.set(c, (counts.get(c) ?? 0) + 1);
    expect([...counts.keys()].sort().join("")).toBe([...BASE62].sort().join(""));
    const expected = (20_000 * 8) / 62;
    let chi2 = 0;
    for (const [c, n] of counts) {
      expect(n, `count of ${c}`).toBeGreaterThan(expected * 0.9);
      expect(n, `count of ${c}`).toBeLessThan(expected * 1.1);
      chi2 += (n - expected) ** 2 / expected;
    }
    // 61 degrees of freedom: P(chi2 > 125) is about 1e-6 for a uniform source.
    expect(chi2).toBeLessThan(125);
  });

  it("do not repeat across many draws", () => {
    const seen = new Set(Array.from({ length: 10_000 }, () => newShortId()));
    expect(seen.size).toBe(10_000);
  });
});
