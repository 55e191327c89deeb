import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { query } from "../../services/db/sql.js";
import { newAccount, newTransactions, newUser } from "../helpers/ledger.js";
import { expectEnvelope, key } from "../helpers/rest.js";
import { startStack, type Stack } from "../helpers/stack.js";
import { databaseChecksum } from "../helpers/state.js";

// The hardening issue's reproducers of items 2, 6 and 7 over REST, one by one
// (text-rule-routes.test.ts sweeps every route; these pin the exact answers).

let s: Stack;
let ann: { id: string; shortId: string };
let tx: string;

type Method = "GET" | "POST" | "PUT" | "PATCH";
const call = (method: Method, url: string, payload?: unknown, k: string | null = s.adminKey) =>
  s.rest.inject({
    method,
    url,
    headers: {
      ...(k === null ? {} : key(k)),
      ...(typeof payload === "string" ? { "content-type": "application/json" } : {}),
    },
    ...(payload === undefined ? {} : { payload: payload as string }),
  });

beforeAll(async () => {
  s = await startStack();
  const em = s.orm.em.fork();
  ann = await newUser(em, "Ann");
  const account = await newAccount(em, ann.id, { name: "Joint" });
  [tx] = await newTransactions(em, account.id, [{ providerName: "TEA BAR", date: "2026-01-10" }]);
});
afterAll(async () => {
  await s?.close();
});

describe("item 2: NUL never reaches PostgreSQL", () => {
  it("POST /api/v1/auth/login with a NUL in the email (no key) → 400 VALIDATION_ERROR naming email", async () => {
    const res = await call("POST", "/api/v1/auth/login", { email: "a\u0000@example.com", password: "x" }, null);
    expectEnvelope(res, "VALIDATION_ERROR", /^email must not contain control characters/);
  });

  it("GET /api/v1/webhook-events?provider=a%00b → 400 INVALID_PARAMETER naming provider", async () => {
    expectEnvelope(
      await call("GET", "/api/v1/webhook-events?provider=pl%00aid"),
      "INVALID_PARAMETER",
      /^provider must not contain control characters/,
    );
  });

  it("POST and PATCH /api/v1/series with a NUL in the name → 400, nothing stored", async () => {
    const before = await databaseChecksum(s.orm.em.fork());
    const body = { name: "a\u0000b", iso_currency_code: "USD", expected_amount: 5 };
    expectEnvelope(await call("POST", "/api/v1/series", body), "VALIDATION_ERROR", /^name must not contain/);
    expect(await databaseChecksum(s.orm.em.fork())).toBe(before);
  });
});

describe("item 6: control characters do not get around the rule", () => {
  it("a BEL in a series name → 400 (it was stored)", async () => {
    const res = await call("POST", "/api/v1/series", {
      name: "Gym\u0007",
      iso_currency_code: "USD",
      expected_amount: 5,
    });
    expectEnvelope(
      res,
      "VALIDATION_ERROR",
      "name must not contain control characters other than tab (it is one line); found U+0007",
    );
  });

  it("an ESC in a rule's set_metadata value → 400 naming the action and the value", async () => {
    const res = await call("POST", "/api/v1/rules", {
      name: "tea",
      conditions: { field: "provider_name", op: "contains", value: "tea" },
      actions: [{ type: "set_metadata", key: "k", value: "\u001b[31mred" }],
    });
    expectEnvelope(
      res,
      "VALIDATION_ERROR",
      "actions[0]: value must not contain control characters other than tab, line feed and carriage return; " +
        "found U+001B",
    );
  });

  it("a BEL in a CSV account_name → 400 naming account_name; no connection made", async () => {
    const res = await call("POST", "/api/v1/connections", {
      provider: "csv",
      user_id: ann.shortId,
      credentials: {
        csv: "Date,Amount,Description\n2026-01-05,-1.00,tea\n",
        column_mapping: { date: "Date", amount: "Amount", description: "Description" },
        account_name: "Giro\u0007konto",
        iso_currency_code: "EUR",
      },
    });
    expectEnvelope(res, "VALIDATION_ERROR", /^account_name must not contain control characters .*U\+0007$/);
    expect(await query(s.orm.em.fork(), `select id from connections`)).toEqual([]);
  });

  it("a tab is allowed in every single-line name: a series and a rule alike", async () => {
    const series = await call("POST", "/api/v1/series", {
      name: "Gym\tclub",
      iso_currency_code: "USD",
      expected_amount: 5,
    });
    expect(series.statusCode, series.body).toBe(201);
    const rule = await call("POST", "/api/v1/rules", {
      name: "tea\ttime",
      conditions: {},
      actions: [{ type: "flag" }],
    });
    expect(rule.statusCode, rule.body).toBe(201);
  });
});

describe("item 7: lone surrogates, currencies, long numbers", () => {
  it('a lone surrogate in JSON ("x\\ud800y") → 400 VALIDATION_ERROR naming the field, not U+FFFD', async () => {
    const before = await databaseChecksum(s.orm.em.fork());
    const res = await call("POST", "/api/v1/tags", '{"slug":"trip","display_name":"x\\ud800y"}');
    expectEnvelope(res, "VALIDATION_ERROR", "display_name must be valid Unicode text; found a lone surrogate");
    const nested = await call("PATCH", `/api/v1/transactions/${tx}/metadata`, '{"trip":{"days":["mon","\\udc00"]}}');
    expectEnvelope(nested, "VALIDATION_ERROR", "trip.days[1] must be valid Unicode text; found a lone surrogate");
    expect(await databaseChecksum(s.orm.em.fork())).toBe(before);
  });

  it("a surrogate pair (an emoji) is stored as it is", async () => {
    const res = await call("POST", "/api/v1/tags", '{"slug":"fun","display_name":"fun \\ud83c\\udf89"}');
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json<{ display_name: string }>().display_name).toBe("fun 🎉");
  });

  it.each([
    ["POST", "/api/v1/series", { name: "Gym", iso_currency_code: "NaN", expected_amount: 5 }],
    ["POST", "/api/v1/series", { name: "Gym", iso_currency_code: "XYZ", expected_amount: 5 }],
    ["POST", "/api/v1/accounts", { user_id: "", name: "Cash", type: "other", iso_currency_code: "NaN" }],
  ] as const)("%s %s with %j → 400 naming iso_currency_code", async (method, url, body) => {
    const payload = "user_id" in body ? { ...body, user_id: ann.shortId } : body;
    expectEnvelope(
      await call(method, url, payload),
      "VALIDATION_ERROR",
      "iso_currency_code must be an ISO 4217 currency code",
    );
  });

  it("ISO 4217 codes beyond the usual ones are accepted (a metal, lower case)", async () => {
    const res = await call("POST", "/api/v1/series", { name: "Gold", iso_currency_code: "xau", expected_amount: 5 });
    expect(res.statusCode, res.body).toBe(201);
    expect(res.json<{ iso_currency_code: string }>().iso_currency_code).toBe("XAU");
  });

  it("a 40-digit metadata number → 400 naming it; as a string it is kept exactly", async () => {
    const digits = "1234567890123456789012345678901234567890";
    const res = await call("PATCH", `/api/v1/transactions/${tx}/metadata`, `{"order":{"id":${digits}}}`);
    expectEnvelope(
      res,
      "VALIDATION_ERROR",
      "metadata.order.id has more than 15 significant digits, " +
        "more than a JSON number keeps exactly; send it as a string",
    );
    const ok = await call(
      "PATCH",
      `/api/v1/transactions/${tx}/metadata`,
      `{"order":{"id":"${digits}","n":123456789012345}}`,
    );
    expect(ok.statusCode, ok.body).toBe(200);
    expect(ok.json<{ metadata: unknown }>().metadata).toEqual({ order: { id: digits, n: 123456789012345 } });
  });

  it("a rule's set_metadata number beyond 15 significant digits → 400 as well", async () => {
    const res = await call(
      "POST",
      "/api/v1/rules",
      '{"name":"n","conditions":{},"actions":[{"type":"set_metadata","key":"k","value":12345678901234567}]}',
    );
    expectEnvelope(res, "VALIDATION_ERROR", /^actions\[0\]: value has more than 15 significant digits/);
  });
});
