import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { TransactionFilter } from "../../gen/coffer/v1/transactions_pb.js";
import { openOrm, type Em, type Orm } from "../../services/db/orm.js";
import { query } from "../../services/db/sql.js";
import { CofferError } from "../../services/errors/coffer-error.js";
import type { ErrorCode } from "../../common/errors.js";
import { newShortId } from "../../services/ids/short-id.js";
import { countTransactions } from "../../services/ledger/transactions/count.js";
import { listTransactions } from "../../services/ledger/transactions/list.js";
import { CursorKeyring } from "../../services/pagination/cursor-keys.js";
import { createTestDatabase } from "../helpers/db.js";
import { categoryId, newAccount, newTransactions, newUser } from "../helpers/ledger.js";

let orm: Orm;
const em = (): Em => orm.em.fork();
const cursorKeys = new CursorKeyring();
let ann: { id: string; shortId: string };
let bob: { id: string; shortId: string };
let checking: { id: string; shortId: string };
let card: { id: string; shortId: string };
let giro: { id: string; shortId: string };

async function newTag(slug: string): Promise<string> {
  const id = crypto.randomUUID();
  await query(em(), `insert into tags (id, short_id, slug, display_name) values (?, ?, ?, ?)`, [
    id,
    newShortId(),
    slug,
    slug,
  ]);
  return id;
}

/** One household: the provider names below are unique, so tests compare lists of names. */
beforeAll(async () => {
  orm = await openOrm(await createTestDatabase(), 3);
  const e = em();
  ann = await newUser(e, "Ann");
  bob = await newUser(e, "Bob");
  checking = await newAccount(e, ann.id, { name: "Checking" });
  card = await newAccount(e, ann.id, { name: "Card", type: "credit" });
  giro = await newAccount(e, bob.id, { name: "Giro", currency: "EUR" });
  const [business, shared, vacation] = [await newTag("business"), await newTag("shared"), await newTag("vacation")];
  await newTag("unused");
  const cat = async (slug: string) => ({ categoryId: await categoryId(e, slug), categorySource: "user" as const });
  await newTransactions(e, checking.id, [
    {
      providerName: "STARBUCKS #123",
      providerMerchantName: "Starbucks",
      date: "2026-01-05",
      amount: "12.30",
      ...(await cat("food_and_drink_coffee")),
      tagIds: [business],
    },
    {
      providerName: "WHOLEFDS MKT 10",
      providerMerchantName: "Whole Foods Market",
      date: "2026-01-06",
      amount: "85.10",
      ...(await cat("food_and_drink_groceries")),
      tagIds: [shared],
    },
    {
      providerName: "ACME PAYROLL",
      providerMerchantName: "Acme Corp",
      date: "2026-01-10",
      amount: "-2500.00",
      ...(await cat("income_salary")),
    },
    { providerName: "Corner Bakery", date: "2026-02-03", amount: "4.50", ...(await cat("food_and_drink")) },
    {
      providerName: "REFUND Whole Foods",
      providerMerchantName: "Whole Foods Market",
      date: "2026-02-05",
      amount: "-15.00",
      ...(await cat("food_and_drink_groceries")),
    },
  ]);
  await newTransactions(e, card.id, [
    {
      providerName: "SHELL OIL 5544",
      date: "2026-01-07",
      amount: "40.00",
      pending: true,
      ...(await cat("transportation_fuel")),
      tagIds: [vacation, business],
    },
    { providerName: "Coffee Beanery", date: "2026-02-03", amount: "0.10", ...(await cat("food_and_drink_coffee")) },
    {
      providerName: "Beanery coffee roasters",
      date: "2026-02-04",
      amount: "0.20",
      ...(await cat("food_and_drink_coffee")),
    },
  ]);
  await newTransactions(e, giro.id, [
    {
      providerName: "Netflix.com",
      providerMerchantName: "Netflix",
      date: "2026-01-12",
      amount: "9.99",
      isoCurrencyCode: "EUR",
      tagIds: [shared, vacation],
    },
    {
      providerName: "100% Pure_Juice",
      date: "2026-02-01",
      amount: "3.50",
      isoCurrencyCode: "EUR",
      ...(await cat("uncategorized")),
    },
  ]);
  // Soft-deleted: never listed or counted, whatever the filter.
  await query(e, `update transactions set deleted_at = now() where provider_name = 'Beanery coffee roasters'`);
  ALL = (
    await query<{ provider_name: string }>(
      e,
      `select provider_name from transactions where deleted_at is null order by date desc, id desc`,
    )
  ).map((r) => r.provider_name);
  expect(ALL).toHaveLength(9);
});
afterAll(async () => {
  await orm?.close();
});

/** Every live transaction's name in list order (date desc, then id desc: two share 2026-02-03). */
let ALL: string[] = [];

type Filter = Partial<TransactionFilter>;
const request = (filter: Filter, extra: { sortBy?: string; sortOrder?: string; limit?: number } = {}) => ({
  filter: { tags: [], anyTag: [], ...filter } as TransactionFilter,
  limit: extra.limit ?? 500,
  cursor: "",
  sortBy: extra.sortBy ?? "",
  sortOrder: extra.sortOrder ?? "",
});

/** Provider names the list returns, in order; the count must agree. */
async function names(
  filter: Filter,
  extra: { sortBy?: string; sortOrder?: string; limit?: number } = {},
): Promise<string[]> {
  const page = await listTransactions(em(), request(filter, extra), cursorKeys);
  if (!extra.limit)
    expect(Number(await countTransactions(em(), request(filter).filter))).toBe(page.transactions.length);
  return page.transactions.map((t) => t.providerName);
}

async function failsWith(p: Promise<unknown>, code: ErrorCode, message?: RegExp): Promise<void> {
  const e = await p.then(
    () => null,
    (err: unknown) => err,
  );
  expect(e, "the call should fail").toBeInstanceOf(CofferError);
  expect((e as CofferError).code).toBe(code);
  if (message) expect((e as CofferError).message).toMatch(message);
}

const only = (...keep: string[]) => ALL.filter((n) => keep.includes(n));

describe("transaction filters", () => {
  it("no filter: every live transaction, newest first, soft-deleted ones never", async () => {
    expect(await names({})).toEqual(ALL);
  });

  it("start_date is inclusive, end_date exclusive", async () => {
    expect(await names({ startDate: "2026-01-10" })).toEqual(
      only("REFUND Whole Foods", "Corner Bakery", "Coffee Beanery", "100% Pure_Juice", "Netflix.com", "ACME PAYROLL"),
    );
    expect(await names({ endDate: "2026-01-10" })).toEqual(only("SHELL OIL 5544", "WHOLEFDS MKT 10", "STARBUCKS #123"));
    expect(await names({ startDate: "2026-01-06", endDate: "2026-01-07" })).toEqual(["WHOLEFDS MKT 10"]);
  });

  it("rejects impossible dates and empty ranges with INVALID_PARAMETER", async () => {
    await failsWith(names({ startDate: "2026-02-30" }), "INVALID_PARAMETER", /start_date/);
    await failsWith(names({ endDate: "20260101" }), "INVALID_PARAMETER", /end_date/);
    await failsWith(names({ startDate: "2026-01-10", endDate: "2026-01-10" }), "INVALID_PARAMETER", /before end_date/);
  });

  it("account_id takes a short id or a UUID; unknown or malformed ids are NOT_FOUND", async () => {
    expect(await names({ accountId: card.shortId })).toEqual(["Coffee Beanery", "SHELL OIL 5544"]);
    expect(await names({ accountId: card.id.toUpperCase() })).toEqual(["Coffee Beanery", "SHELL OIL 5544"]);
    await failsWith(names({ accountId: "ZZZZZZZZ" }), "NOT_FOUND", /Account not found/);
    await failsWith(names({ accountId: crypto.randomUUID() }), "NOT_FOUND");
    await failsWith(names({ accountId: "not an id'" }), "NOT_FOUND");
  });

  it("user_id selects the accounts that user owns; unknown is NOT_FOUND", async () => {
    expect(await names({ userId: bob.shortId })).toEqual(["100% Pure_Juice", "Netflix.com"]);
    expect(await names({ userId: ann.id })).toEqual(ALL.filter((n) => !["100% Pure_Juice", "Netflix.com"].includes(n)));
    await failsWith(names({ userId: "ZZZZZZZZ" }), "NOT_FOUND", /User not found/);
  });

  it("category_slug: a leaf, a parent with its children, and uncategorized (none, or that row)", async () => {
    expect(await names({ categorySlug: "food_and_drink_coffee" })).toEqual(["Coffee Beanery", "STARBUCKS #123"]);
    expect(await names({ categorySlug: "food_and_drink" })).toEqual(
      only("REFUND Whole Foods", "Corner Bakery", "Coffee Beanery", "WHOLEFDS MKT 10", "STARBUCKS #123"),
    );
    expect(await names({ categorySlug: "uncategorized" })).toEqual(["100% Pure_Juice", "Netflix.com"]);
    expect(await names({ categorySlug: "travel" })).toEqual([]);
  });

  it("an unknown or malformed category_slug is INVALID_PARAMETER", async () => {
    await failsWith(names({ categorySlug: "no_such_category" }), "INVALID_PARAMETER", /no_such_category/);
    await failsWith(names({ categorySlug: "Food & drink" }), "INVALID_PARAMETER", /category_slug/);
  });

  it("min_amount and max_amount are inclusive exact decimals on the signed amount", async () => {
    expect(await names({ minAmount: "12.3" })).toEqual(only("SHELL OIL 5544", "WHOLEFDS MKT 10", "STARBUCKS #123"));
    expect(await names({ maxAmount: "0" })).toEqual(["REFUND Whole Foods", "ACME PAYROLL"]);
    expect(await names({ minAmount: "0.10", maxAmount: "0.1" })).toEqual(["Coffee Beanery"]);
    expect(await names({ minAmount: "-20", maxAmount: "0.15" })).toEqual(["REFUND Whole Foods", "Coffee Beanery"]);
  });

  it("rejects malformed amounts and min_amount above max_amount", async () => {
    await failsWith(names({ minAmount: "1.234" }), "INVALID_PARAMETER", /min_amount/);
    await failsWith(names({ maxAmount: "ten" }), "INVALID_PARAMETER", /max_amount/);
    await failsWith(names({ minAmount: "10", maxAmount: "9.99" }), "INVALID_PARAMETER", /greater than max_amount/);
  });

  it("pending", async () => {
    expect(await names({ pending: true })).toEqual(["SHELL OIL 5544"]);
    expect(await names({ pending: false })).toEqual(ALL.filter((n) => n !== "SHELL OIL 5544"));
  });

  it("search contains (default): name or merchant, case-insensitive, comma-separated terms ORed", async () => {
    expect(await names({ search: "whole" })).toEqual(["REFUND Whole Foods", "WHOLEFDS MKT 10"]);
    expect(await names({ search: "shell, NETFLIX" })).toEqual(["Netflix.com", "SHELL OIL 5544"]);
    expect(await names({ search: "bean", searchMode: "contains" })).toEqual(["Coffee Beanery"]);
    expect(await names({ search: " , " })).toEqual(ALL);
  });

  it("search contains never matches across the name and the merchant name, and folds non-ASCII case", async () => {
    // search_text joins the two names with U+001F; a term ending one and starting the other finds nothing.
    expect(await names({ search: "#123starbucks" })).toEqual([]);
    expect(await names({ search: "#123\u001fstarbucks" })).toEqual([]);
    expect(await names({ search: "#123 starbucks" })).toEqual([]);
    expect(await names({ search: "#123" })).toEqual(["STARBUCKS #123"]);
    await query(
      em(),
      `update transactions set provider_merchant_name = 'Café ÉCLAIR' where provider_name = 'Corner Bakery'`,
    );
    try {
      expect(await names({ search: "CAFÉ éclair" })).toEqual(["Corner Bakery"]);
      expect(await names({ search: "éclair", searchMode: "words" })).toEqual(["Corner Bakery"]);
    } finally {
      await query(em(), `update transactions set provider_merchant_name = null where provider_name = 'Corner Bakery'`);
    }
  });

  it("search contains takes % and _ literally", async () => {
    expect(await names({ search: "%" })).toEqual(["100% Pure_Juice"]);
    expect(await names({ search: "_" })).toEqual(["100% Pure_Juice"]);
    expect(await names({ search: "\\" })).toEqual([]);
  });

  it("search words: every word of a term, as whole words, in any order", async () => {
    expect(await names({ search: "coffee", searchMode: "words" })).toEqual(["Coffee Beanery"]);
    expect(await names({ search: "bean", searchMode: "words" })).toEqual([]);
    expect(await names({ search: "foods whole", searchMode: "words" })).toEqual([
      "REFUND Whole Foods",
      "WHOLEFDS MKT 10",
    ]);
    expect(await names({ search: "whole market, acme", searchMode: "words" })).toEqual([
      "REFUND Whole Foods",
      "ACME PAYROLL",
      "WHOLEFDS MKT 10",
    ]);
    expect(await names({ search: "pure_juice", searchMode: "words" })).toEqual(["100% Pure_Juice"]);
    expect(await names({ search: "netflix.com", searchMode: "words" })).toEqual(["Netflix.com"]);
    expect(await names({ search: "(", searchMode: "words" })).toEqual([]);
  });

  it("search fuzzy: trigram word similarity forgives typos", async () => {
    expect(await names({ search: "starbuks", searchMode: "fuzzy" })).toEqual(["STARBUCKS #123"]);
    expect(await names({ search: "netflx, payrol", searchMode: "fuzzy" })).toEqual(["Netflix.com", "ACME PAYROLL"]);
    expect(await names({ search: "zzzzqqq", searchMode: "fuzzy" })).toEqual([]);
  });

  it("rejects an unknown search_mode and oversized searches", async () => {
    await failsWith(names({ search: "x", searchMode: "regex" }), "INVALID_PARAMETER", /search_mode/);
    await failsWith(names({ search: "x".repeat(501) }), "INVALID_PARAMETER", /search/);
    await failsWith(
      names({ search: Array.from({ length: 21 }, (_, i) => `t${i}`).join(",") }),
      "INVALID_PARAMETER",
      /terms/,
    );
  });

  it("tags: must carry all; an unknown slug matches nothing", async () => {
    expect(await names({ tags: ["business"] })).toEqual(["SHELL OIL 5544", "STARBUCKS #123"]);
    expect(await names({ tags: ["business,vacation"] })).toEqual(["SHELL OIL 5544"]);
    expect(await names({ tags: ["vacation", "business"] })).toEqual(["SHELL OIL 5544"]);
    expect(await names({ tags: ["unused"] })).toEqual([]);
    expect(await names({ tags: ["nope"] })).toEqual([]);
    expect(await names({ tags: ["business", "nope"] })).toEqual([]);
  });

  it("any_tag: carries at least one; unknown slugs match nothing", async () => {
    expect(await names({ anyTag: ["business,shared"] })).toEqual([
      "Netflix.com",
      "SHELL OIL 5544",
      "WHOLEFDS MKT 10",
      "STARBUCKS #123",
    ]);
    expect(await names({ anyTag: ["vacation", "nope"] })).toEqual(["Netflix.com", "SHELL OIL 5544"]);
    expect(await names({ anyTag: ["nope"] })).toEqual([]);
  });

  it("rejects malformed tag slugs", async () => {
    await failsWith(names({ tags: ["Business"] }), "INVALID_PARAMETER", /tags/);
    await failsWith(names({ anyTag: ["a b"] }), "INVALID_PARAMETER", /any_tag/);
  });

  it("combines filters with AND", async () => {
    expect(
      await names({ userId: ann.shortId, categorySlug: "food_and_drink", minAmount: "1", startDate: "2026-01-06" }),
    ).toEqual(["Corner Bakery", "WHOLEFDS MKT 10"]);
    expect(await names({ accountId: checking.shortId, search: "whole", maxAmount: "0" })).toEqual([
      "REFUND Whole Foods",
    ]);
  });
});

describe("transaction sorts", () => {
  it("date desc is the default, ties broken by id in the same direction; asc reverses both", async () => {
    const page = await listTransactions(em(), request({}), cursorKeys);
    const keys = page.transactions.map((t) => `${t.date} ${t.id}`);
    expect(keys).toEqual([...keys].sort().reverse());
    const tie = page.transactions.filter((t) => t.date === "2026-02-03");
    expect(tie).toHaveLength(2);
    const asc = await listTransactions(em(), request({}, { sortOrder: "asc" }), cursorKeys);
    expect(asc.transactions.map((t) => t.id)).toEqual(page.transactions.map((t) => t.id).reverse());
  });

  it("amount: largest first by default, asc smallest first; one page, no cursor", async () => {
    expect(await names({}, { sortBy: "amount" })).toEqual([
      "WHOLEFDS MKT 10",
      "SHELL OIL 5544",
      "STARBUCKS #123",
      "Netflix.com",
      "Corner Bakery",
      "100% Pure_Juice",
      "Coffee Beanery",
      "REFUND Whole Foods",
      "ACME PAYROLL",
    ]);
    expect((await names({}, { sortBy: "amount", sortOrder: "asc" }))[0]).toBe("ACME PAYROLL");
    const top = await listTransactions(em(), request({}, { sortBy: "amount", limit: 3 }), cursorKeys);
    expect(top.transactions.map((t) => t.amount)).toEqual(["85.10", "40.00", "12.30"]);
    expect({ next: top.nextCursor, more: top.hasMore }).toEqual({ next: "", more: false });
  });

  it("name: the name shown (merchant, else raw name), case-insensitive, A to Z by default", async () => {
    const page = await listTransactions(em(), request({}, { sortBy: "name" }), cursorKeys);
    expect(page.transactions.map((t) => t.name)).toEqual([
      "100% Pure_Juice",
      "Acme Corp",
      "Coffee Beanery",
      "Corner Bakery",
      "Netflix",
      "SHELL OIL 5544",
      "Starbucks",
      "Whole Foods Market",
      "Whole Foods Market",
    ]);
    const desc = await names({}, { sortBy: "name", sortOrder: "desc" });
    expect(desc[desc.length - 1]).toBe("100% Pure_Juice");
    expect(page.nextCursor).toBe("");
  });

  it("sorts honour filters, and a limit up to 500", async () => {
    expect(await names({ userId: bob.shortId }, { sortBy: "amount", sortOrder: "asc" })).toEqual([
      "100% Pure_Juice",
      "Netflix.com",
    ]);
    expect(
      (await listTransactions(em(), request({}, { sortBy: "name", limit: 500 }), cursorKeys)).transactions,
    ).toHaveLength(ALL.length);
  });

  it("rejects unknown sort_by and sort_order with INVALID_PARAMETER", async () => {
    await failsWith(names({}, { sortBy: "merchant" }), "INVALID_PARAMETER", /sort_by/);
    await failsWith(names({}, { sortOrder: "up" }), "INVALID_PARAMETER", /sort_order/);
  });
});
