// The condition grammar of rules (docs/rules.md, "Conditions"): fields, their kinds, and the operators
// each kind takes. The server validates every tree again; this table only drives the builder.
import type { ConditionLeaf, ConditionNode } from "../../app/types";

export type Kind = "string" | "number" | "boolean" | "tags" | "metadata";

export const FIELDS: { name: string; kind: Kind; label: string }[] = [
  { name: "provider_name", kind: "string", label: "bank text (raw name)" },
  { name: "provider_merchant_name", kind: "string", label: "merchant name (raw)" },
  { name: "provider_category_primary", kind: "string", label: "provider category" },
  { name: "provider_category_detailed", kind: "string", label: "provider category, detailed" },
  { name: "provider", kind: "string", label: "provider" },
  { name: "amount", kind: "number", label: "amount (positive = money out)" },
  { name: "pending", kind: "boolean", label: "pending" },
  { name: "account_id", kind: "string", label: "account id" },
  { name: "user_id", kind: "string", label: "member id" },
  { name: "day_of_month", kind: "number", label: "day of month (1-31)" },
  { name: "month", kind: "number", label: "month (1-12)" },
  { name: "day_of_week", kind: "number", label: "day of week (1 Mon – 7 Sun)" },
  { name: "day_of_year", kind: "number", label: "day of year" },
  { name: "account_name", kind: "string", label: "account name" },
  { name: "user_name", kind: "string", label: "member name" },
  { name: "counterparty", kind: "string", label: "counterparty name" },
  { name: "category", kind: "string", label: "category slug" },
  { name: "tags", kind: "tags", label: "tags" },
  { name: "series", kind: "string", label: "recurring series id" },
  { name: "in_series", kind: "boolean", label: "in a recurring series" },
  { name: "has_counterparty", kind: "boolean", label: "has a counterparty" },
  { name: "metadata.", kind: "metadata", label: "metadata key…" },
];

const STRING_OPS = ["eq", "neq", "contains", "not_contains", "matches", "in"];
const NUMBER_OPS = ["eq", "neq", "gt", "gte", "lt", "lte", "approx", "between"];

export const OPERATORS: Record<Kind, string[]> = {
  string: STRING_OPS,
  number: NUMBER_OPS,
  boolean: ["eq", "neq"],
  tags: ["contains", "not_contains", "in"],
  metadata: [...STRING_OPS, ...NUMBER_OPS.filter((o) => o !== "eq" && o !== "neq"), "exists", "not_exists"],
};

export const OP_LABELS: Record<string, string> = {
  eq: "is",
  neq: "is not",
  contains: "contains",
  not_contains: "does not contain",
  matches: "matches regex (RE2)",
  in: "is one of",
  gt: ">",
  gte: "≥",
  lt: "<",
  lte: "≤",
  approx: "is about (± tolerance)",
  between: "is between",
  exists: "exists",
  not_exists: "does not exist",
};

/** The kind of a leaf's field ("metadata.receipt" is metadata). */
export function kindOf(field: string): Kind {
  if (field.startsWith("metadata.")) return "metadata";
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
