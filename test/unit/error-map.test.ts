import { Code, ConnectError } from "@connectrpc/connect";
import { describe, expect, it } from "vitest";
import { ErrorInfoSchema } from "../../gen/google/rpc/error_details_pb.js";
import { mapAndLog, mapError } from "../../gateways/shared/error-map.js";
import { recordingLog } from "../helpers/log.js";
import { ERROR_CODES, type ErrorCode } from "../../common/errors.js";
import { CODE_FOR_BARE_CONNECT, CONNECT_CODE } from "../helpers/connect-code.js";
import { HTTP_STATUS } from "../helpers/http-status.js";
import { toConnectError } from "../../services/interceptors/errors.js";

const withInfo = (reason: string, message: string, code = Code.Internal, domain = "coffer") =>
  new ConnectError(message, code, undefined, [{ desc: ErrorInfoSchema, value: { reason, domain } }]);

describe("mapError: a core error with a Coffer code", () => {
  const codes = Object.keys(ERROR_CODES) as ErrorCode[];

  it.each(codes)("%s → its HTTP status, its code and the core's message", (code) => {
    const mapped = mapError(toConnectError(code, `message for ${code}`));
    expect(mapped).toEqual({ status: HTTP_STATUS[code], body: { error: { code, message: `message for ${code}` } } });
  });

  it("takes the code from ErrorInfo.reason, not from the Connect code", () => {
    // The Connect code says internal; the detail says NOT_FOUND: the detail wins.
    expect(mapError(withInfo("NOT_FOUND", "User not found"))).toEqual({
      status: 404,
      body: { error: { code: "NOT_FOUND", message: "User not found" } },
    });
  });

  it("uses rawMessage (no '[code]' prefix)", () => {
    const e = toConnectError("CONFLICT", "Another user already has this email");
    expect(e.message).toMatch(/^\[already_exists\]/);
    expect(mapError(e).body.error.message).toBe("Another user already has this email");
  });

  it.each([
    ["an unknown reason", withInfo("NOT_A_CODE", "secret detail", Code.NotFound)],
    ["a foreign domain", withInfo("NOT_FOUND", "secret detail", Code.NotFound, "googleapis.com")],
  ])("ignores ErrorInfo with %s and never echoes its message", (_what, e) => {
    const mapped = mapError(e);
    expect(mapped.body.error.code).toBe("NOT_FOUND");
    expect(mapped.status).toBe(404);
    expect(mapped.body.error.message).not.toContain("secret");
  });
});

describe("mapError: a Connect error without a Coffer code", () => {
  const rows = CODE_FOR_BARE_CONNECT.map(([c, code]) => [Code[c], c, code] as const);

  it.each(rows)("Connect %s → %s with a generic message", (_name, connectCode, code) => {
    const mapped = mapError(new ConnectError("pg: relation users password=hunter2", connectCode));
    expect(mapped.status).toBe(HTTP_STATUS[code]);
    expect(mapped.body.error.code).toBe(code);
    expect(mapped.body.error.message).not.toMatch(/pg:|hunter2|relation/);
  });

  const unlisted = Object.values(Code).filter(
    (c): c is Code => typeof c === "number" && !CODE_FOR_BARE_CONNECT.some(([listed]) => listed === c),
  );

  it.each(unlisted)("Connect code %s → 500 INTERNAL_ERROR", (connectCode) => {
    expect(mapError(new ConnectError("stack at foo.ts:12", connectCode))).toEqual({
      status: 500,
      body: { error: { code: "INTERNAL_ERROR", message: "Internal error" } },
    });
  });

  it.each(["connect ECONNREFUSED 127.0.0.1:1", "read ECONNRESET", "getaddrinfo ENOTFOUND core"])(
    "a socket failure without a code (%s) → 503 UNAVAILABLE",
    (msg) => {
      const err = Object.assign(new Error(msg), { code: msg.match(/E[A-Z]+/)![0] });
      expect(mapError(err).body.error).toEqual({ code: "UNAVAILABLE", message: "The Coffer core is not reachable" });
    },
  );

  it("core not reachable → 503 UNAVAILABLE", () => {
    const mapped = mapError(new ConnectError("connect ECONNREFUSED 127.0.0.1:1", Code.Unavailable));
    expect(mapped).toEqual({
      status: 503,
      body: { error: { code: "UNAVAILABLE", message: "The Coffer core is not reachable" } },
    });
  });
});

describe("mapError: a call that did not get an answer", () => {
  it("a deadline that ran out → 504 UPSTREAM_TIMEOUT", () => {
    expect(mapError(new ConnectError("the operation timed out", Code.DeadlineExceeded))).toEqual({
      status: 504,
      body: { error: { code: "UPSTREAM_TIMEOUT", message: "The Coffer core did not answer in time" } },
    });
  });

  // What connect-node raised when the core was SIGKILLed under a call (reproducer H): aborted, ECONNRESET.
  it.each([
    ["a reset socket", Code.Aborted, Object.assign(new Error("read ECONNRESET"), { code: "ECONNRESET" })],
    ["a destroyed stream", Code.Aborted, Object.assign(new Error("destroyed"), { code: "ERR_STREAM_DESTROYED" })],
    ["an HTTP/2 session error", Code.Internal, Object.assign(new Error("x"), { code: "ERR_HTTP2_SESSION_ERROR" })],
    ["a premature close", Code.Unknown, Object.assign(new Error("x"), { code: "ERR_STREAM_PREMATURE_CLOSE" })],
  ])("a core that died under the call (%s) → 503 UNAVAILABLE", (_what, code, cause) => {
    const e = new ConnectError(cause.message, code, undefined, undefined, cause);
    expect(mapError(e).body.error).toEqual({ code: "UNAVAILABLE", message: "The Coffer core is not reachable" });
  });

  it.each(["CANCEL (0x8)", "INTERNAL_ERROR (0x2)", "PROTOCOL_ERROR (0x1)"])(
    "a stream the core reset (%s) → 503 UNAVAILABLE",
    (rst) => {
      const code = rst.startsWith("CANCEL") ? Code.Canceled : Code.Internal;
      const e = new ConnectError(`http/2 stream closed with error code ${rst}`, code);
      expect(mapError(e).body.error.code).toBe("UNAVAILABLE");
    },
  );

  it("a Coffer code from the core wins over the transport's view (UNAVAILABLE for its database)", () => {
    const e = toConnectError("UNAVAILABLE", "The database is not reachable");
    expect(mapError(e).body.error).toEqual({ code: "UNAVAILABLE", message: "The database is not reachable" });
  });
});

describe("mapAndLog: the gateway logs the 5xx it produced", () => {
  it("a failure of our own (no Coffer code) → logged as an error with the cause", () => {
    const log = recordingLog();
    const err = new TypeError("boom");
    expect(mapAndLog(err, log).status).toBe(500);
    expect(log.entries).toEqual([
      { level: "error", obj: { err, code: "INTERNAL_ERROR" }, msg: "unexpected failure calling the core" },
    ]);
  });

  it.each([
    ["UNAVAILABLE", new ConnectError("connect ECONNREFUSED 127.0.0.1:1", Code.Unavailable), "core unreachable"],
    ["UPSTREAM_TIMEOUT", new ConnectError("timed out", Code.DeadlineExceeded), "the core did not answer in time"],
  ])("a core out of reach (%s) → logged as a warning", (code, err, msg) => {
    const log = recordingLog();
    mapAndLog(err, log);
    expect(log.entries).toEqual([{ level: "warn", obj: { err, code }, msg }]);
  });

  it.each(["INTERNAL_ERROR", "UNAVAILABLE", "NOT_FOUND", "VALIDATION_ERROR"] as const)(
    "the core's own verdict (%s) → not logged here (the core logged it)",
    (code) => {
      const log = recordingLog();
      expect(mapAndLog(toConnectError(code, "m"), log).body.error.code).toBe(code);
      expect(log.entries).toEqual([]);
    },
  );
});

describe("mapError: anything else", () => {
  it.each([
    ["a plain Error", new Error("TypeError at /work/main/services/x.ts:10 select * from api_keys")],
    ["a TypeError", new TypeError("Cannot read properties of undefined (reading 'id')")],
    ["a string", "boom"],
    ["undefined", undefined],
    ["an object", { stack: "secret stack" }],
    // A bug whose message merely mentions "connect" is still ours, not an outage.
    ["an Error mentioning connections", new TypeError("Cannot read properties of undefined (reading 'connectionId')")],
    ["an Error mentioning connect", new Error("failed to connect the dots")],
  ])("%s → 500 INTERNAL_ERROR with no internals", (_what, e) => {
    const mapped = mapError(e);
    expect(mapped).toEqual({ status: 500, body: { error: { code: "INTERNAL_ERROR", message: "Internal error" } } });
  });
});

describe("the code table", () => {
  it.each(Object.entries(ERROR_CODES))("%s is UPPER_SNAKE and maps to an HTTP error status", (code, v) => {
    expect(code).toMatch(/^[A-Z][A-Z0-9]*(_[A-Z0-9]+)*$/);
    expect(v.http).toBeGreaterThanOrEqual(400);
    expect(v.http).toBeLessThan(600);
  });

  // The documented statuses (docs/errors.md); a change would break clients.
  it.each(Object.entries(HTTP_STATUS) as [ErrorCode, number][])("%s is HTTP %i", (code, status) => {
    expect(ERROR_CODES[code].http).toBe(status);
  });

  it("every code of the app has a documented status", () => {
    expect(Object.keys(HTTP_STATUS).sort()).toEqual(Object.keys(ERROR_CODES).sort());
  });

  // The documented Connect codes (docs/errors.md), which gRPC and Connect clients branch on.
  it.each(Object.entries(CONNECT_CODE) as [ErrorCode, Code][])("%s is Connect code %i", (code, connect) => {
    expect(Code[toConnectError(code, "m").code]).toBe(Code[connect]);
  });
});
