import { wrongType, type Leaf, type Where } from "./leaf.js";

/** Boolean operators (BOOLEAN_OPS in common/rule-grammar.ts): eq and neq with true or false. */
export function compileBoolean(op: string, leaf: Leaf, where: Where): (b: boolean) => boolean {
  const v = leaf.value;
  if (typeof v !== "boolean") return wrongType(where, "value", op, "true or false", v);
  return op === "eq" ? (b) => b === v : (b) => b !== v;
}
