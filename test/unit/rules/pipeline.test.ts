import { describe, expect, it } from "vitest";
import {
  compileConditions,
  firesOn,
  pipelineOrder,
  runPipeline,
  type CompiledRule,
  type RuleAction,
} from "../../../services/rules/engine/index.js";
import type { TransactionState } from "../../../services/rules/engine/pipeline.js";
import { ctxOf } from "./helpers.js";

// The pure pipeline: order, triggers, chaining, the category lock, and what it reports as changed.

const LIMITS = { maxMetadataKeys: 50, maxMetadataBytes: 16 * 1024 };
let seq = 0;

function rule(
  over: Partial<Omit<CompiledRule, "conditions">> & { conditions?: unknown; actions: RuleAction[] },
): CompiledRule {
  const n = ++seq;
  return {
    id: `00000000-0000-4000-8000-${String(n).padStart(12, "0")}`,
    shortId: `Rule${String(n).padStart(4, "0")}`,
    name: `rule ${n}`,
    priority: 100,
    createdAt: `2026-01-01T00:00:${String(n % 60).padStart(2, "0")}.000000`,
    trigger: "always",
    ...over,
    conditions: compileConditions(over.conditions ?? {}),
  };
}

const state = (over: Partial<TransactionState> = {}): TransactionState => ({
  categoryId: "cat-coffee",
  categorySource: "system",
  counterpartyId: null,
  ...over,
});
const setCategory = (slug: string): RuleAction => ({ type: "set_category", categoryId: `cat-${slug}`, slug });

describe("pipeline order and triggers", () => {
  it("sorts by priority, then older first, then id, whatever order the rules come in", () => {
    const a = rule({ priority: 5, createdAt: "2026-01-02T00:00:00.000000", actions: [] });
    const b = rule({ priority: 5, createdAt: "2026-01-01T00:00:00.000001", actions: [] });
    const c = rule({ priority: -3, createdAt: "2026-01-09T00:00:00.000000", actions: [] });
    const d = { ...rule({ priority: 5, createdAt: "2026-01-01T00:00:00.000001", actions: [] }), id: "ffffffff" };
    for (const input of [
      [a, b, c, d],
      [d, c, b, a],
      [b, d, a, c],
    ]) {
      expect(pipelineOrder(input).map((r) => r.id)).toEqual([c.id, b.id, d.id, a.id]);
    }
  });

  it.each([
    ["on_create", "create", true],
    ["on_create", "change", false],
    ["on_change", "create", false],
    ["on_change", "change", true],
    ["always", "create", true],
    ["always", "change", true],
  ] as const)("%s fires on %s: %s", (trigger, event, want) => {
    expect(firesOn(trigger, event)).toBe(want);
  });
});

describe("runPipeline", () => {
  it("lets later rules see what earlier ones set, and a later set_category wins", () => {
    const rules = [
      rule({
        conditions: { field: "provider_name", op: "contains", value: "starbucks" },
        actions: [setCategory("travel")],
      }),
      rule({
        conditions: { field: "category", op: "eq", value: "travel" },
        actions: [{ type: "add_tag", slug: "trip" }, setCategory("food")],
      }),
      rule({
        conditions: {
          and: [
            { field: "tags", op: "contains", value: "trip" },
            { field: "category", op: "eq", value: "food" },
          ],
        },
        actions: [{ type: "set_metadata", key: "seen", value: true }],
      }),
      rule({
        conditions: { field: "metadata.seen", op: "eq", value: true },
        actions: [{ type: "add_comment", content: "ok" }],
      }),
    ];
    const r = runPipeline(rules, ctxOf(), state(), LIMITS);
    expect(r.matched.map((m) => m.name)).toEqual(rules.map((x) => x.name));
    expect(r.category).toEqual({
      from: "food_and_drink_coffee",
      to: "food",
      toId: "cat-food",
      previousSource: "system",
      by: expect.objectContaining({ name: rules[1].name }),
    });
    expect(r.tagsAdded).toEqual([{ slug: "trip", by: expect.objectContaining({ name: rules[1].name }) }]);
    expect(r.metadata).toEqual([{ by: expect.objectContaining({ name: rules[2].name }), set: ["seen"], removed: [] }]);
    expect(r.comments).toEqual([{ content: "ok", by: expect.objectContaining({ name: rules[3].name }) }]);
    expect(r.after).toMatchObject({
      categoryId: "cat-food",
      categorySource: "rule",
      tags: ["business", "vacation", "trip"],
    });
    expect(r.changed).toBe(true);
  });

  it.each([
    ["user", false],
    ["agent", false],
    ["system", true],
    ["rule", true],
    [null, true],
  ] as const)("a category chosen by %s may be changed by a rule: %s", (source, changes) => {
    const r = runPipeline(
      [rule({ actions: [setCategory("travel"), { type: "add_tag", slug: "x" }] })],
      ctxOf(),
      state({ categorySource: source }),
      LIMITS,
    );
    expect(r.category !== null).toBe(changes);
    expect(r.after.categorySource).toBe(changes ? "rule" : source);
    expect(r.tagsAdded.map((t) => t.slug)).toEqual(["x"]);
  });

  it("reports no change when a later rule undoes an earlier one, but counts both matches", () => {
    const r = runPipeline(
      [
        rule({
          actions: [
            setCategory("travel"),
            { type: "add_tag", slug: "tmp" },
            { type: "set_metadata", key: "a", value: 1 },
          ],
        }),
        rule({
          actions: [
            { type: "set_category", categoryId: "cat-coffee", slug: "food_and_drink_coffee" },
            { type: "remove_tag", slug: "tmp" },
            { type: "remove_metadata", key: "a" },
          ],
        }),
      ],
      ctxOf(),
      state(),
      LIMITS,
    );
    expect(r.matched).toHaveLength(2);
    expect(r).toMatchObject({ category: null, tagsAdded: [], tagsRemoved: [], metadata: [], changed: false });
    expect(r.after.categorySource).toBe("system");
  });

  it("does not touch the input context (the caller's row stays as loaded)", () => {
    const ctx = ctxOf();
    const before = structuredClone(ctx);
    runPipeline(
      [
        rule({
          actions: [setCategory("x"), { type: "add_tag", slug: "t" }, { type: "set_metadata", key: "k", value: 1 }],
        }),
      ],
      ctx,
      state(),
      LIMITS,
    );
    expect(ctx).toEqual(before);
  });

  it("skips set_metadata past the limits and keeps going", () => {
    const metadata = Object.fromEntries(Array.from({ length: 50 }, (_, i) => [`k${i}`, i]));
    const r = runPipeline(
      [
        rule({
          actions: [
            { type: "set_metadata", key: "new", value: 1 },
            { type: "set_metadata", key: "k1", value: "changed" },
          ],
        }),
      ],
      ctxOf({ metadata }),
      state(),
      LIMITS,
    );
    expect(r.metadata).toEqual([{ by: expect.anything(), set: ["k1"], removed: [] }]);
    expect(Object.keys(r.after.metadata)).toHaveLength(50);
    const big = runPipeline(
      [rule({ actions: [{ type: "set_metadata", key: "k", value: "x".repeat(900) }] })],
      ctxOf({ metadata: {} }),
      state(),
      {
        maxMetadataKeys: 50,
        maxMetadataBytes: 100,
      },
    );
    expect(big.changed).toBe(false);
  });

  it("assign_series fills only a transaction without a series; flag adds the flagged tag with its reason", () => {
    const assign: RuleAction = { type: "assign_series", seriesId: "SerNew01", target: { seriesId: "SerNew01" } };
    const none = runPipeline([rule({ actions: [assign, { type: "flag", reason: "why" }] })], ctxOf(), state(), LIMITS);
    expect(none.series).toEqual({ to: "SerNew01", target: { seriesId: "SerNew01" }, by: expect.anything() });
    expect(none.tagsAdded).toEqual([{ slug: "flagged", by: expect.anything(), flagReason: "why" }]);
    const chained = runPipeline(
      [
        rule({ actions: [assign] }),
        rule({ conditions: { field: "in_series", op: "eq", value: true }, actions: [{ type: "flag", reason: null }] }),
      ],
      ctxOf(),
      state(),
      LIMITS,
    );
    expect(chained.matched).toHaveLength(2);
    const already = runPipeline(
      [rule({ actions: [assign] })],
      ctxOf({ series: "SerOld01", inSeries: true }),
      state(),
      LIMITS,
    );
    expect(already.series).toBeNull();
  });

  it("assign_counterparty is visible to later rules and reported once", () => {
    const r = runPipeline(
      [
        rule({ actions: [{ type: "assign_counterparty", counterpartyId: "cp-1", name: "Blue Bottle" }] }),
        rule({
          conditions: { field: "counterparty", op: "eq", value: "BLUE BOTTLE" },
          actions: [{ type: "add_tag", slug: "cp" }],
        }),
      ],
      ctxOf(),
      state(),
      LIMITS,
    );
    expect(r.counterparty).toEqual({ fromId: null, toId: "cp-1", toName: "Blue Bottle", by: expect.anything() });
    expect(r.tagsAdded.map((t) => t.slug)).toEqual(["cp"]);
  });

  it("a rule that matches but changes nothing is a match without a change", () => {
    const r = runPipeline([rule({ actions: [{ type: "add_tag", slug: "business" }] })], ctxOf(), state(), LIMITS);
    expect(r.matched).toHaveLength(1);
    expect(r.changed).toBe(false);
  });
});
