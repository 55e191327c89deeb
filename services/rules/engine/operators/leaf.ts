import { RuleValidationError, kindOf, shown } from "../errors.js";

/** A leaf as written: {field, op, value} (+ tolerance for approx, min and max for between). */
export interface Leaf {
  field: string;
  op: string;
  value?: unknown;
  tolerance?: unknown;
  min?: unknown;
  max?: unknown;
}

/** Where a leaf is, for messages: its path in the tree and the field it names. */
export interface Where {
  path: string;
  field: string;
}

/** Throws the validation error for this leaf. */
export function refuse(where: Where, problem: string): never {
  throw new RuleValidationError(where.path, problem);
}

/** "value must be a string for "contains" on field "provider_name", got a number" */
export function wrongType(where: Where, key: string, op: string, wanted: string, got: unknown): never {
  return refuse(
    where,
    `${key} must be ${wanted} for operator ${shown(op)} on field ${shown(where.field)}, got ${kindOf(got)}`,
  );
}

/** Longest string a condition compares with (names and patterns are far shorter). */
export const MAX_STRING = 1000;
/** Most values an `in` list may hold. */
export const MAX_IN = 500;

export function stringValue(where: Where, op: string, v: unknown, key = "value"): string {
  if (typeof v !== "string") return wrongType(where, key, op, "a string", v);
  if (v.length > MAX_STRING) refuse(where, `${key} may be at most ${MAX_STRING} characters`);
  return v;
}

export function listValue(where: Where, op: string, v: unknown): unknown[] {
  if (!Array.isArray(v)) return wrongType(where, "value", op, "an array", v);
  if (v.length === 0) refuse(where, `value of operator "in" must list at least one value`);
  if (v.length > MAX_IN) refuse(where, `value of operator "in" may list at most ${MAX_IN} values`);
  return v;
}
