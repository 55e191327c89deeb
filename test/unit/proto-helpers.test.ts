import { timestampFromDate } from "@bufbuild/protobuf/wkt";
import { describe, expect, it } from "vitest";
import { tsFromIso } from "../../services/shared/proto.js";

describe("tsFromIso", () => {
  it.each([
    "2026-11-26T00:00:00.000Z",
    "2026-03-01T12:34:56.789Z",
    "1969-12-31T23:59:59.999Z",
    "1900-01-01T00:00:00.001Z",
  ])("%s is the Timestamp protobuf-es makes of the same instant", (iso) => {
    expect(tsFromIso(iso)).toEqual(timestampFromDate(new Date(iso)));
  });
});
