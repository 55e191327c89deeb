import { describe, expect, it } from "vitest";
import { envelopeProblems, httpProblems, leaksIn } from "./oracle.js";

// The fuzz test's judge, judged: answers it must flag, and answers it must let pass.
const json = "application/json; charset=utf-8";
const body = (v: unknown) => Buffer.from(typeof v === "string" ? v : JSON.stringify(v));

describe("leaksIn", () => {
  it.each([
    "Error: boom\n    at handler (/work/main/services/x.ts:10:5)",
    "failed at services/db/sql.ts:42",
    "cannot open /home/coffer/.coffer/data",
    "select id from transactions where id = ?",
    "insert into tags (slug) values ('x')",
    'invalid input syntax for type uuid: "x"',
    'duplicate key value violates unique constraint "tags_slug_key"',
    "date/time field value out of range (SQLSTATE 22008)",
    "DriverException: connection terminated",
    'column "amount_x" does not exist',
    'relation "tagz" does not exist',
  ])("flags %j", (text) => {
    expect(leaksIn(text)).not.toBeNull();
  });

  it.each([
    "No route for POST /api/v1/categories/home/merge/../merge",
    "unknown field select",
    "start_date must be a date between 1900-01-01 and 2999-12-31",
    "Transaction not found",
    "name must not contain control characters (U+0000)",
    'column_mapping.date names the column "Day", which the file does not have (its columns: "Date")',
  ])("lets %j pass", (text) => {
    expect(leaksIn(text)).toBeNull();
  });
});

describe("envelopeProblems", () => {
  it("passes the envelope with a known code and its status", () => {
    expect(envelopeProblems(404, json, body({ error: { code: "NOT_FOUND", message: "No such tag" } }))).toEqual([]);
  });

  it.each([
    ["a text body", 400, "text/plain", body("Bad Request")],
    ["Node's own JSON", 400, json, body({ error: "Bad Request", message: "Client Error" })],
    ["an extra field", 400, json, body({ error: { code: "INVALID_BODY", message: "x", stack: "y" } })],
    ["a sibling of error", 400, json, body({ error: { code: "INVALID_BODY", message: "x" }, id: 1 })],
    ["an unknown code", 400, json, body({ error: { code: "BAD", message: "x" } })],
    ["the wrong status for its code", 400, json, body({ error: { code: "NOT_FOUND", message: "x" } })],
    ["an empty message", 404, json, body({ error: { code: "NOT_FOUND", message: "" } })],
    ["JSON-RPC", 400, json, body({ jsonrpc: "2.0", error: { code: -32700, message: "Parse error" }, id: null })],
  ])("flags %s", (_what, status, type, b) => {
    expect(envelopeProblems(status, type, b).map((p) => p.kind)).toEqual(["non-envelope"]);
  });

  it("flags a leak inside a proper envelope", () => {
    const b = body({ error: { code: "INVALID_PARAMETER", message: 'relation "x" does not exist' } });
    expect(envelopeProblems(400, json, b).map((p) => p.kind)).toEqual(["leak"]);
  });
});

describe("httpProblems", () => {
  it("flags a 5xx even inside the envelope, and no answer at all", () => {
    const b = body({ error: { code: "INTERNAL_ERROR", message: "Internal error" } });
    expect(httpProblems(500, json, b, "GET").map((p) => p.kind)).toEqual(["5xx"]);
    expect(httpProblems(0, undefined, Buffer.alloc(0), "GET").map((p) => p.kind)).toEqual(["no-answer"]);
  });

  it("does not look for a body in a 2xx or a HEAD answer", () => {
    expect(httpProblems(200, "text/html", body("<p>"), "GET")).toEqual([]);
    expect(httpProblems(404, json, Buffer.alloc(0), "HEAD")).toEqual([]);
  });
});
