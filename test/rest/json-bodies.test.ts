import type { AddressInfo } from "node:net";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { query } from "../../services/db/sql.js";
import { newAccount, newTransactions, newUser } from "../helpers/ledger.js";
import { expectEnvelope, key } from "../helpers/rest.js";
import { startStack, type Stack } from "../helpers/stack.js";

/** How both gateways read a JSON body: UTF-8 only, 32 levels at most, finite numbers, objects where objects go. */
let s: Stack;
let tx: string;
let mcpUrl: string;

beforeAll(async () => {
  s = await startStack();
  const em = s.orm.em.fork();
  const user = await newUser(em, "Ann");
  const account = await newAccount(em, user.id);
  [tx] = await newTransactions(em, account.id, [{}]);
  await s.mcp.listen({ port: 0, host: "127.0.0.1" });
  mcpUrl = `http://127.0.0.1:${(s.mcp.server.address() as AddressInfo).port}/mcp`;
});
afterAll(async () => {
  await s?.close();
});

const json = { "content-type": "application/json" };
/** {"a":{"a":…1…}} with `levels` objects in all. */
const nested = (levels: number): unknown => (levels === 0 ? 1 : { a: nested(levels - 1) });
const userNames = async () =>
  (await query<{ name: string }>(s.orm.em.fork(), `select name from users order by name`)).map((r) => r.name);

describe("REST: a JSON body", () => {
  it.each([
    ["a lone continuation byte", [0x80]],
    ["an overlong encoding of '/'", [0xc0, 0xaf]],
    ["a truncated sequence", [0xe2, 0x82]],
    ["a UTF-16 surrogate encoded as UTF-8", [0xed, 0xa0, 0x80]],
    ["0xFF", [0xff, 0xfe]],
  ])("with invalid UTF-8 (%s) in a string → 400 INVALID_BODY, nothing stored", async (_what, bad) => {
    const payload = Buffer.concat([Buffer.from('{"name":"A'), Buffer.from(bad), Buffer.from('nn"}')]);
    const before = await userNames();
    const res = await s.rest.inject({
      method: "POST",
      url: "/api/v1/users",
      headers: { ...key(s.adminKey), ...json },
      payload,
    });
    expectEnvelope(res, "INVALID_BODY", "The request body is not valid UTF-8");
    expect(await userNames()).toEqual(before);
  });

  it("in valid UTF-8 of every width is stored as sent", async () => {
    const name = "Zoë 李 🙂";
    const res = await s.rest.inject({
      method: "POST",
      url: "/api/v1/users",
      headers: { ...key(s.adminKey), ...json },
      payload: Buffer.from(JSON.stringify({ name }), "utf8"),
    });
    expect(res.statusCode).toBe(201);
    expect(res.json().name).toBe(name);
  });

  it("nesting metadata 50 levels deep → 400 INVALID_BODY, not 500 (reproducer E)", async () => {
    const res = await s.rest.inject({
      method: "PUT",
      url: `/api/v1/transactions/${tx}/metadata`,
      headers: key(s.adminKey),
      payload: { x: nested(50) },
    });
    expectEnvelope(res, "INVALID_BODY", "The request body nests objects and arrays deeper than 32 levels");
  });

  it("nesting exactly 32 levels (the body included) is read, and the core judges it", async () => {
    const res = await s.rest.inject({
      method: "PUT",
      url: `/api/v1/transactions/${tx}/metadata`,
      headers: key(s.adminKey),
      payload: { x: nested(31) },
    });
    // The gateway passes it on; whatever the core's rule for metadata, the answer is not a server error.
    expect(res.statusCode).toBeLessThan(500);
    expect(res.body).not.toContain("deeper than 32 levels");
    const deeper = await s.rest.inject({
      method: "PUT",
      url: `/api/v1/transactions/${tx}/metadata`,
      headers: key(s.adminKey),
      payload: { x: nested(32) },
    });
    expectEnvelope(deeper, "INVALID_BODY", /deeper than 32 levels/);
  });

  it("counts brackets inside strings as text, not nesting", async () => {
    const res = await s.rest.inject({
      method: "PUT",
      url: `/api/v1/transactions/${tx}/metadata`,
      headers: key(s.adminKey),
      payload: { note: `${"[{".repeat(100)} \\" ${"}]".repeat(100)}` },
    });
    expect(res.statusCode).toBe(200);
  });

  it.each(["1e400", "-1e400"])("with the number %s (no double holds it) → 400 INVALID_BODY", async (n) => {
    const res = await s.rest.inject({
      method: "PUT",
      url: `/api/v1/transactions/${tx}/metadata`,
      headers: { ...key(s.adminKey), ...json },
      payload: `{"amount":${n}}`,
    });
    expectEnvelope(res, "INVALID_BODY", "The request body holds a number too large to represent at amount");
  });

  it("with a typed number field of 1e400 → 400, never 500", async () => {
    const res = await s.rest.inject({
      method: "POST",
      url: "/api/v1/accounts",
      headers: { ...key(s.adminKey), ...json },
      payload: '{"user_id":"x","name":"A","type":"depository","iso_currency_code":"USD","balance_current":1e400}',
    });
    expectEnvelope(res, "INVALID_BODY");
  });

  it.each([
    ['{"__proto__":{"admin":true},"name":"Ann"}', "a __proto__ key"],
    ['{"constructor":{"prototype":{"admin":true}},"name":"Ann"}', "constructor.prototype"],
  ])("%s (%s) → 400 INVALID_BODY", async (payload) => {
    const res = await s.rest.inject({
      method: "POST",
      url: "/api/v1/users",
      headers: { ...key(s.adminKey), ...json },
      payload,
    });
    expectEnvelope(res, "INVALID_BODY");
  });

  it("null to device-code create, which takes an optional body → 400 INVALID_BODY", async () => {
    const res = await s.rest.inject({
      method: "POST",
      url: "/api/v1/auth/device-code",
      headers: json,
      payload: "null",
    });
    expectEnvelope(res, "INVALID_BODY", "The request body must be a JSON object");
  });

  it.each(["[]", '"x"', "7", "true"])("%s to device-code create → 400 INVALID_BODY", async (payload) => {
    const res = await s.rest.inject({ method: "POST", url: "/api/v1/auth/device-code", headers: json, payload });
    expectEnvelope(res, "INVALID_BODY");
  });

  it("left out entirely, device-code create still works", async () => {
    const res = await s.rest.inject({ method: "POST", url: "/api/v1/auth/device-code" });
    expect(res.statusCode).toBe(201);
  });

  it.each([
    ["text/plain", "Ann"],
    ["text/plain; charset=utf-8", '{"name":"Ann"}'],
    ["application/octet-stream", '{"name":"Ann"}'],
    ["multipart/form-data; boundary=x", "--x\r\n\r\nAnn\r\n--x--"],
    ["application/jsonx", '{"name":"Ann"}'],
  ])("sent as %s → 415 UNSUPPORTED_MEDIA_TYPE", async (type, payload) => {
    const res = await s.rest.inject({
      method: "POST",
      url: "/api/v1/users",
      headers: { ...key(s.adminKey), "content-type": type },
      payload,
    });
    expectEnvelope(res, "UNSUPPORTED_MEDIA_TYPE", "Send the request body as application/json");
  });

  it("without a Content-Type → 415 UNSUPPORTED_MEDIA_TYPE", async () => {
    const res = await s.rest.inject({ method: "POST", url: "/api/v1/users", headers: key(s.adminKey), payload: "x" });
    // light-my-request adds no Content-Type for a string payload.
    expectEnvelope(res, "UNSUPPORTED_MEDIA_TYPE");
  });

  it("application/json with a charset parameter is read", async () => {
    const res = await s.rest.inject({
      method: "POST",
      url: "/api/v1/users",
      headers: { ...key(s.adminKey), "content-type": "application/json; charset=utf-8" },
      payload: '{"name":"Charset"}',
    });
    expect(res.statusCode).toBe(201);
  });
});

describe("MCP: a JSON body", () => {
  const post = (body: BodyInit, type = "application/json") =>
    fetch(mcpUrl, {
      method: "POST",
      headers: { "content-type": type, accept: "application/json, text/event-stream", "x-api-key": s.readKey },
      body,
    });
  const envelopeOf = async (res: Response) => ({ status: res.status, body: await res.json() });

  it.each(["null", "42", '"initialize"'])("%s, which is no JSON-RPC message → 400 INVALID_BODY", async (body) => {
    expect(await envelopeOf(await post(body))).toMatchObject({
      status: 400,
      body: { error: { code: "INVALID_BODY" } },
    });
  });

  it("with invalid UTF-8 → 400 INVALID_BODY", async () => {
    const body = Buffer.concat([
      Buffer.from('{"jsonrpc":"2.0","id":1,"method":"ping","x":"'),
      Buffer.from([0xff]),
      Buffer.from('"}'),
    ]);
    expect(await envelopeOf(await post(body))).toEqual({
      status: 400,
      body: { error: { code: "INVALID_BODY", message: "The request body is not valid UTF-8" } },
    });
  });

  it("with tool arguments nested past 32 levels → 400 INVALID_BODY", async () => {
    const call = { jsonrpc: "2.0", id: 1, method: "tools/call", params: { name: "whoami", arguments: nested(40) } };
    expect(await envelopeOf(await post(JSON.stringify(call)))).toMatchObject({
      status: 400,
      body: { error: { code: "INVALID_BODY", message: expect.stringMatching(/deeper than 32/) } },
    });
  });

  it("sent as text/plain → 415 UNSUPPORTED_MEDIA_TYPE", async () => {
    expect(await envelopeOf(await post('{"jsonrpc":"2.0","id":1,"method":"ping"}', "text/plain"))).toEqual({
      status: 415,
      body: { error: { code: "UNSUPPORTED_MEDIA_TYPE", message: "Send the request body as application/json" } },
    });
  });
});
