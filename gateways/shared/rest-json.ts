import { getOption, ScalarType, type DescField, type DescMessage, type Message } from "@bufbuild/protobuf";
import { timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import { decimal } from "../../gen/coffer/v1/options_pb.js";

type Json = null | boolean | number | string | Json[] | { [k: string]: Json };
type Convert = (value: unknown) => Json;

const INT64 = new Set([
  ScalarType.INT64,
  ScalarType.UINT64,
  ScalarType.SINT64,
  ScalarType.FIXED64,
  ScalarType.SFIXED64,
]);

/** A `(decimal)` string as REST shows it: a JSON number, or null when unset or empty. */
export const decimalNumber = (v: string | undefined): number | null => (v === undefined || v === "" ? null : Number(v));

function scalarConverter(field: DescField & { scalar: ScalarType }): Convert {
  if (INT64.has(field.scalar)) return (v) => Number(v);
  // getOption decodes the options anew on each call, so it is asked once here, per field.
  if (field.scalar === ScalarType.STRING && getOption(field, decimal)) return (v) => decimalNumber(v as string);
  return (v) => v as Json;
}

function messageConverter(desc: DescMessage): Convert {
  switch (desc.typeName) {
    case "google.protobuf.Timestamp":
      return (v) => timestampDate(v as Timestamp).toISOString();
    // protobuf-es already holds Struct/Value/ListValue fields as plain JSON.
    case "google.protobuf.Struct":
    case "google.protobuf.Value":
    case "google.protobuf.ListValue":
      return (v) => v as Json;
    default:
      return (v) => toRest(desc, v as Message);
  }
}

/** How to render one field's value; unset optional scalars and messages are undefined in protobuf-es. */
function fieldConverter(field: DescField): Convert {
  switch (field.fieldKind) {
    case "scalar": {
      const c = scalarConverter(field);
      return (v) => (v === undefined ? null : c(v));
    }
    case "enum":
      return (v) => field.enum.values.find((e) => e.number === v)?.name.toLowerCase() ?? null;
    case "message": {
      const c = messageConverter(field.message);
      return (v) => (v === undefined ? null : c(v));
    }
    case "list": {
      const c =
        field.listKind === "message"
          ? messageConverter(field.message)
          : field.listKind === "scalar"
            ? scalarConverter(field)
            : (v: unknown) => v as Json;
      return (v) => (v as unknown[]).map(c);
    }
    case "map": {
      const c =
        field.mapKind === "message"
          ? messageConverter(field.message)
          : field.mapKind === "scalar"
            ? scalarConverter(field)
            : (v: unknown) => v as Json;
      return (v) => {
        const m: { [k: string]: Json } = {};
        for (const [k, item] of Object.entries(v as Record<string, unknown>)) m[k] = c(item);
        return m;
      };
    }
  }
}

type Plan = { name: string; localName: string; convert: Convert }[];
const plans = new WeakMap<DescMessage, Plan>();

function planFor(desc: DescMessage): Plan {
  let plan = plans.get(desc);
  if (!plan) {
    plan = desc.fields.map((f) => ({ name: f.name, localName: f.localName, convert: fieldConverter(f) }));
    plans.set(desc, plan);
  }
  return plan;
}

/**
 * Renders a core message as REST JSON, driven by the schema: snake_case proto
 * names, unset optional fields as null, Timestamps as ISO 8601 UTC strings,
 * `(decimal)` strings as JSON numbers, int64 as numbers, enums by name.
 * One generic presenter instead of one hand-written mapper per resource; the
 * per-field work is decided once per message type (a page renders thousands of fields).
 */
export function toRest(desc: DescMessage, msg: Message): { [k: string]: Json } {
  const out: { [k: string]: Json } = {};
  const record = msg as unknown as Record<string, unknown>;
  for (const f of planFor(desc)) out[f.name] = f.convert(record[f.localName]);
  return out;
}
