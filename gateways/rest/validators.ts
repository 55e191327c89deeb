import { z } from "zod";
import type { JsonSchema } from "./route.js";

/**
 * REST request validation: zod, through fastify-type-provider-zod's validator
 * compiler (app.ts). A body is parsed as sent (JSON is typed, so nothing is
 * coerced); a query string is text, so queryOf first turns each parameter's
 * text into the type its shape asks for, then the same zod shape judges it.
 */

/** How a number is written in a query string: plain decimal digits, at most 15 of them (exact in a double). */
const NUMBER_TEXT = { integer: /^-?\d{1,15}$/, number: /^-?\d{1,15}(\.\d{1,15})?$/ } as const;

type Coerce = (text: unknown) => unknown;

/** The JSON types a property's schema admits: its `type`, or its alternatives' (a union). */
function typesOf(s: JsonSchema): string[] {
  if (s.type !== undefined) return [s.type].flat();
  return (s.anyOf ?? s.oneOf ?? []).flatMap((alt) => (typeof alt === "object" ? typesOf(alt) : []));
}

/**
 * Text to a scalar of one of `types`. Numbers only from plain digits: Number()
 * would take "Infinity", "1e400", "0x10" and " 5". Text that is no such value
 * stays text, and zod then names the expected type.
 */
function scalarCoercer(types: string[]): Coerce {
  const kind = types.includes("integer") ? "integer" : types.includes("number") ? "number" : undefined;
  const bool = types.includes("boolean");
  const text = types.includes("string");
  return (v) => {
    if (typeof v !== "string" || text) return v;
    if (kind && NUMBER_TEXT[kind].test(v)) return Number(v);
    if (bool && (v === "true" || v === "false")) return v === "true";
    return v;
  };
}

/** One query parameter: a repeated parameter arrives as an array, a single one as text. */
function parameterCoercer(s: JsonSchema): Coerce {
  const types = typesOf(s);
  const scalar = scalarCoercer(types);
  if (!types.includes("array")) {
    // One value given twice is not two values: only a lone element is unwrapped.
    return (v) => (Array.isArray(v) && v.length === 1 ? scalar(v[0]) : scalar(v));
  }
  const arrays = [s, ...(s.anyOf ?? [])].filter((a): a is JsonSchema => typeof a === "object" && a.type === "array");
  const items = arrays[0]?.items;
  const item = typeof items === "object" && !Array.isArray(items) ? scalarCoercer(typesOf(items)) : (v: unknown) => v;
  const textToo = types.includes("string");
  return (v) => (Array.isArray(v) ? v.map(item) : textToo ? v : [item(v)]);
}

/**
 * The zod schema fastify validates a query string with: the strict object of
 * `shape` (unknown parameters refused by name), after each parameter's text is
 * coerced to the types the shape's JSON Schema lists ("true" → true, "20" → 20).
 */
export function queryOf(shape: z.ZodRawShape): z.ZodType {
  const strict = z.strictObject(shape);
  const json = z.toJSONSchema(strict, { target: "draft-7", io: "input" });
  const coercers = new Map(
    Object.entries(json.properties ?? {}).flatMap(([name, prop]) =>
      typeof prop === "object" ? [[name, parameterCoercer(prop)] as const] : [],
    ),
  );
  return z.preprocess((query) => {
    if (typeof query !== "object" || query === null) return query;
    const out: Record<string, unknown> = {};
    for (const [name, value] of Object.entries(query)) out[name] = coercers.get(name)?.(value) ?? value;
    return out;
  }, strict);
}

/** The zod schema of a JSON body: a shape is a strict object (unknown fields refused by name). */
export function bodyOf(body: z.ZodRawShape | z.ZodType<object>): z.ZodType {
  return body instanceof z.ZodType ? body : z.strictObject(body);
}

const THE = {
  string: "a string",
  number: "a number",
  boolean: "true or false",
  object: "an object",
  array: "an array",
};

/** "a string", "a number", … for an expected type zod names. */
const typeName = (t: string) => THE[t as keyof typeof THE] ?? t;

const sizeOf = (origin: string, n: number | bigint) =>
  origin === "string" ? `${n} characters` : origin === "array" || origin === "set" ? `${n} items` : String(n);

/**
 * How REST words a failed check in a body: "<field> <message>" reads as a sentence
 * ("limit must be at most 500"). A message the shape itself gives (a pattern's
 * "must be a date written YYYY-MM-DD") wins over this map, as zod orders them.
 */
export const bodyErrorMap: z.core.$ZodErrorMap = (issue) => {
  switch (issue.code) {
    case "invalid_type":
      if (issue.input === undefined) return "is required";
      if (issue.expected === "number" && typeof issue.input === "number") return "must be a finite number";
      return `must be ${typeName(issue.expected)}`;
    case "too_big":
      return `must be ${issue.inclusive === false ? "less than" : "at most"} ${sizeOf(issue.origin, issue.maximum)}`;
    case "too_small":
      return `must be ${issue.inclusive === false ? "more than" : "at least"} ${sizeOf(issue.origin, issue.minimum)}`;
    case "invalid_value":
      return `must be one of ${issue.values.map(String).join(", ")}`;
    case "invalid_format":
      return issue.format === "regex" && "pattern" in issue
        ? `must match the pattern ${String(issue.pattern)}`
        : `must be ${issue.format}`;
    case "invalid_union":
      return "matches none of the allowed forms";
    default:
      return undefined;
  }
};

/** A query's text that stayed text where a number was wanted was not written in plain digits. */
export const queryErrorMap: z.core.$ZodErrorMap = (issue) =>
  issue.code === "invalid_type" && issue.expected === "number" && typeof issue.input === "string"
    ? "must be a number written in digits"
    : bodyErrorMap(issue);

/**
 * A request part's schema with REST's wording: the part is parsed with one of
 * the maps above (fastify-type-provider-zod's compiler takes none), and its
 * issues are handed on as they are, path and code included.
 */
export function worded(schema: z.ZodType, error: z.core.$ZodErrorMap): z.ZodType {
  return z.unknown().transform((value, ctx) => {
    const parsed = schema.safeParse(value, { error });
    if (parsed.success) return parsed.data;
    for (const issue of parsed.error.issues) ctx.issues.push({ ...issue, input: undefined });
    return z.NEVER;
  });
}

/** One failed check as fastify-type-provider-zod hands it to the error handler. */
export interface ValidationEntry {
  keyword: string;
  instancePath: string;
  message?: string;
  params: Record<string, unknown>;
}

/** What was wrong with one part of a request: the field it names (null: the part as a whole) and why. */
export function describeIssue(entry: ValidationEntry, part: string): { name: string | null; message: string } {
  const why = entry.message ?? "is not valid";
  const keys = entry.params.keys;
  if (entry.keyword === "unrecognized_keys" && Array.isArray(keys) && typeof keys[0] === "string") {
    const what = part === "querystring" ? "query parameter" : "field";
    return { name: keys[0], message: `unknown ${what} ${keys[0]}` };
  }
  // "/actions/1/type" → "actions.1.type", as the paths of the core's own messages read.
  const name = entry.instancePath.replace(/^\//, "").replace(/\//g, ".");
  if (!name) return { name: null, message: `${part} ${why}` };
  const sep = /^(is|must|matches) /.test(why) ? " " : ": ";
  return { name, message: `${name}${sep}${why}` };
}
