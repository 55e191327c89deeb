import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newAccount, newUser } from "../helpers/ledger.js";
import { expectEnvelope, key } from "../helpers/rest.js";
import { daysFromToday, insertCharges, monthDays } from "../helpers/series.js";
import { startStack, type Stack } from "../helpers/stack.js";

// /api/v1/series through the REST gateway in front of a real core.

let s: Stack;
let usd: string;
let eur: string;
let netflix: string[];

beforeAll(async () => {
  s = await startStack();
  const em = s.orm.em.fork();
  const user = await newUser(em);
  usd = (await newAccount(em, user.id)).id;
  eur = (await newAccount(em, user.id, { name: "Giro", currency: "EUR" })).id;
  netflix = await insertCharges(
    em,
    usd,
    monthDays(-12, -1, 5).map((date) => ({
      date,
      amount: "15.49",
      providerName: "NETFLIX.COM",
      providerMerchantName: "Netflix",
    })),
  );
});
afterAll(async () => {
  await s?.close();
});

const req = (method: "GET" | "POST" | "PATCH" | "DELETE", url: string, payload?: object, apiKey = s.adminKey) =>
  s.rest.inject({ method, url, headers: key(apiKey), payload });

let n = 0;
async function create(payload: object = {}) {
  const res = await req("POST", "/api/v1/series", {
    name: `Series ${++n}`,
    expected_amount: 10,
    iso_currency_code: "USD",
    ...payload,
  });
  expect(res.statusCode).toBe(201);
  return res.json<Record<string, unknown> & { id: string; short_id: string }>();
}

describe("series over REST", () => {
  it("POST (201) shows the series as REST JSON; GET by short id or UUID; GET the list {series}", async () => {
    const res = await req("POST", "/api/v1/series", {
      name: "Gym",
      type: "subscription",
      cadence: "monthly",
      expected_amount: 40,
      amount_tolerance: "2.50",
      iso_currency_code: "USD",
      next_expected_date: daysFromToday(3),
    });
    expect(res.statusCode).toBe(201);
    const gym = res.json<{ id: string; short_id: string }>();
    expect(gym).toEqual({
      id: expect.stringMatching(/^[0-9a-f-]{36}$/),
      short_id: expect.stringMatching(/^[0-9A-Za-z]{8}$/),
      name: "Gym",
      type: "subscription",
      cadence: "monthly",
      expected_amount: 40,
      amount_tolerance: 2.5,
      iso_currency_code: "USD",
      counterparty_id: null,
      counterparty_name: null,
      status: "active",
      last_seen_date: null,
      next_expected_date: daysFromToday(3),
      source: "manual",
      confidence: null,
      reason: null,
      transaction_count: 0,
      created_by_type: "user",
      created_by_id: expect.stringMatching(/^[0-9A-Za-z]{8}$/),
      created_by_name: "test admin",
      created_at: expect.stringMatching(/Z$/),
      updated_at: expect.stringMatching(/Z$/),
    });
    for (const id of [gym.id, gym.short_id]) {
      const one = await req("GET", `/api/v1/series/${id}`, undefined, s.readKey);
      expect(one.json()).toEqual(gym);
    }
    const list = await req("GET", "/api/v1/series?status=active&type=subscription", undefined, s.readKey);
    expect(list.json()).toEqual({ series: [gym] });
    expectEnvelope(await req("GET", "/api/v1/series/zzzzzzzz"), "NOT_FOUND");
  });

  it("PATCH changes fields (null clears the counterparty and the next date); DELETE answers 204", async () => {
    const x = await create({ next_expected_date: daysFromToday(9) });
    const res = await req("PATCH", `/api/v1/series/${x.short_id}`, {
      status: "paused",
      expected_amount: -12.3,
      next_expected_date: null,
      counterparty_id: null,
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: "paused", expected_amount: -12.3, next_expected_date: null });
    const del = await req("DELETE", `/api/v1/series/${x.id}`);
    expect(del.statusCode).toBe(204);
    expect(del.body).toBe("");
    expectEnvelope(await req("GET", `/api/v1/series/${x.id}`), "NOT_FOUND");
  });

  it.each<
    [string, "POST" | "PATCH" | "GET", string, object | undefined, "INVALID_PARAMETER" | "VALIDATION_ERROR", RegExp]
  >([
    [
      "an unknown type",
      "POST",
      "/api/v1/series",
      { name: "x", type: "hobby" },
      "INVALID_PARAMETER",
      /^type must be one of /,
    ],
    ["an unknown cadence", "POST", "/api/v1/series", { name: "x", cadence: "daily" }, "INVALID_PARAMETER", /^cadence /],
    ["an unknown status", "POST", "/api/v1/series", { name: "x", status: "gone" }, "INVALID_PARAMETER", /^status /],
    ["an unknown status filter", "GET", "/api/v1/series?status=gone", undefined, "INVALID_PARAMETER", /^status /],
    ["an unknown type filter", "GET", "/api/v1/series?type=hobby", undefined, "INVALID_PARAMETER", /^type /],
    [
      "a tolerance below zero",
      "POST",
      "/api/v1/series",
      { name: "x", amount_tolerance: -1, expected_amount: 1, iso_currency_code: "USD" },
      "VALIDATION_ERROR",
      /^amount_tolerance must not be negative$/,
    ],
    [
      "more than 500 ids",
      "POST",
      "/api/v1/series",
      { name: "x", transaction_ids: Array.from({ length: 501 }, () => "zzzzzzzz") },
      "INVALID_PARAMETER",
      /^transaction_ids /,
    ],
    ["an unknown field", "POST", "/api/v1/series", { name: "x", colour: "red" }, "INVALID_PARAMETER", /colour/],
    ["days outside 1-366", "GET", "/api/v1/series/upcoming?days=400", undefined, "INVALID_PARAMETER", /^days /],
    [
      "a min_confidence above 1",
      "POST",
      "/api/v1/series/detect",
      { min_confidence: 2 },
      "INVALID_PARAMETER",
      /^min_confidence /,
    ],
  ])("%s is a 400 naming the field", async (_what, method, url, payload, code, message) => {
    expectEnvelope(await req(method, url, payload), code, message);
  });

  it("a currency that does not match the series' transactions is a 400 naming the field", async () => {
    const [euro] = await insertCharges(s.orm.em.fork(), eur, [
      { date: "2026-01-02", amount: "9.00", isoCurrencyCode: "EUR", providerName: "X" },
    ]);
    expectEnvelope(
      await req("POST", "/api/v1/series", { name: "x", iso_currency_code: "USD", transaction_ids: [euro] }),
      "VALIDATION_ERROR",
      /^iso_currency_code: transaction "\w{8}" is in EUR, the series in USD$/,
    );
    const x = await create();
    expectEnvelope(
      await req("POST", `/api/v1/series/${x.id}/transactions`, { add: [euro] }),
      "VALIDATION_ERROR",
      /^add: transaction "\w{8}" is in EUR, the series in USD$/,
    );
    const held = await create({ iso_currency_code: "EUR", transaction_ids: [euro] });
    expectEnvelope(
      await req("PATCH", `/api/v1/series/${held.id}`, { iso_currency_code: "USD" }),
      "VALIDATION_ERROR",
      /^iso_currency_code USD does not match/,
    );
  });

  it("POST /series/{id}/transactions adds, removes; over 500 ids or another series' id in remove: 400", async () => {
    const [a, b] = await insertCharges(s.orm.em.fork(), usd, [
      { date: "2026-02-01", amount: "3.00", providerName: "Y" },
      { date: "2026-02-02", amount: "3.00", providerName: "Y" },
    ]);
    const x = await create();
    const res = await req("POST", `/api/v1/series/${x.short_id}/transactions`, { add: [a, b] });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ added: 2, removed: 0, series: { id: x.id, transaction_count: 2 } });
    const y = await create();
    expectEnvelope(
      await req("POST", `/api/v1/series/${y.id}/transactions`, { remove: [a] }),
      "VALIDATION_ERROR",
      `remove: transaction "${a}" does not belong to this series`,
    );
    const many = Array.from({ length: 300 }, () => "zzzzzzzz");
    expectEnvelope(
      await req("POST", `/api/v1/series/${y.id}/transactions`, { add: many, remove: many }),
      "VALIDATION_ERROR",
      "add and remove may list at most 500 transactions together",
    );
    expectEnvelope(
      await req("POST", `/api/v1/series/${y.id}/transactions`, { add: [...many, ...many] }),
      "INVALID_PARAMETER",
      /^add /,
    );
    const done = await req("POST", `/api/v1/series/${x.id}/transactions`, { remove: [b] });
    expect(done.json()).toMatchObject({ added: 0, removed: 1 });
  });

  it("detect (dry run), apply, reject; the transaction list filters by series_id and in_series", async () => {
    const dry = await req("POST", "/api/v1/series/detect", undefined, s.readKey);
    expect(dry.statusCode).toBe(200);
    const proposal = dry.json<{ proposals: Record<string, unknown>[] }>().proposals.find((p) => p.name === "Netflix")!;
    expect(proposal).toMatchObject({
      type: "subscription",
      cadence: "monthly",
      expected_amount: 15.49,
      amount_tolerance: 0,
      iso_currency_code: "USD",
      status: "active",
      confidence: 1,
      transaction_ids: netflix,
      series_id: null,
      series_name: null,
      unlinked_count: 12,
      fingerprint: expect.any(String),
      reason: expect.stringMatching(/^12 charges, monthly on day 5, 15\.49 USD, last /),
    });
    expectEnvelope(await req("POST", "/api/v1/series/detect/apply", {}, s.readKey), "INSUFFICIENT_SCOPE");
    const applied = await req("POST", "/api/v1/series/detect/apply", { min_confidence: 0.9 });
    expect(applied.statusCode).toBe(200);
    const body = applied.json<{
      created: { id: string; name: string }[];
      extended: unknown[];
      transactions_linked: number;
    }>();
    expect(body.created.map((c) => c.name)).toEqual(["Netflix"]);
    expect(body).toMatchObject({ extended: [], transactions_linked: 12 });
    const inIt = await req(
      "GET",
      `/api/v1/transactions?series_id=${body.created[0].id}&limit=500`,
      undefined,
      s.readKey,
    );
    expect(
      inIt
        .json<{ transactions: { short_id: string; series_name: string }[] }>()
        .transactions.map((t) => t.short_id)
        .sort(),
    ).toEqual([...netflix].sort());
    const count = async (q: string) =>
      (await req("GET", `/api/v1/transactions/count?${q}`, undefined, s.readKey)).json<{ count: number }>().count;
    expect(await count("in_series=true")).toBeGreaterThanOrEqual(12);
    expect((await count("in_series=true")) + (await count("in_series=false"))).toBe(await count(""));
    expectEnvelope(await req("GET", "/api/v1/transactions?in_series=maybe"), "INVALID_PARAMETER", /^in_series /);

    const [fresh] = await insertCharges(
      s.orm.em.fork(),
      usd,
      monthDays(-5, -1, 12).map((date) => ({ date, amount: "95.40", providerName: "VERIZON" })),
    );
    expect(fresh).toBeDefined();
    const verizon = (await req("POST", "/api/v1/series/detect", {}))
      .json<{ proposals: { name: string; fingerprint: string }[] }>()
      .proposals.find((p) => p.name === "VERIZON")!;
    const rejected = await req("POST", "/api/v1/series/detect/reject", { fingerprint: verizon.fingerprint });
    expect(rejected.statusCode).toBe(204);
    const after = (await req("POST", "/api/v1/series/detect")).json<{ proposals: { name: string }[] }>();
    expect(after.proposals.map((p) => p.name)).not.toContain("VERIZON");
  });

  it("GET /series/upcoming lists the window's charges and totals per currency", async () => {
    const x = await create({
      name: "Weekly box",
      cadence: "weekly",
      expected_amount: 12,
      next_expected_date: daysFromToday(1),
    });
    const res = await req("GET", "/api/v1/series/upcoming?days=14", undefined, s.readKey);
    expect(res.statusCode).toBe(200);
    const body = res.json<{ from: string; to: string; charges: Record<string, unknown>[]; totals: unknown[] }>();
    expect({ from: body.from, to: body.to }).toEqual({ from: daysFromToday(0), to: daysFromToday(14) });
    expect(body.charges.filter((c) => c.series_id === x.short_id)).toEqual([
      {
        series_id: x.short_id,
        series_name: "Weekly box",
        type: "other",
        date: daysFromToday(1),
        amount: 12,
        iso_currency_code: "USD",
      },
      {
        series_id: x.short_id,
        series_name: "Weekly box",
        type: "other",
        date: daysFromToday(8),
        amount: 12,
        iso_currency_code: "USD",
      },
    ]);
    expect(body.totals).toEqual([
      expect.objectContaining({ iso_currency_code: "USD", money_in: expect.any(Number), count: expect.any(Number) }),
    ]);
  });
});
