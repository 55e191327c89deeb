import { toJson, type JsonValue } from "@bufbuild/protobuf";
import { ValueSchema, timestampFromDate, type Timestamp, type Value } from "@bufbuild/protobuf/wkt";
import { CofferError } from "../errors/coffer-error.js";

export const ts = (d: Date): Timestamp => timestampFromDate(d);
export const tsOrUndef = (d: Date | null | undefined): Timestamp | undefined => (d ? timestampFromDate(d) : undefined);
export const orUndef = <T>(v: T | null | undefined): T | undefined => (v === null ? undefined : v);

/**
 * A Timestamp from UTC ISO 8601 text as SQL renders it (millisecond precision), written as a
 * literal: it is called three times per row of a transaction page, where create() costs more.
 */
export function tsFromIso(iso: string): Timestamp {
  const ms = Date.parse(iso);
  const seconds = Math.floor(ms / 1000);
  return { $typeName: "google.protobuf.Timestamp", seconds: BigInt(seconds), nanos: (ms - seconds * 1000) * 1_000_000 };
}

/**
 * The JSON a google.protobuf.Value field carries, or undefined when the field
 * is unset (protobuf-es holds Value as a message; Struct fields are plain JSON already).
 * A Value no JSON can hold (a number that is NaN or Infinity, a Value of no kind)
 * comes only from a caller's own message: a validation error naming the field.
 */
export function jsonOf(v: Value | undefined, field: string): JsonValue | undefined {
  if (v === undefined) return undefined;
  try {
    return toJson(ValueSchema, v);
  } catch {
    throw new CofferError("VALIDATION_ERROR", `${field} must be JSON: no NaN, no Infinity, no empty value`);
  }
}
