import type { SyncTrigger } from "../db/entities/index.js";
import type { Em } from "../db/orm.js";
import { detectSeriesAfterSync } from "../series/detection.js";

/** One page committed: the rows it inserted, changed and removed (transaction UUIDs). */
export interface PageCommitted {
  connectionId: string;
  syncLogId: string;
  insertedIds: string[];
  updatedIds: string[];
  removedIds: string[];
}

/** A sync that ended well, after its last page committed. */
export interface SyncFinished {
  connectionId: string;
  syncLogId: string;
  trigger: SyncTrigger;
  added: number;
  modified: number;
  removed: number;
  /** An entity manager of the hook's own (not in any transaction). */
  em: Em;
}

/**
 * Work that runs after sync data is committed, such as series detection.
 * (The rules are not a hook: they run inside each page's transaction,
 * services/sync/apply-page.ts, so a page never commits without them.)
 * `afterPage` runs once per committed page (provider pages joined by
 * services/sync/page-batches.ts commit as one), in page order; `afterSync` once
 * when a sync ends well. A hook sees committed rows only, in its own database
 * transactions; a failing hook is logged and never undoes or stops the sync.
 */
export interface PostCommitHook {
  name: string;
  afterPage?(event: PageCommitted): Promise<void>;
  afterSync?(event: SyncFinished): Promise<void>;
}

/**
 * Series detection (services/series/detection.ts) once a sync that added,
 * changed or removed transactions ends: new charges join their series and
 * new series appear right away. It is the daily detection run early (it
 * counts as the day's run), so a crash before it runs loses nothing the
 * nightly check does not catch up on.
 */
export const seriesDetectionHook: PostCommitHook = {
  name: "series detection",
  async afterSync(e) {
    if (e.added + e.modified + e.removed === 0) return;
    await detectSeriesAfterSync(e.em);
  },
};

/** The post-commit hooks every core runs, in order. Add a hook here. */
export const POST_COMMIT_HOOKS: PostCommitHook[] = [seriesDetectionHook];
