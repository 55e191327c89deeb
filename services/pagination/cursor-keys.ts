import { randomBytes } from "node:crypto";
import { nowOf } from "../clock.js";
import type { Em } from "../db/orm.js";
import { lockForTransaction } from "../db/locks.js";
import {
  deleteReplacedCursorKeys,
  insertCursorKey,
  listCursorKeys,
  newestCursorKeyIsDue,
} from "../db/tables/cursor-keys.js";
import type { PeriodicTask } from "../periodic.js";
import type { CursorKey } from "./cursor.js";

/**
 * The keys cursors are signed with, kept in `cursor_keys` (Migration0007) so
 * every core replica shares them. The newest key signs; the one before it
 * still verifies for PREVIOUS_KEY_GRACE_SECONDS after it was replaced (as
 * long as a cursor lives), so a rotation never breaks a client mid-pagination.
 * Cores rotate by themselves: a periodic task adds a key once the newest is
 * ROTATE_AFTER_SECONDS old.
 */
export const PREVIOUS_KEY_GRACE_SECONDS = 24 * 3600;
export const ROTATE_AFTER_SECONDS = 30 * 24 * 3600;

interface LoadedKeys {
  signing: CursorKey;
  /** generation → secret and when it stops verifying (unix ms; Infinity for the newest). */
  verifying: Map<number, { secret: Buffer; until: number }>;
  newest: number;
  loadedAt: number;
}

async function loadKeys(em: Em, now: number): Promise<LoadedKeys> {
  const rows = await listCursorKeys(em);
  if (rows.length === 0) throw new Error("cursor_keys is empty: the core cannot sign cursors");
  const verifying = new Map<number, { secret: Buffer; until: number }>();
  for (const r of rows) {
    const until = r.replaced_at === null ? Infinity : Number(r.replaced_at) + PREVIOUS_KEY_GRACE_SECONDS * 1000;
    verifying.set(Number(r.generation), { secret: r.secret, until });
  }
  const last = rows[rows.length - 1];
  const newest = Number(last.generation);
  return { signing: { generation: newest, secret: last.secret }, verifying, newest, loadedAt: now };
}

/**
 * One per core process: the keys, read from the database and cached for
 * `refreshMs`. A cursor naming a generation newer than the cached ones (another
 * replica rotated) reloads at once, at most every `reloadGapMs`, so cursors
 * forged with made-up generations cannot turn into a query each.
 */
export class CursorKeyring {
  private loaded: LoadedKeys | null = null;
  private loading: Promise<LoadedKeys> | null = null;
  private lastForcedReload = -Infinity;
  private readonly refreshMs: number;
  private readonly reloadGapMs: number;
  private readonly clock: () => number;

  constructor(opts: { refreshMs?: number; reloadGapMs?: number; clock?: () => number } = {}) {
    this.refreshMs = opts.refreshMs ?? 60_000;
    this.reloadGapMs = opts.reloadGapMs ?? 1_000;
    this.clock = opts.clock ?? Date.now;
  }

  private async keys(em: Em, force = false): Promise<LoadedKeys> {
    const now = this.clock();
    if (!force && this.loaded && now - this.loaded.loadedAt < this.refreshMs) return this.loaded;
    // Concurrent requests share one load.
    this.loading ??= loadKeys(em, now).finally(() => {
      this.loading = null;
    });
    this.loaded = await this.loading;
    return this.loaded;
  }

  /** The key new cursors are signed with. */
  async signingKey(em: Em): Promise<CursorKey> {
    return (await this.keys(em)).signing;
  }

  /** The secret of `generation` if it still verifies cursors, else undefined. */
  async secretFor(em: Em, generation: number): Promise<Uint8Array | undefined> {
    let keys = await this.keys(em);
    const now = this.clock();
    if (generation > keys.newest && now - this.lastForcedReload >= this.reloadGapMs) {
      this.lastForcedReload = now;
      keys = await this.keys(em, true);
    }
    const key = keys.verifying.get(generation);
    return key && now < key.until ? key.secret : undefined;
  }
}

/**
 * Adds a new key when the newest is older than `rotateAfterSeconds` (0: now),
 * and deletes keys that no longer verify anything. Safe to run on every core
 * at once: the advisory lock makes them take turns, and the second finds the
 * fresh key. Returns whether it added a key.
 */
export async function rotateCursorKey(em: Em, rotateAfterSeconds = ROTATE_AFTER_SECONDS): Promise<boolean> {
  return em.transactional(async (tx) => {
    await lockForTransaction(tx, "cursorKeyRotation");
    const now = nowOf(tx);
    const due = (await newestCursorKeyIsDue(tx, now, rotateAfterSeconds)) ?? true;
    if (due) await insertCursorKey(tx, randomBytes(32), now);
    await deleteReplacedCursorKeys(tx, now, PREVIOUS_KEY_GRACE_SECONDS);
    return due;
  });
}

/** The rotation as the core's periodic task. */
export const rotateCursorKeyTask: PeriodicTask = {
  queue: "coffer-rotate-cursor-key",
  name: "rotate cursor key",
  run: (em) => rotateCursorKey(em),
};
