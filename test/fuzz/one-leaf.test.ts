import { describe, expect, it } from "vitest";
import { encodeUrl, leavesOf, mutateJson } from "./one-leaf.js";

// The one-leaf mode's mutation, judged: exactly one value differs from the seed, written as raw JSON.
const seed = { name: "Rent", amount: "12.30", tags: ["home", "bills"], rule: { and: [{ op: "gt", value: 3 }] } };

/** The leaves whose values differ between two parsed bodies. */
const changed = (a: unknown, b: unknown) =>
  leavesOf(a).filter((path) => {
    const get = (v: unknown) => path.reduce<unknown>((x, k) => (x as Record<string, unknown>)[k], v);
    return JSON.stringify(get(a)) !== JSON.stringify(get(b));
  });

describe("mutateJson", () => {
  it("finds every leaf, nested ones included", () => {
    expect(leavesOf(seed)).toEqual([
      ["name"],
      ["amount"],
      ["tags", 0],
      ["tags", 1],
      ["rule", "and", 0, "op"],
      ["rule", "and", 0, "value"],
    ]);
  });

  it.each(["nul", "c0", "10k-chars", "rtl-override", "wrong-type"] as const)("%s changes exactly one leaf", (kind) => {
    for (let leaf = 0; leaf < 6; leaf++) {
      const { text } = mutateJson(seed, leaf, kind, 1);
      const parsed: unknown = JSON.parse(text);
      expect(changed(seed, parsed)).toEqual([leavesOf(seed)[leaf]]);
    }
  });

  it("writes a lone surrogate as an escape in the raw JSON", () => {
    const { text } = mutateJson({ name: "Rent" }, 0, "lone-surrogate", 0);
    expect(text).toBe('{"name":"x\\ud800y"}');
  });

  it("writes huge numbers as JSON numbers that no double holds", () => {
    expect(mutateJson({ n: 1 }, 0, "huge-number", 0).text).toBe('{"n":1e309}');
    expect(mutateJson({ n: 1 }, 0, "huge-number", 1).text).toBe('{"n":-1e309}');
    expect(mutateJson({ n: 1 }, 0, "huge-number", 3).text).toBe('{"n":-1234567890123456789012345678901234567890}');
  });

  it("writes a duplicate key: the original value, then another", () => {
    expect(mutateJson({ name: "Rent", x: 1 }, 0, "duplicate", 1).text).toBe('{"name":"Rent","name":"Rent","x":1}');
    expect(mutateJson({ name: "Rent" }, 0, "duplicate", 0).text).toBe('{"name":"Rent","name":"Rent\\u0000"}');
  });

  it("bends an array element to another type instead of duplicating it", () => {
    const { text } = mutateJson({ ids: ["a"] }, 0, "duplicate", 0);
    expect(JSON.parse(text)).not.toEqual({ ids: ["a"] });
    expect(text.startsWith('{"ids":[')).toBe(true);
  });

  it("replaces an empty body as a whole", () => {
    expect(mutateJson({}, 0, "wrong-type", 0).text).toBe("null");
  });
});

describe("encodeUrl", () => {
  it("percent-encodes UTF-8 and writes a lone surrogate as its three bytes", () => {
    expect(encodeUrl("a b\u0000é")).toBe("a%20b%00%C3%A9");
    expect(encodeUrl("x\ud800y")).toBe("x%ED%A0%80y");
  });
});
