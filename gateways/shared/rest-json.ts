import { getOption, ScalarType, type DescField, type DescMessage, type Message } from "@bufbuild/protobuf";
import { FeatureSet_FieldPresence, timestampDate, type Timestamp } from "@bufbuild/protobuf/wkt";
import { z } from "zod";
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

type Shape = Record<string, z.ZodType>;
const shapes = new WeakMap<DescMessage, z.ZodObject<Shape>>();

/** The JSON toRest writes for one scalar (int64 → number, `(decimal)` string → number or null). */
function scalarZod(field: DescField & { scalar: ScalarType }): z.ZodType {
  if (field.scalar === ScalarType.STRING) return getOption(field, decimal) ? z.number().nullable() : z.string();
  if (field.scalar === ScalarType.BOOL) return z.boolean();
  if (field.scalar === ScalarType.BYTES) return z.unknown();
  if (field.scalar === ScalarType.DOUBLE || field.scalar === ScalarType.FLOAT) return z.number();
  return z.number().int();
}

/** toISOString()'s text: the format says it, without zod's long date-time pattern. */
const isoTimestamp = z.string().meta({ format: "date-time" });

function messageZod(desc: DescMessage): z.ZodType {
  switch (desc.typeName) {
    case "google.protobuf.Timestamp":
      return isoTimestamp;
    case "google.protobuf.Struct":
      return z.record(z.string(), z.unknown());
    case "google.protobuf.Value":
      return z.unknown();
    case "google.protobuf.ListValue":
      return z.array(z.unknown());
    default:
      return restShapeOf(desc);
  }
}

function fieldZod(field: DescField): z.ZodType {
  // Unset optional scalars and unset messages are null in REST JSON; proto3 plain scalars always have a value.
  const orNull = (t: z.ZodType, explicit: boolean) => (explicit ? t.nullable() : t);
  switch (field.fieldKind) {
    case "scalar":
      return orNull(scalarZod(field), field.presence !== FeatureSet_FieldPresence.IMPLICIT);
    case "enum": {
      const names = field.enum.values.map((e) => e.name.toLowerCase());
      return z.enum(names as [string, ...string[]]).nullable();
    }
    case "message":
      return messageZod(field.message).nullable();
    case "list":
      return z.array(
        field.listKind === "message"
          ? messageZod(field.message)
          : field.listKind === "scalar"
            ? scalarZod(field)
            : z.string(),
      );
    case "map":
      return z.record(
        z.string(),
        field.mapKind === "message"
          ? messageZod(field.message)
          : field.mapKind === "scalar"
            ? scalarZod(field)
            : z.string(),
      );
  }
}

/**
 * The shape of what toRest renders for a message, as a zod object: the REST
 * gateway's response schemas (and so the OpenAPI document) are derived from
 * the same descriptors as the JSON itself, field by field. Each message is
 * named by its proto name (meta id: a component of the OpenAPI document), and
 * its fields are getters, so a message that contains itself (a category's
 * children) is a reference, not an endless schema.
 */
export function restShapeOf(desc: DescMessage): z.ZodObject<Shape> {
  let shape = shapes.get(desc);
  if (!shape) {
    const fields: Shape = {};
    for (const f of desc.fields) {
      let made: z.ZodType | undefined;
      Object.defineProperty(fields, f.name, { enumerable: true, get: () => (made ??= fieldZod(f)) });
    }
    shape = z.object(fields).meta({ id: desc.name });
    shapes.set(desc, shape);
  }
  return shape;
}
