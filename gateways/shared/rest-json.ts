import { getOption, isFieldSet, ScalarType, type DescField, type DescMessage, type Message } from "@bufbuild/protobuf";
import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import { decimal } from "../../gen/coffer/v1/options_pb.js";

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };

const IMPLICIT = 2; // FeatureSet.FieldPresence.IMPLICIT: plain proto3 scalars
const INT64 = new Set([ScalarType.INT64, ScalarType.UINT64, ScalarType.SINT64, ScalarType.FIXED64, ScalarType.SFIXED64]);

// getOption decodes the field's options anew on every call (tens of µs); a page of
// transactions asks thousands of times, so the answer is kept per field.
const decimalFields = new WeakMap<DescField, boolean>();
function isDecimal(field: DescField): boolean {
  let yes = decimalFields.get(field);
  if (yes === undefined) decimalFields.set(field, (yes = getOption(field, decimal)));
  return yes;
}

function scalar(field: DescField, value: unknown): Json {
  if (field.fieldKind === "scalar" || field.fieldKind === "list" || field.fieldKind === "map") {
    const st = "scalar" in field ? field.scalar : undefined;
    if (st !== undefined && INT64.has(st)) return Number(value as bigint);
    if (st === ScalarType.STRING && isDecimal(field)) return value === "" ? null : Number(value as string);
  }
  return value as Json;
}

function message(desc: DescMessage, value: Message): Json {
  switch (desc.typeName) {
    case "google.protobuf.Timestamp":
      return timestampDate(value as Timestamp).toISOString();
    // protobuf-es already holds Struct/Value/ListValue fields as plain JSON.
    case "google.protobuf.Struct":
    case "google.protobuf.Value":
    case "google.protobuf.ListValue":
      return value as unknown as Json;
    default:
      return toRest(desc, value);
  }
}

/**
 * Renders a core message as REST JSON, driven by the schema: snake_case proto
 * names, unset optional fields as null, Timestamps as ISO 8601 UTC strings,
 * `(decimal)` strings as JSON numbers, int64 as numbers, enums by name.
 * One generic presenter instead of one hand-written mapper per resource.
 */
export function toRest(desc: DescMessage, msg: Message): { [k: string]: Json } {
  const out: { [k: string]: Json } = {};
  const record = msg as unknown as Record<string, unknown>;
  for (const field of desc.fields) {
    const value = record[field.localName];
    switch (field.fieldKind) {
      case "scalar":
        // Implicit-presence fields always have a value; `optional` ones are null when unset.
        out[field.name] = field.presence === IMPLICIT || isFieldSet(msg, field) ? scalar(field, value) : null;
        break;
      case "enum":
        out[field.name] = field.enum.values.find((v) => v.number === value)?.name.toLowerCase() ?? null;
        break;
      case "message":
        out[field.name] = isFieldSet(msg, field) ? message(field.message, value as Message) : null;
        break;
      case "list":
        out[field.name] = (value as unknown[]).map((item) =>
          field.listKind === "message" ? message(field.message, item as Message) : scalar(field, item),
        );
        break;
      case "map": {
        const m: { [k: string]: Json } = {};
        for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
          m[k] = field.mapKind === "message" ? message(field.message, v as Message) : scalar(field, v);
        }
        out[field.name] = m;
        break;
      }
    }
  }
  return out;
}
