import { validation } from "../errors/coffer-error.js";
import type { CredentialField, Credentials } from "./providers/provider.js";

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

function matches(field: CredentialField, v: unknown): boolean {
  switch (field.type) {
    case "string":
      return typeof v === "string";
    case "boolean":
      return typeof v === "boolean";
    case "integer":
      return typeof v === "number" && Number.isSafeInteger(v);
    case "object":
      return isObject(v);
  }
}

/**
 * Credentials as a provider's `credentials_schema` describes them: an
 * object with every required field, each of its declared type, and no field
 * the schema does not name. The message names the field (400 VALIDATION_ERROR).
 */
export function checkCredentials(provider: string, schema: Record<string, CredentialField>, raw: unknown): Credentials {
  if (!isObject(raw))
    throw validation(`credentials must be an object (GET /api/v1/providers/${provider} describes it)`);
  const fields = Object.keys(schema);
  for (const name of Object.keys(raw)) {
    if (!(name in schema)) {
      throw validation(`credentials.${name} is not a ${provider} credential; expected: ${fields.join(", ")}`);
    }
  }
  for (const [name, field] of Object.entries(schema)) {
    const v = raw[name];
    const absent =
      v === undefined || v === null || (field.type === "string" && typeof v === "string" && v.trim() === "");
    if (absent) {
      if (field.required) throw validation(`credentials.${name} is required (${field.description})`);
      continue;
    }
    if (!matches(field, v)) throw validation(`credentials.${name} must be ${article(field.type)} ${field.type}`);
  }
  return raw;
}

const article = (type: string) => (type === "integer" || type === "object" ? "an" : "a");
