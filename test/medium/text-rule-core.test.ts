import { toBinary, create } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { valueOf } from "../../gateways/shared/rules.js";
import { CreateSeriesRequestSchema } from "../../gen/coffer/v1/series_pb.js";
import { expectCoreError, withKey } from "../helpers/core-error.js";
import { h2Request } from "../helpers/h2.js";
import { startStack, type Stack } from "../helpers/stack.js";
import { databaseChecksum } from "../helpers/state.js";

// The core enforces the text rule itself: a gRPC or Connect caller reaches it
// without a gateway in front. Control characters are refused naming the field;
// a lone surrogate in Connect JSON, like invalid UTF-8 in a protobuf string,
// is not a readable request at all (INVALID_BODY naming the field).

let s: Stack;
const CREATE_SERIES = "/coffer.v1.SeriesService/CreateSeries";

beforeAll(async () => {
  s = await startStack();
});
afterAll(async () => {
  await s?.close();
});

const series = (name: string) => ({ name, isoCurrencyCode: "USD", expectedAmount: "30" });

describe("control characters over Connect", () => {
  it.each([
    ["NUL", "a\u0000b", "U+0000"],
    ["BEL", "a\u0007b", "U+0007"],
    ["ESC", "a\u001bb", "U+001B"],
  ])("CreateSeries name with %s → VALIDATION_ERROR naming name", async (_what, name, codePoint) => {
    const before = await databaseChecksum(s.orm.em.fork());
    const f = await expectCoreError(s.core.series.createSeries(series(name), withKey(s.adminKey)), "VALIDATION_ERROR");
    expect(f.message).toBe(
      `name must not contain control characters other than tab (it is one line); found ${codePoint}`,
    );
    expect(await databaseChecksum(s.orm.em.fork())).toBe(before);
  });

  it("CreateRule with a BEL in a set_metadata value or a NUL in a condition value → VALIDATION_ERROR", async () => {
    const rule = (value: string, metadata: string) => ({
      name: "r",
      conditions: valueOf({ field: "provider_name", op: "contains", value }),
      actions: valueOf([{ type: "set_metadata", key: "k", value: metadata }]),
    });
    const a = await expectCoreError(
      s.core.rules.createRule(rule("ok", "a\u0007"), withKey(s.adminKey)),
      "VALIDATION_ERROR",
    );
    expect(a.message).toMatch(/^actions\[0\]: value must not contain control characters .*U\+0007$/);
    const b = await expectCoreError(
      s.core.rules.createRule(rule("a\u0000", "ok"), withKey(s.adminKey)),
      "VALIDATION_ERROR",
    );
    expect(b.message).toMatch(/value must not contain control characters .*U\+0000$/);
  });

  it("ListWebhookEvents provider with a NUL → INVALID_PARAMETER naming provider", async () => {
    const f = await expectCoreError(
      s.core.webhooks.listWebhookEvents({ provider: "pl\u0000aid" }, withKey(s.adminKey)),
      "INVALID_PARAMETER",
    );
    expect(f.message).toMatch(/^provider must not contain control characters/);
  });

  it("CreateSeries with iso_currency_code NaN → VALIDATION_ERROR (not stored as NAN)", async () => {
    const f = await expectCoreError(
      s.core.series.createSeries({ ...series("Gym"), isoCurrencyCode: "NaN" }, withKey(s.adminKey)),
      "VALIDATION_ERROR",
    );
    expect(f.message).toBe("iso_currency_code must be an ISO 4217 currency code");
  });
});

describe("a lone surrogate over Connect JSON", () => {
  it('{"name": "x\\ud800y"} → 400 invalid_argument, INVALID_BODY naming the field; nothing stored', async () => {
    const before = await databaseChecksum(s.orm.em.fork());
    const res = await h2Request(s.coreUrl, {
      path: CREATE_SERIES,
      headers: { "content-type": "application/json", "x-api-key": s.adminKey },
      body: Buffer.from('{"name":"x\\ud800y","isoCurrencyCode":"USD","expectedAmount":"30"}'),
    });
    expect(res.status).toBe(400);
    expect(res.headers["coffer-error-code"]).toBe("INVALID_BODY");
    const body = JSON.parse(res.body.toString()) as { code: string; message: string };
    expect(body.code).toBe("invalid_argument");
    // protobuf-es checks every proto3 string for valid UTF-8 while decoding, before any Coffer code runs.
    expect(body.message).toMatch(/CreateSeriesRequest\.name .*invalid UTF8/);
    expect(await databaseChecksum(s.orm.em.fork())).toBe(before);
  });
});

describe("invalid UTF-8 in a protobuf string", () => {
  it("CreateSeries whose name holds the bytes of an encoded surrogate → INVALID_BODY", async () => {
    const bytes = Buffer.from(toBinary(CreateSeriesRequestSchema, create(CreateSeriesRequestSchema, series("ABCDE"))));
    const at = bytes.indexOf("ABCDE");
    Buffer.from([0x78, 0xed, 0xa0, 0x80, 0x79]).copy(bytes, at); // "x", U+D800 as CESU-8, "y"
    const res = await h2Request(s.coreUrl, {
      path: CREATE_SERIES,
      headers: { "content-type": "application/proto", "x-api-key": s.adminKey },
      body: bytes,
    });
    expect(res.status).toBe(400);
    expect(res.headers["coffer-error-code"]).toBe("INVALID_BODY");
  });
});
