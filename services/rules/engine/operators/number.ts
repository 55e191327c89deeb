import { AMOUNT, centsOf } from "../../../../common/money.js";
import type { NumberUnit } from "../fields.js";
import { refuse, wrongType, type Leaf, type Where } from "./leaf.js";

/**
 * Numeric operators (NUMBER_OPS in common/rule-grammar.ts). Amounts compare as integer cents (exact: NUMERIC(12,2)
 * fits a double without rounding), date parts as whole numbers, metadata as
 * JSON numbers. approx is |actual − value| ≤ tolerance; between is inclusive.
 * Something that is not a number (a metadata value "n/a") satisfies none of
 * them except neq.
 */

export type NumberTest = (n: number) => boolean;

function inUnit(where: Where, op: string, key: string, v: unknown, unit: NumberUnit, nonNegative = false): number {
  switch (unit.kind) {
    case "cents": {
      // An amount may come as a JSON number or as decimal text ("12.50").
      if (typeof v !== "number" && typeof v !== "string") return wrongType(where, key, op, "a number", v);
      const text = typeof v === "number" ? String(v) : v.trim();
      if (!AMOUNT.test(text)) refuse(where, `${key} must be an amount with at most 2 decimals, e.g. 12.50`);
      const cents = centsOf(text);
      if (nonNegative && cents < 0) refuse(where, `${key} must not be negative`);
      return cents;
    }
    case "integer": {
      if (typeof v !== "number") return wrongType(where, key, op, "a number", v);
      if (!Number.isInteger(v)) refuse(where, `${key} must be a whole number`);
      if (nonNegative) {
        if (v < 0) refuse(where, `${key} must not be negative`);
      } else if (v < unit.min || v > unit.max) {
        refuse(where, `${key} must be from ${unit.min} to ${unit.max} for field "${where.field}"`);
      }
      return v;
    }
    case "real": {
      if (typeof v !== "number") return wrongType(where, key, op, "a number", v);
      if (!Number.isFinite(v)) refuse(where, `${key} must be a finite number`);
      if (nonNegative && v < 0) refuse(where, `${key} must not be negative`);
      return v;
    }
  }
}

export function compileNumber(op: string, leaf: Leaf, unit: NumberUnit, where: Where): NumberTest {
  if (op === "between") {
    if (leaf.min === undefined || leaf.max === undefined) refuse(where, `operator "between" needs both min and max`);
    const min = inUnit(where, op, "min", leaf.min, unit);
    const max = inUnit(where, op, "max", leaf.max, unit);
    if (min > max) refuse(where, "min must not be greater than max");
    return (n) => n >= min && n <= max;
  }
  const v = inUnit(where, op, "value", leaf.value, unit);
  switch (op) {
    case "eq":
      return (n) => n === v;
    case "neq":
      return (n) => n !== v;
    case "gt":
      return (n) => n > v;
    case "gte":
      return (n) => n >= v;
    case "lt":
      return (n) => n < v;
    case "lte":
      return (n) => n <= v;
    case "approx": {
      if (leaf.tolerance === undefined) refuse(where, `operator "approx" needs a tolerance`);
      const tolerance = inUnit(where, op, "tolerance", leaf.tolerance, unit, true);
      return (n) => Math.abs(n - v) <= tolerance;
    }
    default:
      throw new Error(`not a numeric operator: ${op}`);
  }
}
