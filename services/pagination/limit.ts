import { parseInteger } from "../shared/validate.js";

export const DEFAULT_LIMIT = 50;
export const MAX_LIMIT = 500;

/**
 * The page size of a list request. Proto3 cannot tell an unset int32 from 0,
 * so 0 means "the default"; anything else outside 1..max is refused, so gRPC
 * callers get the same answer the REST schema gives.
 */
export function parseLimit(raw: number | undefined, opts: { default?: number; max?: number } = {}): number {
  const def = opts.default ?? DEFAULT_LIMIT;
  const max = opts.max ?? MAX_LIMIT;
  if (raw === undefined || raw === 0) return def;
  return parseInteger(raw, "limit", { min: 1, max });
}
