/**
 * The condition grammar of rules, in one place: the fields a condition may
 * name, each with its value kind, and the operators each kind takes. The
 * core's engine and prefilter, the MCP tool descriptions and (generated into
 * web/src/api/rule-grammar.ts by `npm run rule-grammar`) the console's rule
 * builder all read this table. How a field is read from a transaction stays
 * in the engine (services/rules/engine/fields.ts); what it is, is here.
 */

/** What a field's values are; it decides the operators the field takes. */
export type ValueKind = "string" | "number" | "boolean" | "tags" | "metadata";

/** How stable a field is (docs/rules.md): raw provider data is what rules should match on. */
export type FieldClass = "raw" | "surrogate" | "date" | "display";

/** How a numeric field's values are written and compared. */
export type NumberUnit =
  /** Amounts: exact decimals with at most 2 places, compared as integer cents. */
  | { kind: "cents" }
  /** Date parts: whole numbers in a range. */
  | { kind: "integer"; min: number; max: number }
  /** Metadata numbers: any finite JSON number. */
  | { kind: "real" };

export interface GrammarField {
  name: string;
  kind: ValueKind;
  class: FieldClass;
  /** How the console's builder names it. */
  label: string;
  /** String identifiers (short ids) compare exactly; every other string case-insensitively. */
  exact?: boolean;
  /** Numeric fields only. */
  unit?: NumberUnit;
}

const days = (min: number, max: number): NumberUnit => ({ kind: "integer", min, max });

/** Every named field, in the order documentation and the builder list them. */
export const RULE_FIELDS = [
  // Raw, immutable after import: what rules should match on.
  { name: "provider_name", kind: "string", class: "raw", label: "bank text (raw name)" },
  { name: "provider_merchant_name", kind: "string", class: "raw", label: "merchant name (raw)" },
  { name: "amount", kind: "number", class: "raw", label: "amount (positive = money out)", unit: { kind: "cents" } },
  { name: "provider_category_primary", kind: "string", class: "raw", label: "provider category" },
  { name: "provider_category_detailed", kind: "string", class: "raw", label: "provider category, detailed" },
  { name: "pending", kind: "boolean", class: "raw", label: "pending" },
  { name: "provider", kind: "string", class: "raw", label: "provider" },
  // Stable surrogates (short ids).
  { name: "account_id", kind: "string", class: "surrogate", label: "account id", exact: true },
  { name: "user_id", kind: "string", class: "surrogate", label: "member id", exact: true },
  // Derived from the transaction date.
  { name: "day_of_month", kind: "number", class: "date", label: "day of month (1-31)", unit: days(1, 31) },
  { name: "month", kind: "number", class: "date", label: "month (1-12)", unit: days(1, 12) },
  { name: "day_of_week", kind: "number", class: "date", label: "day of week (1 Mon – 7 Sun)", unit: days(1, 7) },
  { name: "day_of_year", kind: "number", class: "date", label: "day of year", unit: days(1, 366) },
  // Mutable display values: for chaining rules, not as the primary match.
  { name: "account_name", kind: "string", class: "display", label: "account name" },
  { name: "user_name", kind: "string", class: "display", label: "member name" },
  { name: "category", kind: "string", class: "display", label: "category slug" },
  { name: "tags", kind: "tags", class: "display", label: "tags" },
  { name: "series", kind: "string", class: "display", label: "recurring series id", exact: true },
  { name: "in_series", kind: "boolean", class: "display", label: "in a recurring series" },
  { name: "counterparty", kind: "string", class: "display", label: "counterparty name" },
  { name: "has_counterparty", kind: "boolean", class: "display", label: "has a counterparty" },
] as const satisfies readonly GrammarField[];

export type RuleFieldName = (typeof RULE_FIELDS)[number]["name"];

/** "metadata.<key>": a transaction's metadata value under that key. */
export const METADATA_PREFIX = "metadata.";
/** Metadata keys as transactions store them (services/ledger/transactions/metadata.ts). */
export const METADATA_KEY = /^[A-Za-z0-9_.-]{1,64}$/;
export const METADATA_LABEL = "metadata key…";

export const STRING_OPS = ["eq", "neq", "contains", "not_contains", "matches", "in"] as const;
export const NUMBER_OPS = ["eq", "neq", "gt", "gte", "lt", "lte", "approx", "between"] as const;
export const BOOLEAN_OPS = ["eq", "neq"] as const;
export const TAGS_OPS = ["contains", "not_contains", "in"] as const;
/** Metadata holds strings or numbers: every operator of both, and whether the key is there at all. */
export const METADATA_OPS: readonly string[] = [...new Set([...STRING_OPS, ...NUMBER_OPS, "exists", "not_exists"])];

/** The operators each value kind takes; the first is the builder's default. */
export const OPERATORS: Record<ValueKind, readonly string[]> = {
  string: STRING_OPS,
  number: NUMBER_OPS,
  boolean: BOOLEAN_OPS,
  tags: TAGS_OPS,
  metadata: METADATA_OPS,
};

/** How each operator reads in a sentence ("amount is between …"). */
export const OPERATOR_LABELS: Record<string, string> = {
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

/** Deepest nesting: a leaf alone is depth 1, `{not: leaf}` depth 2. */
export const MAX_DEPTH = 10;

/** Every field name a condition may use, for messages and docs ("metadata.<key>" last). */
export const FIELD_NAMES: readonly string[] = [...RULE_FIELDS.map((f) => f.name), `${METADATA_PREFIX}<key>`];

const KIND_TITLE: Record<ValueKind, string> = {
  string: "strings",
  number: "numbers",
  boolean: "booleans",
  tags: "tags",
  metadata: "metadata",
};

/** The grammar in one paragraph, for an agent (the MCP tools' condition argument). */
export function describeGrammar(): string {
  const fields = RULE_FIELDS.map((f) => (f.name === "day_of_week" ? `${f.name} (1 = Monday)` : f.name));
  const ops = (Object.keys(OPERATORS) as ValueKind[])
    .map((k) => `${KIND_TITLE[k]}: ${OPERATORS[k].join(", ").replace("matches", "matches (RE2)")}`)
    .join("; ");
  return (
    "condition tree: a leaf {field, op, value} (approx adds tolerance; between takes min and max), or " +
    `{and: [...]}, {or: [...]}, {not: {...}}, up to ${MAX_DEPTH} deep; {} matches everything. ` +
    `Fields: ${[...fields, `${METADATA_PREFIX}<key>`].join(", ")}. Operators by value kind: ${ops}. ` +
    "Strings compare case-insensitively (matches is case-sensitive unless (?i)). Match on the raw provider fields."
  );
}
