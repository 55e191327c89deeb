import { describe, expect, it } from "vitest";
import { CofferError } from "../../services/errors/coffer-error.js";
import { parseAssignSeriesParams, seriesConditionFields } from "../../services/series/rules-hooks.js";

// The pure halves of what the rules engine takes from series: the condition fields and the
// write-time check of an assign_series action's parameters.

describe("seriesConditionFields", () => {
  it.each([
    ["Xb3k9QaZ", { series: "Xb3k9QaZ", in_series: true }],
    [null, { series: "", in_series: false }],
  ])("%s → %j", (shortId, fields) => {
    expect(seriesConditionFields(shortId)).toEqual(fields);
  });
});

describe("parseAssignSeriesParams", () => {
  it.each([
    [{ series_id: "Xb3k9QaZ" }, { seriesId: "Xb3k9QaZ" }],
    [{ series_name: "Netflix" }, { seriesName: "Netflix" }],
    [
      { series_name: "Netflix", create_if_missing: true },
      { seriesName: "Netflix", createIfMissing: true },
    ],
    [
      { series_name: "Netflix", create_if_missing: false },
      { seriesName: "Netflix", createIfMissing: false },
    ],
  ])("accepts %j", (raw, want) => {
    expect(parseAssignSeriesParams(raw)).toEqual({
      seriesId: undefined,
      seriesName: undefined,
      createIfMissing: undefined,
      ...want,
    });
  });

  it.each<[string, unknown, string]>([
    ["not an object", "Netflix", "actions[1] must be an object"],
    ["an array", [], "actions[1] must be an object"],
    ["neither", {}, "actions[1]: give either series_id or series_name"],
    ["both", { series_id: "Xb3k9QaZ", series_name: "N" }, "actions[1]: give either series_id or series_name"],
    ["a blank name", { series_name: "  " }, "actions[1]: give either series_id or series_name"],
    [
      "a long name",
      { series_name: "n".repeat(201) },
      "actions[1]: series_name must be at most 200 characters (got 201)",
    ],
    ["a number for an id", { series_id: 7 }, "actions[1].series_id must be a string"],
    [
      "a string for the flag",
      { series_name: "N", create_if_missing: "yes" },
      "actions[1].create_if_missing must be true or false",
    ],
    [
      "the flag with an id",
      { series_id: "Xb3k9QaZ", create_if_missing: true },
      "actions[1]: create_if_missing goes with series_name, not series_id",
    ],
    ["an unknown parameter", { series_name: "N", slug: "x" }, "actions[1].slug is not a parameter of assign_series"],
  ])("refuses %s with VALIDATION_ERROR naming the node", (_what, raw, message) => {
    let caught: unknown;
    try {
      parseAssignSeriesParams(raw, "actions[1]");
    } catch (e) {
      caught = e;
    }
    expect(caught).toBeInstanceOf(CofferError);
    expect({ code: (caught as CofferError).code, message: (caught as CofferError).message }).toEqual({
      code: "VALIDATION_ERROR",
      message,
    });
  });
});
