import fc from "fast-check";
import { describe, expect, it } from "vitest";
import {
  FALSE,
  TRUE,
  compileConditions,
  pipelineOrder,
  runPipeline,
  truthOf,
  type CompiledRule,
  type TransactionContext,
} from "../../../services/rules/engine/index.js";
import { judge } from "./helpers.js";

// Property-based tests of the evaluator (fast-check): the operators keep their algebra, the
// combinators are boolean logic, and a partial context never claims more than a full one.

const text = fc.string({ maxLength: 12, unit: fc.constantFrom("a", "B", "c", "É", "é", " ", "1", "-", "İ", "ß") });
const cents = fc.integer({ min: -1_000_000, max: 1_000_000 });
const amount = (c: number) => {
  const abs = Math.abs(c);
  return `${c < 0 ? "-" : ""}${Math.floor(abs / 100)}.${String(abs % 100).padStart(2, "0")}`;
};

const context: fc.Arbitrary<TransactionContext> = fc.record({
  providerName: text,
  providerMerchantName: fc.option(text, { nil: null }),
  amountCents: cents,
  providerCategoryPrimary: fc.option(text, { nil: null }),
  providerCategoryDetailed: fc.option(text, { nil: null }),
  pending: fc.boolean(),
  provider: fc.constantFrom("plaid", "teller", "csv"),
  accountId: fc.constantFrom("AcctAb12", "AcctCd34"),
  userId: fc.constantFrom("UserAb12", "UserCd34"),
  day: fc.integer({ min: -25_000, max: 40_000 }),
  accountName: text,
  userName: text,
  category: fc.constantFrom("uncategorized", "food", "travel"),
  tags: fc.uniqueArray(fc.constantFrom("a", "b", "c"), { maxLength: 3 }),
  series: fc.constant(""),
  inSeries: fc.constant(false),
  counterparty: fc.option(text, { nil: null }),
  metadata: fc.dictionary(fc.constantFrom("k", "n"), fc.oneof(text, fc.integer({ min: -50, max: 50 }))),
});

const stringLeaf = fc.record({
  field: fc.constantFrom("provider_name", "provider_merchant_name", "account_name", "category"),
  op: fc.constantFrom("eq", "neq", "contains", "not_contains"),
  value: text,
});
const numberLeaf = fc.oneof(
  fc.record({
    field: fc.constant("amount"),
    op: fc.constantFrom("eq", "neq", "gt", "gte", "lt", "lte"),
    value: cents.map(amount),
  }),
  fc.record({
    field: fc.constantFrom("day_of_month"),
    op: fc.constantFrom("gt", "lte"),
    value: fc.integer({ min: 1, max: 31 }),
  }),
);
const otherLeaf = fc.oneof(
  fc.record({ field: fc.constant("pending"), op: fc.constantFrom("eq", "neq"), value: fc.boolean() }),
  fc.record({
    field: fc.constant("tags"),
    op: fc.constantFrom("contains", "not_contains"),
    value: fc.constantFrom("a", "b", "z"),
  }),
  fc.record({
    field: fc.constant("metadata.n"),
    op: fc.constantFrom("gt", "eq"),
    value: fc.integer({ min: -5, max: 5 }),
  }),
  fc.record({ field: fc.constant("metadata.n"), op: fc.constantFrom("eq", "contains"), value: text }),
  fc.record({ field: fc.constant("metadata.k"), op: fc.constantFrom("exists", "not_exists") }),
);
const leaf = fc.oneof(stringLeaf, numberLeaf, otherLeaf);

type Tree = Record<string, unknown>;
const tree: fc.Arbitrary<Tree> = fc
  .letrec<{ node: Tree }>((tie) => ({
    node: fc.oneof(
      { depthSize: "small", withCrossShrink: true },
      leaf,
      fc.record({ and: fc.array(tie("node"), { minLength: 1, maxLength: 3 }) }),
      fc.record({ or: fc.array(tie("node"), { minLength: 1, maxLength: 3 }) }),
      fc.record({ not: tie("node") }),
    ),
  }))
  .node.filter((t) => depth(t) <= 10);

function depth(t: Tree): number {
  if (Array.isArray(t.and)) return 1 + Math.max(...(t.and as Tree[]).map(depth));
  if (Array.isArray(t.or)) return 1 + Math.max(...(t.or as Tree[]).map(depth));
  if (t.not) return 1 + depth(t.not as Tree);
  return 1;
}

/** A reference reading of the combinators: leaves judged alone, combined with JavaScript's own logic. */
function reference(t: Tree, ctx: TransactionContext): boolean {
  if (Array.isArray(t.and)) return (t.and as Tree[]).every((c) => reference(c, ctx));
  if (Array.isArray(t.or)) return (t.or as Tree[]).some((c) => reference(c, ctx));
  if (t.not) return !reference(t.not as Tree, ctx);
  return judge(t, ctx);
}

const RUNS = { numRuns: 500 };

describe("evaluator properties", () => {
  it("neq is not eq, not_contains is not contains, in [v] is eq v", () => {
    fc.assert(
      fc.property(
        context,
        text,
        fc.constantFrom("provider_name", "provider_merchant_name", "user_name"),
        (ctx, v, field) => {
          const eq = judge({ field, op: "eq", value: v }, ctx);
          expect(judge({ field, op: "neq", value: v }, ctx)).toBe(!eq);
          expect(judge({ field, op: "in", value: [v] }, ctx)).toBe(eq);
          const contains = judge({ field, op: "contains", value: v }, ctx);
          expect(judge({ field, op: "not_contains", value: v }, ctx)).toBe(!contains);
        },
      ),
      RUNS,
    );
  });

  it("contains and eq ignore case the way lower-casing both sides does", () => {
    fc.assert(
      fc.property(context, text, (ctx, v) => {
        const name = ctx.providerName!;
        expect(judge({ field: "provider_name", op: "contains", value: v }, ctx)).toBe(
          name.toLowerCase().includes(v.toLowerCase()),
        );
        expect(judge({ field: "provider_name", op: "eq", value: v.toUpperCase() }, ctx)).toBe(
          name.toLowerCase() === v.toUpperCase().toLowerCase(),
        );
      }),
      RUNS,
    );
  });

  it("amounts: between is gte and lte, approx is a between, neq is not eq, gt is not lte", () => {
    fc.assert(
      fc.property(context, cents, cents, fc.nat({ max: 100_000 }), (ctx, a, b, tol) => {
        const [min, max] = a <= b ? [a, b] : [b, a];
        const amt = (op: string, v: number) => judge({ field: "amount", op, value: amount(v) }, ctx);
        expect(judge({ field: "amount", op: "between", min: amount(min), max: amount(max) }, ctx)).toBe(
          amt("gte", min) && amt("lte", max),
        );
        expect(judge({ field: "amount", op: "approx", value: amount(a), tolerance: amount(tol) }, ctx)).toBe(
          amt("gte", a - tol) && amt("lte", a + tol),
        );
        expect(amt("neq", a)).toBe(!amt("eq", a));
        expect(amt("gt", a)).toBe(!amt("lte", a));
        expect(amt("lt", a)).toBe(!amt("gte", a));
      }),
      RUNS,
    );
  });

  it("and, or and not are boolean logic over their parts", () => {
    fc.assert(
      fc.property(tree, context, (t, ctx) => {
        expect(judge(t, ctx)).toBe(reference(t, ctx));
      }),
      RUNS,
    );
  });

  it("double negation, De Morgan, and the order of parts change nothing", () => {
    fc.assert(
      fc.property(tree, tree, context, (a, b, ctx) => {
        expect(judge({ not: { not: a } }, ctx)).toBe(judge(a, ctx));
        expect(judge({ not: { and: [a, b] } }, ctx)).toBe(judge({ or: [{ not: a }, { not: b }] }, ctx));
        expect(judge({ not: { or: [a, b] } }, ctx)).toBe(judge({ and: [{ not: a }, { not: b }] }, ctx));
        expect(judge({ and: [a, b] }, ctx)).toBe(judge({ and: [b, a] }, ctx));
        expect(judge({ or: [a, b] }, ctx)).toBe(judge({ or: [b, a] }, ctx));
      }),
      RUNS,
    );
  });

  it("a context with only the name fields never decides differently from the full context", () => {
    fc.assert(
      fc.property(tree, context, (t, full) => {
        const partial: TransactionContext = {
          providerName: full.providerName,
          providerMerchantName: full.providerMerchantName,
        };
        const compiled = compileConditions(t);
        const known = truthOf(compiled, partial);
        // Known answers hold for every transaction with these names; unknown ones never match.
        if (known === TRUE || known === FALSE) expect(truthOf(compiled, full)).toBe(known);
      }),
      RUNS,
    );
  });

  it("the pipeline's result does not depend on the order rules are given in", () => {
    const ruleArb = fc.record({
      priority: fc.integer({ min: 0, max: 3 }),
      createdAt: fc.constantFrom("2026-01-01T00:00:00.000000", "2026-01-01T00:00:00.000001"),
      conditions: tree,
      slug: fc.constantFrom("food", "travel", "uncategorized"),
      tag: fc.constantFrom("a", "b", "c"),
    });
    fc.assert(
      fc.property(fc.array(ruleArb, { minLength: 1, maxLength: 6 }), context, fc.nat(), (specs, ctx, seed) => {
        const rules: CompiledRule[] = specs.map((s, i) => ({
          id: `00000000-0000-4000-8000-${String(i).padStart(12, "0")}`,
          shortId: `Rule${String(i).padStart(4, "0")}`,
          name: `r${i}`,
          priority: s.priority,
          createdAt: s.createdAt,
          trigger: "always",
          conditions: compileConditions(s.conditions),
          actions: [
            { type: "set_category", categoryId: s.slug, slug: s.slug },
            { type: "add_tag", slug: s.tag },
          ],
        }));
        const shuffled = [...rules].sort(
          (x, y) => ((x.id.charCodeAt(35) * 31 + seed) % 7) - ((y.id.charCodeAt(35) * 31 + seed) % 7),
        );
        const state = { categoryId: null, categorySource: null, counterpartyId: null };
        const limits = { maxMetadataKeys: 50, maxMetadataBytes: 16384 };
        expect(runPipeline(pipelineOrder(shuffled), ctx, state, limits)).toEqual(
          runPipeline(pipelineOrder(rules), ctx, state, limits),
        );
      }),
      { numRuns: 300 },
    );
  });
});
