import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { ErrorCode } from "../../common/errors.js";
import { HTTP_STATUS } from "../helpers/http-status.js";
import { rawRequest, type RawAnswer } from "../helpers/raw-http.js";
import { startStack, type Stack } from "../helpers/stack.js";

/**
 * What reaches a gateway's socket before any route: requests Node's HTTP
 * parser refuses, heads over its 16 KiB limit, and the few requests Node
 * would answer by itself. Raw sockets, since fetch and inject only send valid HTTP.
 */
let s: Stack;
const ports: Record<"rest" | "mcp", number> = { rest: 0, mcp: 0 };

beforeAll(async () => {
  s = await startStack();
  for (const name of ["rest", "mcp"] as const) {
    await s[name].listen({ port: 0, host: "127.0.0.1" });
    ports[name] = (s[name].server.address() as AddressInfo).port;
  }
});
afterAll(async () => {
  await s?.close();
});

function expectRawEnvelope(r: RawAnswer, code: ErrorCode, message?: RegExp) {
  expect({ status: r.status, type: r.headers["content-type"] }).toEqual({
    status: HTTP_STATUS[code],
    type: "application/json; charset=utf-8",
  });
  const body = JSON.parse(r.body) as { error: { code: string; message: string } };
  expect(Object.keys(body)).toEqual(["error"]);
  expect(Object.keys(body.error).sort()).toEqual(["code", "message"]);
  expect(body.error.code).toBe(code);
  if (message) expect(body.error.message).toMatch(message);
}

const H = "Host: localhost\r\n";
// With a key: a write presenting no credential is refused (401) before its body is read, and bodies are the point.
const JSON_CHUNKED = `${H}X-API-Key: cf_x\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n`;

/** Requests Node's parser refuses, by what is wrong with them (45 of them, as found by probing the gateways). */
const parserErrors: [string, string][] = [
  // unknown method tokens
  ["an unknown method", `FOO / HTTP/1.1\r\n${H}\r\n`],
  ["a misspelt method", `GETT /health HTTP/1.1\r\n${H}\r\n`],
  ["a lower-case method", `get /health HTTP/1.1\r\n${H}\r\n`],
  ["a mixed-case method", `GEt / HTTP/1.1\r\n${H}\r\n`],
  ["a method with a symbol", `G@T / HTTP/1.1\r\n${H}\r\n`],
  ["a method of digits", `123 / HTTP/1.1\r\n${H}\r\n`],
  ["a leading space", ` GET / HTTP/1.1\r\n${H}\r\n`],
  ["a tab after the method", `DELETE\t/ HTTP/1.1\r\n${H}\r\n`],
  ["a method alone", `GET\r\n\r\n`],
  ["the HTTP/2 preface", `PRI * HTTP/2.0\r\n\r\nSM\r\n\r\n`],
  ["a TLS handshake", "\x16\x03\x01\x02\x00\x01\x00\x01\xfc\x03\x03"],
  ["binary junk", "\x00\x01\x02\x03\r\n\r\n"],
  ["a response sent as a request", `HTTP/1.1 200 OK\r\n${H}\r\n`],
  // raw bytes in the path
  ["a control byte in the path", `GET /a\x01b HTTP/1.1\r\n${H}\r\n`],
  ["DEL in the path", `GET /a\x7fb HTTP/1.1\r\n${H}\r\n`],
  ["a raw 0xFF in the path", `GET /a\xffb HTTP/1.1\r\n${H}\r\n`],
  ["NUL in the path", `GET /\x00 HTTP/1.1\r\n${H}\r\n`],
  ["an escape sequence in the path", `GET /api/v1/users\x1b[31m HTTP/1.1\r\n${H}\r\n`],
  ["a tab in the path", `GET /a\tb HTTP/1.1\r\n${H}\r\n`],
  ["a space in the path", `GET /a b HTTP/1.1\r\n${H}\r\n`],
  ["a vertical tab in the path", `GET //\x0b HTTP/1.1\r\n${H}\r\n`],
  ["NUL in the query", `GET /?a=\x00 HTTP/1.1\r\n${H}\r\n`],
  // the version
  ["HTTP/9.9", `GET / HTTP/9.9\r\n${H}\r\n`],
  ["junk after the version", `GET / HTTP/1.1x\r\n${H}\r\n`],
  ["a space after the version", `GET / HTTP/1.1 \r\n${H}\r\n`],
  ["another protocol", `GET / FOO/1.1\r\n${H}\r\n`],
  ["a lower-case protocol", `GET / http/1.1\r\n${H}\r\n`],
  ["a version without a dot", `GET / HTTP/11\r\n${H}\r\n`],
  // headers
  ["a folded header", `GET / HTTP/1.1\r\n${H}X-A: a\r\n  folded\r\n\r\n`],
  ["a space in a header name", `GET / HTTP/1.1\r\n${H}Bad Header: x\r\n\r\n`],
  ["a space before the colon", `GET / HTTP/1.1\r\n${H}X-A : 1\r\n\r\n`],
  ["a header without a colon", `GET / HTTP/1.1\r\n${H}NoColon\r\n\r\n`],
  ["a header without a name", `GET / HTTP/1.1\r\n${H}: x\r\n\r\n`],
  ["a pseudo-header", `GET / HTTP/1.1\r\n${H}:authority: x\r\n\r\n`],
  ["NUL in a header value", `GET / HTTP/1.1\r\n${H}X-A: a\x00b\r\n\r\n`],
  ["a bare CR between headers", `GET / HTTP/1.1\r\nHost: localhost\rX-A: 1\r\n\r\n`],
  ["bare LF line ends", `GET /health HTTP/1.1\nHost: localhost\n\n`],
  // Content-Length and Transfer-Encoding
  [
    "Content-Length with Transfer-Encoding",
    `POST /api/v1/users HTTP/1.1\r\n${H}Content-Length: 5\r\nTransfer-Encoding: chunked\r\n\r\n0\r\n\r\n`,
  ],
  ["two Content-Lengths", `POST /api/v1/users HTTP/1.1\r\n${H}Content-Length: 5\r\nContent-Length: 6\r\n\r\nabcdef`],
  ["a Content-Length that is not a number", `POST /api/v1/users HTTP/1.1\r\n${H}Content-Length: abc\r\n\r\n`],
  ["a Content-Length past 2^64", `POST /api/v1/users HTTP/1.1\r\n${H}Content-Length: 99999999999999999999999\r\n\r\n`],
  ["chunked not last", `POST /api/v1/users HTTP/1.1\r\n${H}Transfer-Encoding: chunked, gzip\r\n\r\n0\r\n\r\n`],
  // bad chunks
  ["a chunk size that is not hex", `POST /api/v1/users HTTP/1.1\r\n${JSON_CHUNKED}zz\r\n{}\r\n0\r\n\r\n`],
  ["a chunk size past 2^64", `POST /api/v1/users HTTP/1.1\r\n${JSON_CHUNKED}ffffffffffffffffff\r\n{}\r\n0\r\n\r\n`],
  ["a chunk longer than its size", `POST /api/v1/users HTTP/1.1\r\n${JSON_CHUNKED}2\r\n{}}\r\n0\r\n\r\n`],
];

describe.each(["rest", "mcp"] as const)("the %s gateway, before any route", (gateway) => {
  it("refuses 45 kinds of malformed HTTP", () => {
    expect(parserErrors).toHaveLength(45);
  });

  it.each(parserErrors)("%s → 400 INVALID_REQUEST in the envelope", async (_what, bytes) => {
    const r = await rawRequest(ports[gateway], bytes);
    expectRawEnvelope(r, "INVALID_REQUEST", /^The request is not valid HTTP\/1\.1: [A-Za-z]/);
  });

  it.each([16_500, 20_000, 65_000, 100_000, 1_000_000])("a URL of %i bytes → 414 URI_TOO_LONG", async (n) => {
    const r = await rawRequest(ports[gateway], `GET /api/v1/transactions?search=${"a".repeat(n)} HTTP/1.1\r\n${H}\r\n`);
    expectRawEnvelope(r, "URI_TOO_LONG", /16 KiB/);
  });

  it.each([
    ["one header of 20 KB", `X-Big: ${"a".repeat(20_000)}\r\n`],
    ["one header of 100 KB", `X-Big: ${"a".repeat(100_000)}\r\n`],
    ["2,000 small headers", "X-A: 1234567890\r\n".repeat(2000)],
  ])("%s → 431 HEADERS_TOO_LARGE", async (_what, headers) => {
    const r = await rawRequest(ports[gateway], `GET /health HTTP/1.1\r\n${H}${headers}\r\n`);
    expectRawEnvelope(r, "HEADERS_TOO_LARGE", /16 KiB/);
  });

  it("an HTTP/1.1 request without Host → 400 INVALID_REQUEST (Node's own answer has no body)", async () => {
    const r = await rawRequest(ports[gateway], "GET /health HTTP/1.1\r\nConnection: close\r\n\r\n");
    expectRawEnvelope(r, "INVALID_REQUEST", /Host/);
  });

  it("CONNECT → 400 INVALID_REQUEST (Node would drop the connection unanswered)", async () => {
    const r = await rawRequest(ports[gateway], `CONNECT example.com:443 HTTP/1.1\r\nHost: example.com:443\r\n\r\n`);
    expectRawEnvelope(r, "INVALID_REQUEST", /CONNECT/);
  });

  it("an unknown Expect is ignored (Node would answer a bare 417)", async () => {
    const r = await rawRequest(ports[gateway], `GET /health HTTP/1.1\r\n${H}Expect: tea\r\nConnection: close\r\n\r\n`);
    expect(r.status).toBe(200);
  });

  it("a malformed request pipelined behind a good one: the good one is answered, then the envelope", async () => {
    const r = await rawRequest(ports[gateway], `GET /health HTTP/1.1\r\n${H}\r\nFOO / HTTP/1.1\r\n${H}\r\n`);
    expect(r.status).toBe(200);
    const second = r.raw.slice(r.raw.indexOf("HTTP/1.1", 1));
    expect(second).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(second).toContain('{"error":{"code":"INVALID_REQUEST"');
  });
});
