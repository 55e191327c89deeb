import { UUID } from "../../common/validation.js";
import type { Em } from "../db/orm.js";
import type { TimeOrderedRows } from "../db/tables/time-ordered.js";
import { decodeCursor, encodeCursor, filterHash, invalidCursor } from "./cursor.js";
import type { CursorKeyring } from "./cursor-keys.js";
import { parseLimit } from "./limit.js";
import { clockOf, epochSeconds } from "../clock.js";

/** How long a cursor of a time-ordered list stays valid. */
export const TIME_CURSOR_MAX_AGE_SECONDS = 24 * 3600;

// A timestamptz written with microseconds, so the keyset never rounds two rows onto one position.
const POSITION = /^\d{4}-\d{2}-\d{2}T\d{2}:\d{2}:\d{2}\.\d{6}Z$/;

export interface TimePageRequest {
  /** The list being paged (services/db/tables/time-ordered.ts). */
  rows: TimeOrderedRows;
  /** The normalised filters, hashed into the cursor so a cursor only continues the list it came from. */
  filters: Record<string, unknown>;
  limit: number | undefined;
  cursor: string;
}

/**
 * One page of a list ordered newest first by a timestamp, then id (sync logs,
 * webhook events), with the shared cursor codec (services/pagination/cursor.ts).
 * Rows added while someone pages are newer than page 1, so they never shift
 * later pages. Returns the ids of the page in order; the caller presents them.
 */
export async function timePage(
  em: Em,
  req: TimePageRequest,
  keys: CursorKeyring,
): Promise<{ ids: string[]; nextCursor: string; hasMore: boolean }> {
  const limit = parseLimit(req.limit);
  const hash = filterHash(req.filters);
  let after: { position: string; id: string } | null = null;
  let issuedAt = epochSeconds(clockOf(em));
  if (req.cursor.trim() !== "") {
    const c = await decodeCursor(req.cursor.trim(), {
      filterHash: hash,
      maxAgeSeconds: TIME_CURSOR_MAX_AGE_SECONDS,
      secretFor: (generation) => keys.secretFor(em, generation),
      now: epochSeconds(clockOf(em)),
    });
    if (!POSITION.test(c.d) || !UUID.test(c.i)) throw invalidCursor("cursor is malformed");
    if (!(await req.rows.has(em, c.i))) {
      throw invalidCursor("the record this cursor continues from no longer exists");
    }
    after = { position: c.d, id: c.i };
    issuedAt = c.t;
  }
  const rows = await req.rows.page(em, after, limit + 1);
  const hasMore = rows.length > limit;
  const page = rows.slice(0, limit);
  const last = page[page.length - 1];
  const nextCursor = hasMore
    ? encodeCursor({ d: last.position, i: last.id, f: hash, w: "", t: issuedAt }, await keys.signingKey(em))
    : "";
  return { ids: page.map((r) => r.id), nextCursor, hasMore };
}
