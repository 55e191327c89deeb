import type { EntitySchema } from "@mikro-orm/core";
import type { Em } from "../db/orm.js";
import { parseId } from "./resolve-id.js";

/** Loads a row by UUID or short id; a malformed id simply finds nothing. */
export async function findByIdOrShortId<T extends { id: string; shortId: string }>(
  em: Em,
  schema: EntitySchema<T, never>,
  raw: string | undefined | null,
): Promise<T | null> {
  const lookup = parseId(raw);
  if (!lookup) return null;
  const where = lookup.column === "id" ? { id: lookup.value } : { shortId: lookup.value };
  return em.findOne(schema, where as never);
}
