import { kindOf, shown } from "../errors.js";
import type { MetadataField } from "../fields.js";
import { listValue, refuse, wrongType, MAX_STRING, type Leaf, type Where } from "./leaf.js";
import { compileNumber } from "./number.js";
import { compileString } from "./string.js";

/**
 * Operators on `metadata.<key>`: exists and not_exists, the string operators
 * (on the value's text: numbers and booleans as written, a missing key as "")
 * and the numeric ones (on a number, or on text that is a plain decimal
 * number). eq and neq compare as numbers when the condition's value is a
 * number, as text otherwise.
 */

/** A metadata value as text, for the string operators. */
export function metadataText(present: boolean, v: unknown): string {
  if (!present || v === null || v === undefined) return "";
  if (typeof v === "string") return v;
  if (typeof v === "number" || typeof v === "boolean") return String(v);
  return JSON.stringify(v);
}

const DECIMAL = /^\s*-?\d+(\.\d+)?\s*$/;

/** A metadata value as a number, for the numeric operators; NaN when it is not one. */
export function metadataNumber(present: boolean, v: unknown): number {
  if (!present) return NaN;
  if (typeof v === "number") return v;
  if (typeof v === "string" && DECIMAL.test(v)) return Number(v);
  return NaN;
}

export type MetadataTest = (present: boolean, value: unknown, lowered: () => string) => boolean;

const STRING_ONLY = new Set(["contains", "not_contains", "matches", "in"]);
const NUMBER_ONLY = new Set(["gt", "gte", "lt", "lte", "approx", "between"]);

export function compileMetadata(op: string, leaf: Leaf, field: MetadataField, where: Where): MetadataTest {
  if (op === "exists" || op === "not_exists") {
    const want = op === "exists";
    return (present) => present === want;
  }
  const numeric = NUMBER_ONLY.has(op) || ((op === "eq" || op === "neq") && typeof leaf.value === "number");
  if (numeric) {
    const t = compileNumber(op, leaf, { kind: "real" }, where);
    return (present, v) => t(metadataNumber(present, v));
  }
  if (op === "in") {
    // Text or numbers, compared as text.
    const values = listValue(where, op, leaf.value).map((v, i) => {
      if (typeof v === "number") return String(v);
      if (typeof v !== "string") return wrongType(where, `value[${i}]`, op, "a string or a number", v);
      if (v.length > MAX_STRING) refuse(where, `value[${i}] may be at most ${MAX_STRING} characters`);
      return v;
    });
    const t = compileString(op, { ...leaf, value: values }, where);
    return (_present, _v, lowered) => t.test(lowered());
  }
  if (!STRING_ONLY.has(op) && typeof leaf.value === "boolean") {
    // eq/neq true or false: compared with the value's text, "true" or "false".
    const t = compileString(op, { ...leaf, value: String(leaf.value) }, where);
    return (_present, _v, lowered) => t.test(lowered());
  }
  if (typeof leaf.value !== "string") {
    const wanted = STRING_ONLY.has(op) ? "a string" : "a string, a number, true or false";
    refuse(
      where,
      `value must be ${wanted} for operator ${shown(op)} on field ${shown(field.name)}, got ${kindOf(leaf.value)}`,
    );
  }
  const t = compileString(op, leaf, where);
  return t.folded ? (_present, _v, lowered) => t.test(lowered()) : (present, v) => t.test(metadataText(present, v));
}
