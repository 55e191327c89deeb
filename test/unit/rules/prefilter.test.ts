import { describe, expect, it } from "vitest";
import { compileConditions } from "../../../services/rules/engine/index.js";
import { prefilter } from "../../../services/db/queries/rule-prefilter.js";

// The SQL narrowing: translated where it can never exclude a match, given up (null) otherwise.

const pf = (c: unknown) => prefilter(compileConditions(c));
const name = (value: string, field = "provider_name") => ({ field, op: "contains", value });

describe("prefilter", () => {
  it.each([
    [name("Coffee"), { sql: "t.search_text like ?", params: ["%coffee%\u001f%"] }],
    [name("50%_off", "provider_merchant_name"), { sql: "t.search_text like ?", params: ["%\u001f%50\\%\\_off%"] }],
    [
      { field: "provider_name", op: "eq", value: "UBER" },
      { sql: "t.search_text like ?", params: ["%uber%\u001f%"] },
    ],
    [
      { field: "amount", op: "gt", value: 12.5 },
      { sql: "t.amount > ?::numeric", params: ["12.50"] },
    ],
    [
      { field: "amount", op: "lte", value: "-0.05" },
      { sql: "t.amount <= ?::numeric", params: ["-0.05"] },
    ],
    [
      { field: "amount", op: "between", min: -1, max: 2 },
      { sql: "t.amount between ?::numeric and ?::numeric", params: ["-1.00", "2.00"] },
    ],
    [
      { field: "amount", op: "approx", value: 10, tolerance: 0.5 },
      { sql: "t.amount between ?::numeric and ?::numeric", params: ["9.50", "10.50"] },
    ],
    [
      { field: "pending", op: "neq", value: true },
      { sql: "t.pending <> ?", params: [true] },
    ],
    [
      { field: "tags", op: "contains", value: "Business" },
      { sql: "t.tag_ids @> array[(select id from tags where slug = ?)]", params: ["business"] },
    ],
  ])("translates %j", (c, want) => {
    expect(pf(c)).toEqual(want);
  });

  it.each([
    ["a non-ASCII term", name("café")],
    ["an empty term", name("")],
    ["a regular expression", { field: "provider_name", op: "matches", value: "coffee" }],
    ["a negation", { not: name("coffee") }],
    ["not_contains", { field: "provider_name", op: "not_contains", value: "coffee" }],
    ["an or with an untranslatable branch", { or: [name("coffee"), { field: "category", op: "eq", value: "x" }] }],
    ["the empty tree", {}],
  ])("gives up on %s", (_, c) => {
    expect(pf(c)).toBeNull();
  });

  it("keeps the translatable parts of an and, and ors whose every branch translates", () => {
    expect(pf({ and: [name("a"), { not: name("b") }, { field: "pending", op: "eq", value: false }] })).toEqual({
      sql: "(t.search_text like ?) and (t.pending = ?)",
      params: ["%a%\u001f%", false],
    });
    expect(pf({ or: [name("a"), { field: "amount", op: "lt", value: 0 }] })).toEqual({
      sql: "(t.search_text like ?) or (t.amount < ?::numeric)",
      params: ["%a%\u001f%", "0.00"],
    });
  });
});
