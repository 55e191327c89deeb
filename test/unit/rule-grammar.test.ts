import { readFileSync } from "node:fs";
import { describe, expect, it } from "vitest";
import { GRAMMAR_FILE, ruleGrammarModule } from "../../cli/rule-grammar.js";
import { OPERATORS, RULE_FIELDS } from "../../common/rule-grammar.js";
import { conditionsArg } from "../../gateways/mcp/tools/rules-read.js";
import { FIELDS, fieldNamed } from "../../services/rules/engine/index.js";

describe("the rule grammar has one source", () => {
  it("the engine reads every field of the grammar, with its kind, and no other", () => {
    expect([...FIELDS.keys()]).toEqual(RULE_FIELDS.map((f) => f.name));
    for (const g of RULE_FIELDS) {
      const f = FIELDS.get(g.name)!;
      expect({ name: f.name, kind: f.kind, class: f.class }).toEqual({ name: g.name, kind: g.kind, class: g.class });
      if (f.kind === "number") expect(f.unit).toEqual("unit" in g ? g.unit : undefined);
      if (f.kind === "string") expect(f.exact).toBe("exact" in g && g.exact === true);
    }
    expect(fieldNamed("metadata.receipt")?.kind).toBe("metadata");
  });

  it("the MCP condition argument names every field and every operator", () => {
    const text = conditionsArg.description!;
    for (const f of RULE_FIELDS) expect(text).toContain(f.name);
    for (const op of new Set(Object.values(OPERATORS).flat())) expect(text).toContain(op);
    expect(text).toContain("metadata.<key>");
  });

  it("the console's copy (web/src/api/rule-grammar.ts) is what `npm run rule-grammar` writes today", async () => {
    expect(readFileSync(GRAMMAR_FILE, "utf8")).toBe(await ruleGrammarModule());
  });
});
