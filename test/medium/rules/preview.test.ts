import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { create } from "@bufbuild/protobuf";
import { ValueSchema } from "@bufbuild/protobuf/wkt";
import { pgArray, query } from "../../../services/db/sql.js";
import { applyRulesOnSync } from "../../../services/rules/runner.js";
import { valueOf } from "../../../gateways/shared/rules.js";
import { expectCoreError, withKey } from "../../helpers/core-error.js";
import { newAccount, newTransactions, newUser } from "../../helpers/ledger.js";
import { resetRules, syncActor } from "../../helpers/rules.js";
import { startStack, type Stack } from "../../helpers/stack.js";

// preview_rule: what it reports, what it does not touch, its time budget, and that it agrees with
// the sync pipeline and retroactive apply on the same data.

let s: Stack;
let admin: ReturnType<typeof withKey>;
let reader: ReturnType<typeof withKey>;
let accounts: { id: string; shortId: string }[];
let all: string[];

/** A deterministic household: names with and without merchants, ASCII and not, amounts, tags, metadata. */
const NAMES: [string, string | null][] = [
  ["BLUE BOTTLE COFFEE #12", "Blue Bottle Coffee"],
  ["STARBUCKS STORE 4821", "Starbucks"],
  ["CAFÉ DE FLORE PARIS", null],
  ["Straße Bäckerei GmbH", "Bäckerei Straße"],
  ["İSTANBUL KEBAP", null],
  ["\u212aELVIN SUPPLY", null],
  ["UBER *TRIP", "Uber"],
  ["LYFT *RIDE SF", "Lyft"],
  ["WHOLEFDS MKT 10", "Whole Foods Market"],
  ["FARMERS MARKET", null],
  ["AMAZON REFUND", "Amazon"],
  ["Rent payment", null],
];

/** Integer cents as decimal text, without float arithmetic. */
function amountText(cents: number): string {
  const abs = Math.abs(cents);
  return `${cents < 0 ? "-" : ""}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, "0")}`;
}

function rand(seed: number) {
  let x = seed;
  return () => {
    x = (x * 1103515245 + 12345) % 2147483648;
    return x / 2147483648;
  };
}

beforeAll(async () => {
  s = await startStack();
  admin = withKey(s.adminKey);
  reader = withKey(s.readKey);
  const em = s.orm.em.fork();
  const user = await newUser(em, "Ann");
  accounts = [await newAccount(em, user.id, { name: "Checking" }), await newAccount(em, user.id, { name: "Card" })];
  for (const slug of ["business", "vacation"]) await s.core.tags.createTag({ slug }, admin);
  const tags = await query<{ id: string; slug: string }>(em, `select id, slug from tags`);
  const tagId = (slug: string) => tags.find((t) => t.slug === slug)!.id;
  const r = rand(42);
  const items = Array.from({ length: 400 }, (_, i) => {
    const [name, merchant] = NAMES[i % NAMES.length];
    const cents = Math.floor(r() * 30000) - 5000;
    const day = 1 + Math.floor(r() * 28);
    const tag = r();
    return {
      accountId: accounts[i % 2].id,
      providerName: name,
      providerMerchantName: merchant,
      amount: amountText(cents),
      date: `2026-0${1 + (i % 3)}-${String(day).padStart(2, "0")}`,
      pending: r() < 0.1,
      providerCategoryPrimary: i % 5 === 0 ? null : "GENERAL",
      tagIds: tag < 0.2 ? [tagId("business")] : tag < 0.3 ? [tagId("business"), tagId("vacation")] : [],
      metadata: r() < 0.15 ? { receipt: `R-${i}` } : {},
    };
  });
  all = [];
  for (const a of accounts) {
    all.push(
      ...(await newTransactions(
        em,
        a.id,
        items.filter((t) => t.accountId === a.id),
      )),
    );
  }
  // Deleted transactions are not scanned.
  await query(em, `update transactions set deleted_at = now() where id = any(?::uuid[])`, [pgArray(all.slice(0, 10))]);
});
afterAll(async () => {
  await s?.close();
});

const preview = (conditions: unknown, sampleSize = 0, key = admin) =>
  s.core.rules.previewRule({ conditions: valueOf(conditions), sampleSize }, key);

describe("preview_rule", () => {
  it("reports match_count over every live transaction, total_scanned, and the newest matches", async () => {
    const r = await preview({ field: "provider_merchant_name", op: "contains", value: "coffee" }, 0, reader);
    expect(r.totalScanned).toBe(390n);
    expect(r.matchCount).toBeGreaterThan(10n);
    expect(r.sampleMatches).toHaveLength(10);
    for (const m of r.sampleMatches) {
      expect(m).toMatchObject({
        transactionId: expect.stringMatching(/^[0-9A-Za-z]{8}$/),
        date: expect.stringMatching(/^2026-0[1-3]-\d\d$/),
        name: "Blue Bottle Coffee",
        currentCategorySlug: "uncategorized",
      });
      expect(m.amount).toMatch(/^-?\d+\.\d\d$/);
    }
    const dates = r.sampleMatches.map((m) => `${m.date}${m.transactionId}`);
    expect(dates).toEqual([...dates].sort().reverse());
    const [newest] = await query<{ short_id: string }>(
      s.orm.em.fork(),
      `select short_id from transactions where provider_merchant_name = 'Blue Bottle Coffee' and deleted_at is null
       order by date desc, short_id desc limit 1`,
    );
    expect(r.sampleMatches[0].transactionId).toBe(newest.short_id);
  });

  it("sample_size: default 10, up to 50; match_count is always the whole match set", async () => {
    const all = await preview({}, 50);
    expect(all).toMatchObject({ matchCount: 390n, totalScanned: 390n });
    expect(all.sampleMatches).toHaveLength(50);
    expect((await preview({}, 3)).sampleMatches).toHaveLength(3);
    const none = await preview({ field: "provider_name", op: "eq", value: "nothing like this" }, 50);
    expect({ count: none.matchCount, samples: none.sampleMatches }).toEqual({ count: 0n, samples: [] });
    for (const size of [51, -1]) await expectCoreError(preview({}, size), "INVALID_PARAMETER");
  });

  it("shows the provider's raw category, an empty string when there is none", async () => {
    const r = await preview({ field: "provider_category_primary", op: "eq", value: "" }, 50);
    expect(r.matchCount).toBeGreaterThan(0n);
    for (const m of r.sampleMatches) expect(m.categoryPrimaryRaw).toBe("");
  });

  it("refuses a bad tree with the path to the node, like rule creation", async () => {
    const f = await expectCoreError(
      preview({ and: [{ field: "amount", op: "gt", value: 1 }, { not: { field: "tags", op: "eq", value: "x" } }] }),
      "VALIDATION_ERROR",
    );
    expect(f.message).toBe('and[1].not: operator "eq" is not valid for tags field "tags"');
    await expectCoreError(s.core.rules.previewRule({}, admin), "VALIDATION_ERROR");
  });

  it("refuses a tree holding a number no JSON can (Infinity, NaN) as a validation error", async () => {
    // Only a core caller's own message can carry one: 1e309 in Connect JSON reads as Infinity.
    const num = (n: number) => create(ValueSchema, { kind: { case: "numberValue", value: n } });
    const text = (t: string) => create(ValueSchema, { kind: { case: "stringValue", value: t } });
    for (const n of [Infinity, -Infinity, NaN]) {
      const conditions = create(ValueSchema, {
        kind: { case: "structValue", value: { fields: { field: text("amount"), op: num(n), value: text("1") } } },
      });
      const f = await expectCoreError(
        s.core.rules.previewRule({ conditions, sampleSize: 5 }, admin),
        "VALIDATION_ERROR",
      );
      expect(f.message).toMatch(/^conditions must be JSON/);
      await expectCoreError(
        s.core.rules.createRule({ name: "never", conditions, actions: valueOf([]) }, admin),
        "VALIDATION_ERROR",
      );
    }
  });

  it("writes nothing and counts no hits", async () => {
    const em = s.orm.em.fork();
    const snapshot = () =>
      query(
        em,
        `select (select count(*) from annotations) a, (select sum(hit_count) from rules) h,
        (select max(seq) from transactions) q`,
      );
    const before = await snapshot();
    await preview(
      {
        or: [
          { field: "amount", op: "gt", value: 0 },
          { field: "pending", op: "eq", value: true },
        ],
      },
      50,
    );
    expect(await snapshot()).toEqual(before);
  });

  it("agrees with the sync pipeline and retroactive apply on the same data, prefiltered or not", async () => {
    const em = s.orm.em.fork();
    const conditions: unknown[] = [
      { field: "provider_merchant_name", op: "contains", value: "coffee" },
      { field: "provider_name", op: "contains", value: "CAFÉ" },
      { field: "provider_name", op: "contains", value: "kelvin" },
      { field: "provider_name", op: "contains", value: "istanbul" },
      { field: "provider_name", op: "contains", value: "strasse" },
      { field: "provider_merchant_name", op: "contains", value: "straße" },
      { field: "provider_name", op: "eq", value: "uber *trip" },
      { field: "provider_merchant_name", op: "eq", value: "" },
      { field: "amount", op: "between", min: 10, max: "50.5" },
      { field: "amount", op: "approx", value: 100, tolerance: 25 },
      { field: "amount", op: "neq", value: 0 },
      {
        and: [
          { field: "pending", op: "eq", value: true },
          { field: "amount", op: "lt", value: 0 },
        ],
      },
      {
        or: [
          { field: "tags", op: "contains", value: "business" },
          { field: "provider_name", op: "contains", value: "market" },
        ],
      },
      { not: { field: "tags", op: "in", value: ["vacation"] } },
      { field: "tags", op: "contains", value: "no_such_tag" },
      { field: "provider_name", op: "matches", value: "(?i)^(uber|lyft)" },
      {
        and: [
          {
            or: [
              { field: "provider_name", op: "contains", value: "mkt" },
              { field: "provider_merchant_name", op: "contains", value: "market" },
            ],
          },
          {
            not: {
              and: [
                { field: "amount", op: "gt", value: 100 },
                {
                  or: [
                    { field: "pending", op: "eq", value: true },
                    { field: "day_of_week", op: "eq", value: 6 },
                  ],
                },
              ],
            },
          },
        ],
      },
      { field: "metadata.receipt", op: "exists" },
      {
        or: [
          { field: "day_of_week", op: "gte", value: 6 },
          { field: "day_of_month", op: "approx", value: 15, tolerance: 2 },
        ],
      },
      {
        and: [
          { field: "month", op: "between", min: 2, max: 2 },
          { field: "day_of_year", op: "neq", value: 40 },
        ],
      },
      { field: "account_id", op: "eq", value: accounts[1].shortId },
      {},
    ];
    for (const [i, c] of conditions.entries()) {
      await resetRules(em);
      const tag = `agree_${i}`;
      await s.core.tags.createTag({ slug: tag }, admin);
      const p = await preview(c, 50);
      const rule = (
        await s.core.rules.createRule(
          { name: tag, conditions: valueOf(c), actions: valueOf([{ type: "add_tag", tag_slug: tag }]) },
          admin,
        )
      ).rule!;
      await em.fork().transactional((tx) => applyRulesOnSync(tx, { created: all, changed: [] }, syncActor));
      const tagged = await query<{ short_id: string }>(
        em,
        `select short_id from transactions where tag_ids @> array[(select id from tags where slug = ?)]`,
        [tag],
      );
      const label = JSON.stringify(c);
      expect(BigInt(tagged.length), label).toBe(p.matchCount);
      const taggedIds = new Set(tagged.map((t) => t.short_id));
      for (const m of p.sampleMatches) expect(taggedIds.has(m.transactionId), label).toBe(true);
      const applied = await s.core.rules.applyRule({ id: rule.id }, admin);
      expect({ matched: applied.matched, changed: applied.changed }, label).toEqual({
        matched: p.matchCount,
        changed: 0n,
      });
    }
    expect((await preview({ field: "tags", op: "contains", value: "agree_0" })).matchCount).toBeGreaterThan(0n);
  });
});

describe("preview_rule's time budget", () => {
  let slow: Stack;
  beforeAll(async () => {
    slow = await startStack({ rulePreviewTimeoutMs: 1 });
    const em = slow.orm.em.fork();
    const account = await newAccount(em, (await newUser(em)).id);
    await newTransactions(
      em,
      account.id,
      Array.from({ length: 3000 }, (_, i) => ({ providerName: `SHOP ${i}` })),
    );
  });
  afterAll(async () => {
    await slow?.close();
  });

  it("answers 400 with a clear message when the conditions take longer than the budget", async () => {
    const f = await expectCoreError(
      slow.core.rules.previewRule(
        { conditions: valueOf({ field: "provider_name", op: "matches", value: "(?i)shop \\d+$" }) },
        withKey(slow.adminKey),
      ),
      "VALIDATION_ERROR",
    );
    expect(f.message).toMatch(/^preview_rule stopped after 1 ms: these conditions take too long to judge on /);
  });
});
