import type { SyncTrigger } from "../db/entities/index.js";

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
}

/**
 * Work that runs after sync data is committed: the rules engine (categorize,
 * tag, annotate new and changed rows) and series detection hook in here.
 * `afterPage` runs once per committed page, in page order; `afterSync` once
 * when a sync ends well. A hook sees committed rows only, in its own database
 * transactions; a failing hook is logged and never undoes or stops the sync.
 */
export interface PostCommitHook {
  name: string;
  afterPage?(event: PageCommitted): Promise<void>;
  afterSync?(event: SyncFinished): Promise<void>;
}

/** The post-commit hooks every core runs, in order. Add a hook here. */
export const POST_COMMIT_HOOKS: PostCommitHook[] = [];
