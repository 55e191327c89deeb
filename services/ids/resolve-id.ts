import { SHORT_ID, UUID } from "../../common/validation.js";

export type IdLookup = { column: "short_id"; value: string } | { column: "id"; value: string } | null;

/**
 * The one place that decides what an `{id}` means: eight base62 characters
 * are a short id, a UUID is a UUID, anything else matches nothing (the
 * caller answers NOT_FOUND, never a 500 from a bad cast).
 */
export function parseId(raw: string | undefined | null): IdLookup {
  if (!raw) return null;
  if (SHORT_ID.test(raw)) return { column: "short_id", value: raw };
  if (UUID.test(raw)) return { column: "id", value: raw.toLowerCase() };
  return null;
}
