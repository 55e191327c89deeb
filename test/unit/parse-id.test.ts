import { describe, expect, it } from "vitest";
import { parseId } from "../../services/ids/resolve-id.js";

describe("parseId", () => {
  it.each([
    ["aB3dE9zQ", { column: "short_id", value: "aB3dE9zQ" }],
    ["00000000", { column: "short_id", value: "00000000" }],
    ["ZZZZZZZZ", { column: "short_id", value: "ZZZZZZZZ" }],
    ["0f8fad5b-d9cb-469f-a165-70867728950e", { column: "id", value: "0f8fad5b-d9cb-469f-a165-70867728950e" }],
    ["0F8FAD5B-D9CB-469F-A165-70867728950E", { column: "id", value: "0f8fad5b-d9cb-469f-a165-70867728950e" }],
  ])("%s → %o", (raw, expected) => {
    expect(parseId(raw)).toEqual(expected);
  });

  it.each([
    [""],
    [undefined],
    [null],
    ["aB3dE9z"], // 7 chars
    ["aB3dE9zQx"], // 9 chars
    ["aB3dE9z-"],
    ["aB3dE9z_"],
    ["aB3d E9z"],
    ["' OR 1=1"],
    ["1;DROP--"],
    ["x' OR '1'='1"],
    ["0f8fad5b-d9cb-469f-a165-70867728950"], // UUID one short
    ["0f8fad5bd9cb469fa16570867728950e"], // UUID without dashes
    ["0f8fad5b-d9cb-469f-a165-70867728950g"],
    [" 0f8fad5b-d9cb-469f-a165-70867728950e"],
    ["éééééééé"],
  ])("%j matches nothing", (raw) => {
    expect(parseId(raw)).toBeNull();
  });
});
