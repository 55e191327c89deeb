import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { query } from "../../services/db/sql.js";
import { newShortId } from "../../services/ids/short-id.js";
import { expectCoreError, withKey } from "../helpers/core-error.js";
import { categoryId, newAccount, newTransactions, newUser } from "../helpers/ledger.js";
import { expectEnvelope, key } from "../helpers/rest.js";
import { startStack, type Stack } from "../helpers/stack.js";

let s: Stack;
let user: { id: string; shortId: string };
let checking: { id: string; shortId: string };
let giro: { id: string; shortId: string };
let coffeeId: string;
let deletedId: string;

beforeAll(async () => {
  s = await startStack();
  const em = s.orm.em.fork();
  user = await newUser(em, "Ann");
  checking = await newAccount(em, user.id, { name: "Checking" });
  giro = await newAccount(em, user.id, { name: "Giro", currency: "EUR" });
  const coffee = { categoryId: await categoryId(em, "food_and_drink_coffee"), categorySource: "user" as const };
  const trip = crypto.randomUUID();
  await query(
    em,
    `insert into tags (id, short_id, slug, display_name, color) values (?, ?, 'trip', 'Trip', '#00aa00')`,
    [trip, newShortId()],
  );
  const work = crypto.randomUUID();
  await query(em, `insert into tags (id, short_id, slug, display_name) values (?, ?, 'work', 'Work')`, [
    work,
    newShortId(),
  ]);
  [coffeeId] = await newTransactions(em, checking.id, [
    {
      providerName: "STARBUCKS #1",
      providerMerchantName: "Starbucks",
      amount: "0.10",
      date: "2026-01-03",
      authorizedDate: "2026-01-02",
      providerCategoryPrimary: "FOOD_AND_DRINK",
      ...coffee,
      tagIds: [trip, work],
      metadata: { note: "latte" },
    },
    { providerName: "Espresso Bar", amount: "0.20", date: "2026-01-04", ...coffee, tagIds: [trip] },
    { providerName: "ACME PAYROLL", amount: "-1500.00", date: "2026-01-05", pending: true },
  ]);
  await newTransactions(em, giro.id, [
    { providerName: "Bäckerei", amount: "2.35", date: "2026-01-06", isoCurrencyCode: "EUR", tagIds: [work] },
  ]);
  [deletedId] = await newTransactions(em, checking.id, [{ providerName: "Gone", date: "2026-01-07" }]);
  await query(em, `update transactions set deleted_at = now() where id = ?`, [deletedId]);
});
afterAll(async () => {
  await s?.close();
});

const get = (url: string, apiKey: string | null = s.adminKey) =>
  s.rest.inject({ method: "GET", url, headers: apiKey === null ? {} : key(apiKey) });

describe("GET /api/v1/transactions", () => {
  it("answers exactly {transactions, next_cursor, has_more}; REST transactions (numbers, short-id refs)", async () => {
    const res = await get("/api/v1/transactions");
    expect(res.statusCode).toBe(200);
    const body = res.json();
    expect(Object.keys(body).sort()).toEqual(["has_more", "next_cursor", "transactions"]);
    expect(body.has_more).toBe(false);
    expect(body.next_cursor).toBe("");
    expect(body.transactions.map((t: { name: string }) => t.name)).toEqual([
      "Bäckerei",
      "ACME PAYROLL",
      "Espresso Bar",
      "Starbucks",
    ]);
    const t = body.transactions[3];
    expect(t).toEqual({
      id: coffeeId,
      short_id: expect.stringMatching(/^[0-9A-Za-z]{8}$/),
      account_id: checking.shortId,
      account_name: "Checking",
      user_id: user.shortId,
      user_name: "Ann",
      amount: 0.1,
      iso_currency_code: "USD",
      date: "2026-01-03",
      authorized_date: "2026-01-02",
      name: "Starbucks",
      provider: "csv",
      provider_transaction_id: expect.any(String),
      provider_name: "STARBUCKS #1",
      provider_merchant_name: "Starbucks",
      provider_category_primary: "FOOD_AND_DRINK",
      provider_category_detailed: null,
      pending: false,
      category_slug: "food_and_drink_coffee",
      category_display_name: "Coffee",
      category_parent_slug: "food_and_drink",
      category_source: "user",
      tags: ["trip", "work"],
      metadata: { note: "latte" },
      counterparty_id: null,
      counterparty_name: null,
      deleted_at: null,
      created_at: expect.stringMatching(/^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{3}Z$/),
      updated_at: expect.stringMatching(/Z$/),
      series_id: null,
      series_name: null,
    });
    expect(body.transactions[1].amount).toBe(-1500);
  });

  it("pages with limit and cursor until next_cursor is empty", async () => {
    const first = (await get("/api/v1/transactions?limit=3")).json();
    expect(first.transactions).toHaveLength(3);
    expect(first.has_more).toBe(true);
    expect(first.next_cursor).toMatch(/^[A-Za-z0-9_-]+$/);
    const second = (await get(`/api/v1/transactions?limit=3&cursor=${first.next_cursor}`)).json();
    expect(second).toMatchObject({ has_more: false, next_cursor: "" });
    expect(second.transactions.map((t: { name: string }) => t.name)).toEqual(["Starbucks"]);
  });

  it("takes every filter as a query parameter", async () => {
    const names = async (qs: string) => {
      const res = await get(`/api/v1/transactions?${qs}`);
      expect(res.statusCode, res.body).toBe(200);
      return res.json().transactions.map((t: { name: string }) => t.name);
    };
    expect(await names("start_date=2026-01-04&end_date=2026-01-06")).toEqual(["ACME PAYROLL", "Espresso Bar"]);
    expect(await names(`account_id=${giro.shortId}`)).toEqual(["Bäckerei"]);
    expect(await names(`user_id=${user.id}`)).toHaveLength(4);
    expect(await names("category_slug=food_and_drink")).toEqual(["Espresso Bar", "Starbucks"]);
    expect(await names("min_amount=0.15&max_amount=10")).toEqual(["Bäckerei", "Espresso Bar"]);
    expect(await names("min_amount=-1500")).toHaveLength(4);
    expect(await names("pending=true")).toEqual(["ACME PAYROLL"]);
    expect(await names("search=espresso,payroll")).toEqual(["ACME PAYROLL", "Espresso Bar"]);
    expect(await names("search=espreso&search_mode=fuzzy")).toEqual(["Espresso Bar"]);
    expect(await names("search=bar&search_mode=words")).toEqual(["Espresso Bar"]);
    expect(await names("tags=trip,work")).toEqual(["Starbucks"]);
    expect(await names("tags=trip&tags=work")).toEqual(["Starbucks"]);
    expect(await names("any_tag=work")).toEqual(["Bäckerei", "Starbucks"]);
    expect(await names("any_tag=nope&any_tag=trip")).toEqual(["Espresso Bar", "Starbucks"]);
    expect(await names("sort_by=amount&sort_order=asc&limit=2")).toEqual(["ACME PAYROLL", "Starbucks"]);
    expect(await names("sort_by=name")).toEqual(["ACME PAYROLL", "Bäckerei", "Espresso Bar", "Starbucks"]);
  });

  it("amount and name sorts are one page: no cursor, has_more false", async () => {
    const body = (await get("/api/v1/transactions?sort_by=amount&limit=500")).json();
    expect(body).toMatchObject({ next_cursor: "", has_more: false });
    expect(body.transactions.map((t: { amount: number }) => t.amount)).toEqual([2.35, 0.2, 0.1, -1500]);
    const first = (await get("/api/v1/transactions?limit=1")).json();
    expectEnvelope(await get(`/api/v1/transactions?sort_by=amount&cursor=${first.next_cursor}`), "INVALID_CURSOR");
  });

  it.each([
    ["limit=0", /limit/],
    ["limit=501", /limit/],
    ["limit=ten", /limit/],
    ["start_date=2026-1-1", /start_date/],
    ["end_date=tomorrow", /end_date/],
    ["start_date=2026-02-30", /start_date/],
    ["min_amount=1.234", /min_amount/],
    ["max_amount=abc", /max_amount/],
    ["pending=maybe", /pending/],
    ["sort_by=merchant", /sort_by/],
    ["sort_order=up", /sort_order/],
    ["search_mode=regex", /search_mode/],
    ["category_slug=Food!", /category_slug/],
    ["category_slug=no_such_category", /no_such_category/],
    ["tags=Not%20A%20Slug", /tags/],
    ["any_tag=a;b", /any_tag/],
    ["colour=red", /unknown query parameter colour/],
    ["search=a&search=b", /search/],
  ])("?%s → 400 INVALID_PARAMETER naming the parameter", async (qs, message) => {
    expectEnvelope(await get(`/api/v1/transactions?${qs}`), "INVALID_PARAMETER", message);
  });

  it("a malformed cursor → 400 INVALID_CURSOR; a cursor with other filters → INVALID_CURSOR", async () => {
    expectEnvelope(await get("/api/v1/transactions?cursor=garbage"), "INVALID_CURSOR", /restart from the first page/);
    const first = (await get("/api/v1/transactions?limit=1")).json();
    expectEnvelope(
      await get(`/api/v1/transactions?limit=1&pending=false&cursor=${first.next_cursor}`),
      "INVALID_CURSOR",
      /different filters/,
    );
  });

  it("an unknown or malformed account_id / user_id → 404 NOT_FOUND", async () => {
    expectEnvelope(await get("/api/v1/transactions?account_id=ZZZZZZZZ"), "NOT_FOUND", "Account not found");
    expectEnvelope(await get("/api/v1/transactions?account_id=nope"), "NOT_FOUND", "Account not found");
    expectEnvelope(await get(`/api/v1/transactions?user_id=${crypto.randomUUID()}`), "NOT_FOUND", "User not found");
  });

  it("gRPC and Connect callers get the same validation as REST callers", async () => {
    await expectCoreError(
      s.core.transactions.listTransactions({ limit: 501 }, withKey(s.readKey)),
      "INVALID_PARAMETER",
    );
    await expectCoreError(s.core.transactions.listTransactions({ limit: -5 }, withKey(s.readKey)), "INVALID_PARAMETER");
    await expectCoreError(s.core.transactions.listTransactions({ cursor: "x" }, withKey(s.readKey)), "INVALID_CURSOR");
    const r = await s.core.transactions.listTransactions({}, withKey(s.readKey));
    expect(r.transactions).toHaveLength(4);
  });
});

describe("GET /api/v1/transactions/count and /summary", () => {
  it("count → {count} for the same filters (not captured by /transactions/:id)", async () => {
    expect((await get("/api/v1/transactions/count")).json()).toEqual({ count: 4 });
    expect(
      (await get("/api/v1/transactions/count?category_slug=food_and_drink_coffee&min_amount=0.15")).json(),
    ).toEqual({ count: 1 });
    expectEnvelope(await get("/api/v1/transactions/count?limit=5"), "INVALID_PARAMETER", /limit/);
    expectEnvelope(await get("/api/v1/transactions/count?account_id=ZZZZZZZZ"), "NOT_FOUND");
  });

  it("summary → {group_by, groups, totals} with exact sums as numbers, per currency", async () => {
    const res = await get("/api/v1/transactions/summary");
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      group_by: "category",
      groups: [
        {
          key: "food_and_drink_coffee",
          label: "Coffee",
          totals: [{ iso_currency_code: "USD", money_out: 0.3, money_in: 0, net: 0.3, count: 2 }],
        },
        {
          key: "uncategorized",
          label: "Uncategorized",
          totals: [
            { iso_currency_code: "EUR", money_out: 2.35, money_in: 0, net: 2.35, count: 1 },
            { iso_currency_code: "USD", money_out: 0, money_in: 1500, net: -1500, count: 1 },
          ],
        },
      ],
      totals: [
        { iso_currency_code: "EUR", money_out: 2.35, money_in: 0, net: 2.35, count: 1 },
        { iso_currency_code: "USD", money_out: 0.3, money_in: 1500, net: -1499.7, count: 3 },
      ],
    });
    const month = (await get("/api/v1/transactions/summary?group_by=month&account_id=" + checking.shortId)).json();
    expect(month.groups).toEqual([
      {
        key: "2026-01",
        label: "January 2026",
        totals: [{ iso_currency_code: "USD", money_out: 0.3, money_in: 1500, net: -1499.7, count: 3 }],
      },
    ]);
    expectEnvelope(await get("/api/v1/transactions/summary?group_by=year"), "INVALID_PARAMETER", /group_by/);
    expectEnvelope(await get("/api/v1/transactions/summary?cursor=x"), "INVALID_PARAMETER", /cursor/);
  });
});

describe("GET /api/v1/transactions/:id", () => {
  it("by short id or UUID", async () => {
    const byUuid = await get(`/api/v1/transactions/${coffeeId}`);
    expect(byUuid.statusCode).toBe(200);
    const t = byUuid.json();
    expect(t).toMatchObject({ id: coffeeId, name: "Starbucks", amount: 0.1, tags: ["trip", "work"] });
    expect((await get(`/api/v1/transactions/${t.short_id}`)).json()).toEqual(t);
  });

  it("malformed, unknown and soft-deleted ids → 404 NOT_FOUND", async () => {
    for (const id of ["nope", "ZZZZZZZZ", crypto.randomUUID(), deletedId, "%27%3B--", "a".repeat(60)]) {
      expectEnvelope(await get(`/api/v1/transactions/${id}`), "NOT_FOUND", "Transaction not found");
    }
  });
});

describe("transaction reads and keys", () => {
  it("a read_only key reads everything; no key → 401; a bad key → 401", async () => {
    for (const url of [
      "/api/v1/transactions",
      "/api/v1/transactions/count",
      "/api/v1/transactions/summary",
      `/api/v1/transactions/${coffeeId}`,
    ]) {
      expect((await get(url, s.readKey)).statusCode, url).toBe(200);
      expectEnvelope(await get(url, null), "MISSING_CREDENTIALS");
      expectEnvelope(await get(url, "cf_notakey"), "INVALID_API_KEY");
    }
  });
});
