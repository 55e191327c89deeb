import { fromBinary, toBinary, create } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ListTransactionsRequestSchema } from "../../gen/coffer/v1/transactions_pb.js";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import type { ErrorCode } from "../../common/errors.js";
import { frame, h2Request, type H2Response } from "../helpers/h2.js";
import { startStack, type Stack } from "../helpers/stack.js";

// The core's entry points (reproducer G: garbage protobuf answered `internal`,
// without any key). The key is checked before the body is read, and a body
// Connect cannot decode is INVALID_BODY (an unknown JSON field INVALID_PARAMETER),
// framed the way each protocol frames errors, with the Coffer code like every other error.

let s: Stack;
const logLines: string[] = [];

beforeAll(async () => {
  s = await startStack({ logLevel: "info" }, { coreLog: { write: (line) => void logLines.push(line) } });
});
afterAll(async () => {
  await s?.close();
});

const LIST = "/coffer.v1.TransactionService/ListTransactions";
const CREATE_TAG = "/coffer.v1.TagService/CreateTag";
const WATCH = "/grpc.health.v1.Health/Watch";
/** The reproducer's bytes: a varint tag no message has. */
const GARBAGE = Buffer.from([0xff, 0xff, 0xff, 0xff, 0x0f]);
const text = (s: string) => Buffer.from(s, "utf8");

const post = (path: string, headers: Record<string, string>, body: Uint8Array) =>
  h2Request(s.coreUrl, { path, headers, body });

const connectBinary = (k?: string) => ({ "content-type": "application/proto", ...(k ? { "x-api-key": k } : {}) });
const connectJson = (k?: string) => ({ "content-type": "application/json", ...(k ? { "x-api-key": k } : {}) });
const grpc = (k?: string) => ({ "content-type": "application/grpc", te: "trailers", ...(k ? { "x-api-key": k } : {}) });
const grpcWeb = (k?: string) => ({ "content-type": "application/grpc-web+proto", ...(k ? { "x-api-key": k } : {}) });

/** A Connect unary error: HTTP status, JSON body with the Connect code, ErrorInfo detail and header. */
function expectConnectError(res: H2Response, status: number, connectCode: string, code: ErrorCode) {
  expect(res.status).toBe(status);
  expect(res.headers["coffer-error-code"]).toBe(code);
  const body = JSON.parse(res.body.toString()) as { code: string; message: string; details: { value: string }[] };
  expect(body.code).toBe(connectCode);
  expect(fromBinary(ErrorInfoSchema, Buffer.from(body.details[0].value, "base64"))).toMatchObject({
    reason: code,
    domain: "coffer",
  });
  return body.message;
}

/** A gRPC error: HTTP 200, the status in trailers, the code in a trailer and in the status details. */
function expectGrpcError(res: H2Response, grpcStatus: number, code: ErrorCode) {
  expect(res.status).toBe(200);
  expect(res.trailers["grpc-status"]).toBe(String(grpcStatus));
  expect(res.trailers["coffer-error-code"]).toBe(code);
  const details = Buffer.from(res.trailers["grpc-status-details-bin"], "base64").toString("latin1");
  expect(details).toContain("type.googleapis.com/google.rpc.ErrorInfo");
  expect(details).toContain(code);
  return decodeURIComponent(res.trailers["grpc-message"]);
}

describe("the key is checked before the body is read", () => {
  it("G: garbage protobuf without a key → 401 MISSING_CREDENTIALS, not a decode error", async () => {
    expectConnectError(await post(LIST, connectBinary(), GARBAGE), 401, "unauthenticated", "MISSING_CREDENTIALS");
  });

  it("bad JSON with an unknown key → 401 INVALID_API_KEY", async () => {
    const res = await post(LIST, connectJson("cf_nope"), text('{"limit": '));
    expectConnectError(res, 401, "unauthenticated", "INVALID_API_KEY");
  });

  it("garbage to a write with a read_only key → 403 INSUFFICIENT_SCOPE", async () => {
    const res = await post(CREATE_TAG, connectBinary(s.readKey), GARBAGE);
    expectConnectError(res, 403, "permission_denied", "INSUFFICIENT_SCOPE");
  });

  it("over gRPC too: garbage without a key → UNAUTHENTICATED (16)", async () => {
    expectGrpcError(await post(LIST, grpc(), frame(GARBAGE)), 16, "MISSING_CREDENTIALS");
  });

  it("Connect GET without a key → 401, whatever the message parameter holds", async () => {
    const res = await h2Request(s.coreUrl, { method: "GET", path: `${LIST}?encoding=proto&base64=1&message=__8` });
    expectConnectError(res, 401, "unauthenticated", "MISSING_CREDENTIALS");
  });
});

describe("an undecodable request → invalid_argument", () => {
  it("G: Connect binary garbage with a key", async () => {
    const message = expectConnectError(
      await post(LIST, connectBinary(s.readKey), GARBAGE),
      400,
      "invalid_argument",
      "INVALID_BODY",
    );
    expect(message).toMatch(/^The request could not be read as a coffer\.v1\.ListTransactionsRequest/);
  });

  it("Connect JSON with an unknown field → INVALID_PARAMETER naming it, as REST refuses one", async () => {
    const res = await post(LIST, connectJson(s.readKey), text('{"limt": 5}'));
    expect(expectConnectError(res, 400, "invalid_argument", "INVALID_PARAMETER")).toBe("unknown field limt");
    const nested = await post(LIST, connectJson(s.readKey), text('{"filter": {"strat_date": "2026-01-01"}}'));
    expect(expectConnectError(nested, 400, "invalid_argument", "INVALID_PARAMETER")).toBe(
      "unknown field strat_date (in coffer.v1.TransactionFilter)",
    );
  });

  it.each([
    ["not JSON", text('{"limit": ')],
    ["a field of the wrong type", text('{"limit": "many"}')],
    [
      "invalid UTF-8",
      Buffer.from([0x7b, 0x22, 0x63, 0x75, 0x72, 0x73, 0x6f, 0x72, 0x22, 0x3a, 0x22, 0xff, 0x22, 0x7d]),
    ],
  ])("Connect JSON that is %s", async (_what, body) => {
    expectConnectError(await post(LIST, connectJson(s.readKey), body), 400, "invalid_argument", "INVALID_BODY");
  });

  it("Connect GET with a message that is not protobuf", async () => {
    const res = await h2Request(s.coreUrl, {
      method: "GET",
      path: `${LIST}?encoding=proto&base64=1&message=__8`,
      headers: { "x-api-key": s.readKey },
    });
    expectConnectError(res, 400, "invalid_argument", "INVALID_BODY");
  });

  it("a compressed body that does not decompress", async () => {
    const res = await post(LIST, { ...connectBinary(s.readKey), "content-encoding": "gzip" }, GARBAGE);
    expectConnectError(res, 400, "invalid_argument", "INVALID_BODY");
  });

  it.each([
    ["a garbage frame", frame(GARBAGE)],
    ["no message at all", Buffer.alloc(0)],
    ["two messages for a unary method", Buffer.concat([frame(Buffer.alloc(0)), frame(Buffer.alloc(0))])],
    ["a frame cut short", frame(GARBAGE).subarray(0, 7)],
    ["a compressed frame without an encoding", frame(GARBAGE, 1)],
  ])("gRPC: %s → INVALID_ARGUMENT (3)", async (_what, body) => {
    expect(expectGrpcError(await post(LIST, grpc(s.readKey), body), 3, "INVALID_BODY")).toMatch(
      /coffer\.v1\.ListTransactionsRequest/,
    );
  });

  it("gRPC-Web: a garbage frame → status 3 in the trailer frame", async () => {
    const res = await post(LIST, grpcWeb(s.readKey), frame(GARBAGE));
    expect(res.status).toBe(200);
    const trailer = res.body.toString("latin1");
    expect(trailer).toMatch(/grpc-status: ?3\r\n/);
    expect(trailer).toMatch(/coffer-error-code: ?INVALID_BODY\r\n/);
    expect(trailer).toMatch(/grpc-status-details-bin: /);
  });

  it("a streaming RPC (Health/Watch over Connect) with a garbage frame", async () => {
    const res = await post(WATCH, { "content-type": "application/connect+proto" }, frame(GARBAGE));
    expect(res.status).toBe(200);
    const end = JSON.parse(res.body.subarray(5).toString()) as { error: { code: string; message: string } };
    expect(end.error.code).toBe("invalid_argument");
    expect(end.error.message).toMatch(/grpc\.health\.v1\.HealthCheckRequest/);
  });
});

describe("well-formed requests are untouched", () => {
  it("Connect binary, Connect JSON and gRPC still answer", async () => {
    const message = toBinary(ListTransactionsRequestSchema, create(ListTransactionsRequestSchema, { limit: 1 }));
    expect((await post(LIST, connectBinary(s.readKey), message)).status).toBe(200);
    const json = await post(LIST, connectJson(s.readKey), text('{"limit": 1}'));
    expect(json.status).toBe(200);
    expect(JSON.parse(json.body.toString())).toEqual({});
    expect((await post(LIST, grpc(s.readKey), frame(message))).trailers["grpc-status"]).toBe("0");
  });

  it("none of the above was an unexpected error in the core's log", () => {
    const lines = logLines.map((l) => JSON.parse(l) as { level: number; msg: string });
    expect(lines.filter((l) => l.msg === "request completed").length).toBeGreaterThan(20);
    expect(lines.filter((l) => l.level >= 50)).toEqual([]);
  });
});
