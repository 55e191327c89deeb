// The rule builder's helpers over the condition grammar (docs/rules.md, "Conditions"), which is generated
// from the server's own table (web/src/api/rule-grammar.ts). The server validates every tree again.
import { FIELDS, METADATA_PREFIX, OPERATORS, type Kind } from "../../api/rule-grammar";

export { FIELDS, OPERATORS, OP_LABELS, type Kind } from "../../api/rule-grammar";

/**
 * The builder's model of a condition tree. The API types `conditions` as any JSON object (the core
 * judges the tree and names a bad node), so this is the console's own reading of it, not an answer shape.
 */
export type ConditionNode =
  Record<string, never> | { and: ConditionNode[] } | { or: ConditionNode[] } | { not: ConditionNode } | ConditionLeaf;

export interface ConditionLeaf {
  field: string;
  op: string;
  value?: unknown;
  min?: unknown;
  max?: unknown;
  tolerance?: unknown;
}

/**
 * A stored rule's conditions as the builder's tree. The core validated the tree when it was saved, so
 * it has this shape; null (no tree) is the empty tree, which matches everything.
 */
export function treeOf(conditions: Record<string, unknown> | null): ConditionNode {
  return (conditions ?? {}) as ConditionNode;
}

/** One action as the editor holds it: its type and that type's fields (ACTIONS below). */
export interface RuleAction {
  type: string;
  [key: string]: unknown;
}

/** The kind of a leaf's field ("metadata.receipt" is metadata). */
export function kindOf(field: string): Kind {
  if (field.startsWith(METADATA_PREFIX)) return "metadata";
  return FIELDS.find((f) => f.name === field)?.kind ?? "string";
}

export const isLeaf = (n: ConditionNode): n is ConditionLeaf => "field" in n;
export const isAnd = (n: ConditionNode): n is { and: ConditionNode[] } => "and" in n;
export const isOr = (n: ConditionNode): n is { or: ConditionNode[] } => "or" in n;
export const isNot = (n: ConditionNode): n is { not: ConditionNode } => "not" in n;

export function newLeaf(): ConditionLeaf {
  return { field: "provider_merchant_name", op: "contains", value: "" };
}

/** Reshapes a leaf for a new field or operator, keeping what still fits. */
export function reshape(leaf: ConditionLeaf, field: string, op: string): ConditionLeaf {
  const kind = kindOf(field);
  const ops = OPERATORS[kind];
  const nextOp = ops.includes(op) ? op : ops[0];
  const out: ConditionLeaf = { field, op: nextOp };
  if (nextOp === "exists" || nextOp === "not_exists") return out;
  if (nextOp === "between") return { ...out, min: leaf.min ?? "", max: leaf.max ?? "" };
  if (kind === "boolean") return { ...out, value: typeof leaf.value === "boolean" ? leaf.value : true };
  if (nextOp === "in") {
    const v = leaf.value;
    return { ...out, value: Array.isArray(v) ? v : typeof v === "string" && v ? [v] : [] };
  }
  const value: unknown = Array.isArray(leaf.value) ? ((leaf.value as unknown[])[0] ?? "") : (leaf.value ?? "");
  if (nextOp === "approx") return { ...out, value, tolerance: leaf.tolerance ?? "1.00" };
  return { ...out, value: typeof value === "boolean" ? "" : value };
}

/**
 * A number as the person typed it: amounts stay decimal text (exact cents, no float), whole-number
 * fields become numbers; anything else is sent as typed for the server to refuse with its reason.
 */
export function numberValue(field: string, text: string): unknown {
  if (field === "amount" || kindOf(field) === "metadata") return text;
  return /^-?\d+$/.test(text.trim()) ? Number(text.trim()) : text;
}

/** The rule actions (docs/rules.md, "Actions") and the fields each takes. */
export interface ActionField {
  name: string;
  label: string;
  optional?: boolean;
  boolean?: boolean;
}

export const ACTIONS: { type: string; label: string; fields: ActionField[] }[] = [
  { type: "set_category", label: "Set category", fields: [{ name: "category_slug", label: "Category" }] },
  { type: "add_tag", label: "Add tag", fields: [{ name: "tag_slug", label: "Tag" }] },
  { type: "remove_tag", label: "Remove tag", fields: [{ name: "tag_slug", label: "Tag" }] },
  { type: "add_comment", label: "Add comment", fields: [{ name: "content", label: "Comment" }] },
  {
    type: "set_metadata",
    label: "Set metadata",
    fields: [
      { name: "key", label: "Key" },
      { name: "value", label: "Value" },
    ],
  },
  { type: "remove_metadata", label: "Remove metadata", fields: [{ name: "key", label: "Key" }] },
  {
    type: "assign_counterparty",
    label: "Assign counterparty",
    fields: [{ name: "counterparty_id", label: "Counterparty id" }],
  },
  {
    type: "assign_series",
    label: "Assign recurring series",
    fields: [
      { name: "series_id", label: "Series id", optional: true },
      { name: "series_name", label: "or series name", optional: true },
      { name: "create_if_missing", label: "Create the series if missing", optional: true, boolean: true },
    ],
  },
  { type: "flag", label: "Flag", fields: [{ name: "reason", label: "Reason", optional: true }] },
];
