import { Ajv, type ErrorObject, type ValidateFunction } from "ajv";
import type { JsonSchema } from "./route.js";

// Query strings and path params arrive as text and are coerced; JSON bodies are typed, so never coerced.
// strictNumbers: NaN and ±Infinity are not numbers (JSON's 1e400 parses to Infinity).
const queryAjv = new Ajv({ coerceTypes: "array", useDefaults: true, removeAdditional: false, strictNumbers: true });
const bodyAjv = new Ajv({ coerceTypes: false, useDefaults: true, removeAdditional: false, strictNumbers: true });

/** How a number is written in a query string: plain decimal digits, at most 15 of them (exact in a double). */
const NUMBER_TEXT = { integer: /^-?\d{1,15}$/, number: /^-?\d{1,15}(\.\d{1,15})?$/ } as const;

/**
 * The query validator: ajv, after a check that every number is written as
 * plain digits. ajv's coercion takes whatever `+text` makes of it, so
 * "Infinity", "1e400", "0x10" and " 5" would pass as integers (the first two
 * then failed in the core call as a 500).
 */
function queryValidator(schema: JsonSchema) {
  const validate = queryAjv.compile(schema);
  const numeric: [string, keyof typeof NUMBER_TEXT][] = [];
  for (const [name, prop] of Object.entries(schema.properties ?? {})) {
    const types = typeof prop === "object" ? [prop.type].flat() : [];
    if (types.includes("integer")) numeric.push([name, "integer"]);
    else if (types.includes("number")) numeric.push([name, "number"]);
  }
  if (numeric.length === 0) return validate;
  const check = (query: unknown) => {
    const q = (query ?? {}) as Record<string, unknown>;
    for (const [name, kind] of numeric) {
      const given = q[name];
      if (given === undefined) continue;
      if (![given].flat().every((v) => typeof v === "string" && NUMBER_TEXT[kind].test(v))) {
        const what = kind === "integer" ? "a whole number" : "a number";
        check.errors = [
          {
            instancePath: `/${name}`,
            schemaPath: "#",
            keyword: "type",
            params: {},
            message: `must be ${what} written in digits`,
          },
        ];
        return false;
      }
    }
    const ok = validate(query);
    check.errors = validate.errors;
    return ok;
  };
  check.errors = null as ErrorObject[] | null | undefined;
  return check;
}

/** The validator fastify uses for one part of a request: ajv for bodies, queryValidator for the rest. */
export function validatorFor(
  schema: JsonSchema,
  httpPart: string | undefined,
): ValidateFunction | ReturnType<typeof queryValidator> {
  return httpPart === "body" ? bodyAjv.compile(schema) : queryValidator(schema);
}
