import { describe, expect, it } from "vitest";
import { clientErrorOf } from "../../gateways/shared/http-app.js";

/** Node's parse errors carry a code, llhttp's fixed reason, and the packet being parsed. */
const parseError = (code: string, reason: string, packet?: string) =>
  Object.assign(new Error(`Parse Error: ${reason}`), {
    code,
    reason,
    ...(packet === undefined ? {} : { rawPacket: Buffer.from(packet, "latin1") }),
  });

describe("clientErrorOf: Node's parse errors as envelopes", () => {
  it("a request line past the limit (the packet begins the request) → 414 URI_TOO_LONG", () => {
    const noLineEnd = parseError("HPE_HEADER_OVERFLOW", "Header overflow", `GET /${"a".repeat(65_000)}`);
    const lateLineEnd = parseError("HPE_HEADER_OVERFLOW", "Header overflow", `GET /${"a".repeat(17_000)} HTTP/1.1\r\n`);
    for (const e of [noLineEnd, lateLineEnd]) expect(clientErrorOf(e).body.error.code).toBe("URI_TOO_LONG");
  });

  it.each([
    ["a short request line, then big headers", `GET / HTTP/1.1\r\nX-Big: ${"a".repeat(20_000)}`],
    ["a packet that does not begin the request", "a".repeat(2_000)],
    ["no packet at all", undefined],
  ])("%s → 431 HEADERS_TOO_LARGE", (_what, packet) => {
    expect(clientErrorOf(parseError("HPE_HEADER_OVERFLOW", "Header overflow", packet))).toEqual({
      status: 431,
      body: { error: { code: "HEADERS_TOO_LARGE", message: "The request headers are larger than 16 KiB" } },
    });
  });

  it("any other parse error → 400 INVALID_REQUEST with llhttp's reason, never the request's bytes", () => {
    expect(clientErrorOf(parseError("HPE_INVALID_METHOD", "Invalid method encountered", "FOO /secret"))).toEqual({
      status: 400,
      body: {
        error: { code: "INVALID_REQUEST", message: "The request is not valid HTTP/1.1: Invalid method encountered" },
      },
    });
  });

  it("a request that did not arrive in time → 408 REQUEST_TIMEOUT", () => {
    const e = Object.assign(new Error("Request timeout"), { code: "ERR_HTTP_REQUEST_TIMEOUT" });
    expect(clientErrorOf(e).status).toBe(408);
  });
});
