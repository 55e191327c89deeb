import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  FIELD_NAMES,
  MAX_DEPTH,
  RuleValidationError,
  compileConditions,
  parseActions,
} from "../../../services/rules/engine/index.js";
import { judge, refusal } from "./helpers.js";

// The condition grammar's write-time validation: every refusal names the node it is about.

const SHAPE = "a condition is {field, op, value} or one of {and: [...]}, {or: [...]}, {not: {...}}";
const L = (field = "provider_name", op = "contains", value: unknown = "x") => ({ field, op, value });

/** A leaf wrapped in `depth - 1` nots: `depth` levels deep. */
function nested(depth: number): unknown {
  let node: unknown = L();
  for (let i = 1; i < depth; i++) node = { not: node };
  return node;
}

describe("depth", () => {
  it(`accepts ${MAX_DEPTH} levels and refuses ${MAX_DEPTH + 1}, naming the node too deep`, () => {
    expect(refusal(nested(MAX_DEPTH))).toBeNull();
    const path = Array.from({ length: MAX_DEPTH }, () => "not").join(".");
    expect(refusal(nested(MAX_DEPTH + 1))).toBe(`${path}: conditions may nest at most 10 levels deep`);
  });

  it("counts and/or levels the same way", () => {
    let node: unknown = L();
    for (let i = 1; i < MAX_DEPTH; i++) node = i % 2 ? { and: [L(), node] } : { or: [node] };
    expect(refusal(node)).toBeNull();
    expect(refusal({ and: [node] })).toMatch(/may nest at most 10 levels deep$/);
  });

  it("{} is the whole tree only, and matches everything", () => {
    expect(judge({})).toBe(true);
    expect(refusal({ and: [{}] })).toBe(
      "and[0]: an empty condition {} is only allowed as the whole tree (it matches everything)",
    );
  });
});

describe("refusals, each with the path to the bad node", () => {
  const rows: [string, unknown, string][] = [
    ["not an object", "provider_name contains x", "conditions: a condition must be an object, got a string"],
    ["an array", [L()], "conditions: a condition must be an object, got an array"],
    ["null", null, "conditions: a condition must be an object, got null"],
    ["a number in an and", { and: [L(), 7] }, "and[1]: a condition must be an object, got a number"],
    [
      "an operator of another kind",
      { and: [L(), { or: [L("provider_name", "gt", 5)] }] },
      'and[1].or[0]: operator "gt" is not valid for string field "provider_name"',
    ],
    ["an unknown operator", L("amount", "like", 1), 'conditions: unknown operator "like"'],
    [
      "contains on a number",
      L("amount", "contains", "5"),
      'conditions: operator "contains" is not valid for numeric field "amount"',
    ],
    ["gt on a boolean", L("pending", "gt", true), 'conditions: operator "gt" is not valid for boolean field "pending"'],
    ["eq on tags", L("tags", "eq", "x"), 'conditions: operator "eq" is not valid for tags field "tags"'],
    ["matches on tags", L("tags", "matches", "x"), 'conditions: operator "matches" is not valid for tags field "tags"'],
    ["an unknown field", { not: L("merchant") }, `not: unknown field "merchant"; fields are ${FIELD_NAMES.join(", ")}`],
    [
      "a malformed metadata key",
      L("metadata.bad key", "exists", undefined),
      'conditions: unknown field "metadata.bad key"; fields are ' + FIELD_NAMES.join(", "),
    ],
    [
      "an empty metadata key",
      L("metadata.", "exists", undefined),
      'conditions: unknown field "metadata."; fields are ' + FIELD_NAMES.join(", "),
    ],
    ["field not a string", { field: 1, op: "eq", value: 1 }, "conditions: field must be a string, got a number"],
    ["no field", { op: "eq", value: 1 }, `conditions: field is required; ${SHAPE}`],
    ["no op", { field: "amount", value: 1 }, "conditions: op is required"],
    ["op not a string", { field: "amount", op: ["gt"], value: 1 }, "conditions: op must be a string, got an array"],
    ["an unknown key", { field: "amount", op: "gt", vlaue: 1 }, `conditions: unknown key "vlaue"; ${SHAPE}`],
    ["no value", { field: "amount", op: "gt" }, 'conditions: operator "gt" needs a value'],
    [
      "a string for an amount",
      L("amount", "gt", "lots"),
      "conditions: value must be an amount with at most 2 decimals, e.g. 12.50",
    ],
    [
      "three decimals",
      L("amount", "eq", 1.005),
      "conditions: value must be an amount with at most 2 decimals, e.g. 12.50",
    ],
    [
      "a boolean for an amount",
      L("amount", "eq", true),
      'conditions: value must be a number for operator "eq" on field "amount", got a boolean',
    ],
    [
      "a number for a string",
      L("provider_name", "contains", 5),
      'conditions: value must be a string for operator "contains" on field "provider_name", got a number',
    ],
    [
      "a string for a boolean",
      L("pending", "eq", "yes"),
      'conditions: value must be true or false for operator "eq" on field "pending", got a string',
    ],
    [
      "a number for a tag",
      L("tags", "contains", 5),
      'conditions: value must be a tag slug for operator "contains" on field "tags", got a number',
    ],
    [
      "a bad tag slug",
      L("tags", "contains", "two words"),
      "conditions: value must be a tag slug (1 to 64 characters of a-z, 0-9 and _)",
    ],
    [
      "in without a list",
      L("provider", "in", "plaid"),
      'conditions: value must be an array for operator "in" on field "provider", got a string',
    ],
    [
      "in with an empty list",
      L("provider", "in", []),
      'conditions: value of operator "in" must list at least one value',
    ],
    [
      "in with a number",
      L("provider", "in", ["plaid", 3]),
      'conditions: value[1] must be a string for operator "in" on field "provider", got a number',
    ],
    [
      "a day out of range",
      L("day_of_month", "eq", 32),
      'conditions: value must be from 1 to 31 for field "day_of_month"',
    ],
    ["a weekday 0", L("day_of_week", "eq", 0), 'conditions: value must be from 1 to 7 for field "day_of_week"'],
    ["a fractional month", L("month", "eq", 1.5), "conditions: value must be a whole number"],
    [
      "a backreference",
      L("provider_name", "matches", "(a)\\1"),
      "conditions: value is not an RE2 regular expression: invalid escape sequence: \\1",
    ],
    [
      "a lookahead",
      { or: [L(), L("provider_name", "matches", "(?=x)")] },
      "or[1]: value is not an RE2 regular expression: invalid perl operator: (?=",
    ],
    [
      "an unclosed class",
      L("provider_name", "matches", "[a-"),
      "conditions: value is not an RE2 regular expression: missing ]: [a-",
    ],
    [
      "between without max",
      { field: "amount", op: "between", min: 1 },
      'conditions: operator "between" needs both min and max',
    ],
    [
      "between without min or max",
      { field: "amount", op: "between" },
      'conditions: operator "between" needs both min and max',
    ],
    [
      "between with a value",
      { field: "amount", op: "between", value: 1, min: 1, max: 2 },
      'conditions: operator "between" takes min and max, not value',
    ],
    [
      "between min > max",
      { field: "amount", op: "between", min: 5, max: 1 },
      "conditions: min must not be greater than max",
    ],
    ["approx without tolerance", L("amount", "approx", 10), 'conditions: operator "approx" needs a tolerance'],
    [
      "a negative tolerance",
      { ...L("amount", "approx", 10), tolerance: -1 },
      "conditions: tolerance must not be negative",
    ],
    [
      "tolerance without approx",
      { ...L("amount", "eq", 10), tolerance: 1 },
      'conditions: tolerance only goes with operator "approx"',
    ],
    [
      "min without between",
      { ...L("amount", "gt", 10), min: 1 },
      'conditions: min and max only go with operator "between"',
    ],
    ["exists with a value", L("metadata.k", "exists", 1), 'conditions: operator "exists" takes no value'],
    [
      "exists on a plain field",
      { field: "provider_name", op: "exists" },
      'conditions: operator "exists" is not valid for string field "provider_name"',
    ],
    [
      "metadata contains a number",
      L("metadata.k", "contains", 1),
      'conditions: value must be a string for operator "contains" on field "metadata.k", got a number',
    ],
    [
      "metadata eq an object",
      L("metadata.k", "eq", {}),
      "conditions: value must be a string, a number, true or false for operator " +
        '"eq" on field "metadata.k", got an object',
    ],
    [
      "a combinator with another key",
      { and: [L()], field: "x" },
      'conditions: a combinator has exactly one key (and), found "and", "field"',
    ],
    ["and not a list", { and: L() }, "conditions: and must be an array of conditions, got an object"],
    ["an empty or", { or: [] }, "conditions: or must list at least one condition"],
    ["not of a list", { not: [L()] }, "not: a condition must be an object, got an array"],
  ];
  it.each(rows)("%s", (_, conditions, message) => {
    expect(refusal(conditions)).toBe(message);
  });

  it("refuses a tree with more than 500 nodes", () => {
    expect(refusal({ or: Array.from({ length: 500 }, () => L()) })).toBe(
      "or[499]: a condition tree may have at most 500 nodes",
    );
  });

  it("throws only RuleValidationError for any JSON whatever (property)", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 6 }), (v) => {
        try {
          compileConditions(v);
        } catch (e) {
          expect(e).toBeInstanceOf(RuleValidationError);
        }
      }),
      { numRuns: 2000 },
    );
  });
});

describe("actions", () => {
  const rows: [string, unknown, string][] = [
    ["not a list", { type: "flag" }, "actions: must be an array of actions, got an object"],
    ["an empty list", [], "actions: a rule needs at least one action"],
    ["too many", Array.from({ length: 21 }, () => ({ type: "flag" })), "actions: a rule may have at most 20 actions"],
    ["not an object", ["flag"], "actions[0]: an action must be an object, got a string"],
    ["no type", [{ category_slug: "x" }], "actions[0]: type is required"],
    [
      "an unknown type",
      [{ type: "flag" }, { type: "delete" }],
      'actions[1]: unknown action type "delete"; types are set_category, add_tag, remove_tag, add_comment, ' +
        "set_metadata, remove_metadata, assign_counterparty, assign_series, flag",
    ],
    ["a missing field", [{ type: "set_category" }], 'actions[0]: action "set_category" needs category_slug'],
    [
      "an extra field",
      [{ type: "add_tag", tag_slug: "x", color: "red" }],
      'actions[0]: unknown key "color" for action "add_tag"',
    ],
    [
      "a bad slug",
      [{ type: "add_tag", tag_slug: "Two Words" }],
      "actions[0]: tag_slug must be a slug (1 to 64 characters of a-z, 0-9 and _)",
    ],
    [
      "two set_category",
      [
        { type: "set_category", category_slug: "a" },
        { type: "set_category", category_slug: "b" },
      ],
      "actions: a rule may have at most one set_category action",
    ],
    [
      "a bad metadata key",
      [{ type: "set_metadata", key: "a b", value: 1 }],
      "actions[0]: key must be 1-64 characters of A-Z, a-z, 0-9, _, . and -",
    ],
    [
      "an object metadata value",
      [{ type: "set_metadata", key: "k", value: { a: 1 } }],
      "actions[0]: value must be a string, a number, true or false, got an object",
    ],
    ["an empty comment", [{ type: "add_comment", content: "  " }], "actions[0]: content is required"],
    [
      "a NUL in a comment",
      [{ type: "add_comment", content: "a\u0000b" }],
      "actions[0]: content must not contain control characters other than tab, line feed and carriage return; " +
        "found U+0000",
    ],
    [
      "a counterparty id that is not text",
      [{ type: "assign_counterparty", counterparty_id: 5 }],
      "actions[0]: counterparty_id must be a string, got a number",
    ],
    ["a series id that is empty", [{ type: "assign_series", series_id: "" }], "actions[0]: series_id is required"],
    [
      "a flag reason that is not text",
      [{ type: "flag", reason: 1 }],
      "actions[0]: reason must be a string, got a number",
    ],
  ];
  it.each(rows)("refuses %s", (_, actions, message) => {
    let caught: unknown;
    try {
      parseActions(actions);
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(RuleValidationError);
    expect((caught as Error).message).toBe(message);
  });

  it("accepts every type and normalises slugs", () => {
    expect(
      parseActions([
        { type: "set_category", category_slug: " Food_And_Drink_Coffee " },
        { type: "add_tag", tag_slug: "business" },
        { type: "remove_tag", tag_slug: "needs_review" },
        { type: "add_comment", content: " Looks like a subscription\nCheck it " },
        { type: "set_metadata", key: "trip.name", value: "Lisbon" },
        { type: "set_metadata", key: "miles", value: 12 },
        { type: "remove_metadata", key: "temp" },
        { type: "assign_counterparty", counterparty_id: "CpAb1234" },
        { type: "assign_series", series_id: "SerAb123" },
        { type: "flag" },
        { type: "flag", reason: "large" },
      ]),
    ).toEqual([
      { type: "set_category", category_slug: "food_and_drink_coffee" },
      { type: "add_tag", tag_slug: "business" },
      { type: "remove_tag", tag_slug: "needs_review" },
      { type: "add_comment", content: "Looks like a subscription\nCheck it" },
      { type: "set_metadata", key: "trip.name", value: "Lisbon" },
      { type: "set_metadata", key: "miles", value: 12 },
      { type: "remove_metadata", key: "temp" },
      { type: "assign_counterparty", counterparty_id: "CpAb1234" },
      { type: "assign_series", series_id: "SerAb123" },
      { type: "flag" },
      { type: "flag", reason: "large" },
    ]);
  });

  it("throws only RuleValidationError for any JSON whatever (property)", () => {
    fc.assert(
      fc.property(fc.jsonValue({ maxDepth: 4 }), (v) => {
        try {
          parseActions(v);
        } catch (e) {
          expect(e).toBeInstanceOf(RuleValidationError);
        }
      }),
      { numRuns: 2000 },
    );
  });
});
