import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { expectEnvelope, key } from "../helpers/rest.js";
import { newUser } from "../helpers/ledger.js";
import { startStack, type Stack } from "../helpers/stack.js";

let s: Stack;
let ann: { id: string; shortId: string };
let ben: { id: string; shortId: string };
beforeAll(async () => {
  s = await startStack();
  ann = await newUser(s.orm.em.fork(), "Ann");
  ben = await newUser(s.orm.em.fork(), "Ben");
});
afterAll(async () => {
  await s?.close();
});

const post = (payload: object, apiKey = s.adminKey) =>
  s.rest.inject({ method: "POST", url: "/api/v1/accounts", headers: key(apiKey), payload });
const create = async (payload: object = {}) => {
  const res = await post({ user_id: ann.shortId, name: "Cash", type: "other", iso_currency_code: "USD", ...payload });
  expect(res.statusCode).toBe(201);
  return res.json();
};

describe("accounts over REST", () => {
  it("POST creates a manual account (201): snake_case fields, short-id references, a numeric balance", async () => {
    const res = await post({
      user_id: ann.id,
      name: "Joint checking",
      type: "depository",
      subtype: "checking",
      iso_currency_code: "usd",
      mask: "4321",
      official_name: null,
      balance_current: 1234.56,
    });
    expect(res.statusCode).toBe(201);
    const a = res.json();
    expect(a).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      short_id: expect.stringMatching(/^[0-9A-Za-z]{8}$/),
      user_id: ann.shortId,
      user_name: "Ann",
      connection_id: null,
      provider: "manual",
      name: "Joint checking",
      official_name: null,
      type: "depository",
      subtype: "checking",
      mask: "4321",
      balance_current: 1234.56,
      balance_available: null,
      balance_limit: null,
      iso_currency_code: "USD",
      hidden: false,
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
    });
  });

  it("a balance given as decimal text stays exact", async () => {
    expect((await create({ balance_current: "-0.10" })).balance_current).toBe(-0.1);
    expect((await create({ balance_current: "99999999999.99" })).balance_current).toBe(99999999999.99);
  });

  it("GET /accounts lists visible accounts in an envelope; include_hidden and user_id filter", async () => {
    const visible = await create({ user_id: ben.shortId, name: "Ben visible" });
    const hidden = await create({ user_id: ben.shortId, name: "Ben hidden" });
    const patched = await s.rest.inject({
      method: "PATCH",
      url: `/api/v1/accounts/${hidden.short_id}`,
      headers: key(s.adminKey),
      payload: { hidden: true },
    });
    expect(patched.json().hidden).toBe(true);

    const list = await s.rest.inject({
      method: "GET",
      url: `/api/v1/accounts?user_id=${ben.shortId}`,
      headers: key(s.readKey),
    });
    expect(list.statusCode).toBe(200);
    expect(Object.keys(list.json())).toEqual(["accounts"]);
    expect(list.json().accounts.map((a: { id: string }) => a.id)).toEqual([visible.id]);
    const all = await s.rest.inject({
      method: "GET",
      url: `/api/v1/accounts?user_id=${ben.id}&include_hidden=true`,
      headers: key(s.readKey),
    });
    expect(all.json().accounts.map((a: { name: string }) => a.name)).toEqual(["Ben hidden", "Ben visible"]);
  });

  it("GET and PATCH /accounts/:id by UUID or short id; PATCH renames and reassigns", async () => {
    const a = await create({ name: "Before" });
    const got = await s.rest.inject({ method: "GET", url: `/api/v1/accounts/${a.id}`, headers: key(s.readKey) });
    expect(got.json()).toEqual(a);
    const res = await s.rest.inject({
      method: "PATCH",
      url: `/api/v1/accounts/${a.short_id}`,
      headers: key(s.adminKey),
      payload: { name: "After", user_id: ben.shortId, hidden: false },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: a.id, name: "After", user_id: ben.shortId, user_name: "Ben" });
  });

  it.each(["zzzzzzzz", "abc", "00000000-0000-0000-0000-000000000000", "%27%20OR%201%3D1--", "x".repeat(300)])(
    "GET and PATCH /api/v1/accounts/%s → 404 NOT_FOUND, never 500",
    async (id) => {
      expectEnvelope(
        await s.rest.inject({ method: "GET", url: `/api/v1/accounts/${id}`, headers: key(s.adminKey) }),
        "NOT_FOUND",
      );
      expectEnvelope(
        await s.rest.inject({
          method: "PATCH",
          url: `/api/v1/accounts/${id}`,
          headers: key(s.adminKey),
          payload: { name: "x" },
        }),
        "NOT_FOUND",
      );
    },
  );

  it("an unknown owner → 404 NOT_FOUND (list filter, create and reassign)", async () => {
    expectEnvelope(
      await s.rest.inject({ method: "GET", url: "/api/v1/accounts?user_id=zzzzzzzz", headers: key(s.adminKey) }),
      "NOT_FOUND",
      "User not found",
    );
    expectEnvelope(
      await post({ user_id: "zzzzzzzz", name: "X", type: "other", iso_currency_code: "USD" }),
      "NOT_FOUND",
      "User not found",
    );
    const a = await create();
    expectEnvelope(
      await s.rest.inject({
        method: "PATCH",
        url: `/api/v1/accounts/${a.id}`,
        headers: key(s.adminKey),
        payload: { user_id: "zzzzzzzz" },
      }),
      "NOT_FOUND",
    );
  });

  it.each([
    ["missing name", "name", { user_id: "u", type: "other", iso_currency_code: "USD" }],
    ["missing user_id", "user_id", { name: "x", type: "other", iso_currency_code: "USD" }],
    ["an unknown type", "type", { user_id: "u", name: "x", type: "crypto", iso_currency_code: "USD" }],
    ["a 4-letter currency", "iso_currency_code", { user_id: "u", name: "x", type: "other", iso_currency_code: "USDX" }],
    [
      "a boolean balance",
      "balance_current",
      { user_id: "u", name: "x", type: "other", iso_currency_code: "USD", balance_current: true },
    ],
    ["an unknown field", "color", { user_id: "u", name: "x", type: "other", iso_currency_code: "USD", color: "red" }],
  ])("POST with %s → 400 INVALID_PARAMETER naming %s", async (_what, param, payload) => {
    expect(expectEnvelope(await post(payload), "INVALID_PARAMETER").message).toContain(param);
  });

  it.each([
    ["a 3-decimal balance", { balance_current: 1.005 }],
    ["a text balance", { balance_current: "a lot" }],
    ["a bad mask", { mask: "12 34" }],
    ["a lowercase-only bad currency", { iso_currency_code: "u$d" }],
  ])("POST with %s → 400 VALIDATION_ERROR", async (_what, extra) => {
    expectEnvelope(
      await post({ user_id: ann.id, name: "x", type: "other", iso_currency_code: "USD", ...extra }),
      "VALIDATION_ERROR",
    );
  });

  it("unknown query parameters and wrong types → 400 INVALID_PARAMETER", async () => {
    const a = expectEnvelope(
      await s.rest.inject({ method: "GET", url: "/api/v1/accounts?limit=5", headers: key(s.adminKey) }),
      "INVALID_PARAMETER",
    );
    expect(a.message).toContain("limit");
    const b = expectEnvelope(
      await s.rest.inject({ method: "GET", url: "/api/v1/accounts?include_hidden=maybe", headers: key(s.adminKey) }),
      "INVALID_PARAMETER",
    );
    expect(b.message).toContain("include_hidden");
    const acc = await create();
    const c = expectEnvelope(
      await s.rest.inject({
        method: "PATCH",
        url: `/api/v1/accounts/${acc.id}`,
        headers: key(s.adminKey),
        payload: { hidden: "yes" },
      }),
      "INVALID_PARAMETER",
    );
    expect(c.message).toContain("hidden");
  });

  it("writes need full_access → 403 INSUFFICIENT_SCOPE; reads work with read_only", async () => {
    expectEnvelope(
      await post({ user_id: ann.id, name: "x", type: "other", iso_currency_code: "USD" }, s.readKey),
      "INSUFFICIENT_SCOPE",
    );
    const a = await create();
    expectEnvelope(
      await s.rest.inject({
        method: "PATCH",
        url: `/api/v1/accounts/${a.id}`,
        headers: key(s.readKey),
        payload: { name: "x" },
      }),
      "INSUFFICIENT_SCOPE",
    );
    expect(
      (await s.rest.inject({ method: "GET", url: `/api/v1/accounts/${a.id}`, headers: key(s.readKey) })).statusCode,
    ).toBe(200);
    expectEnvelope(await s.rest.inject({ method: "GET", url: "/api/v1/accounts" }), "MISSING_CREDENTIALS");
  });
});
