import pg from "pg";
import type { Em } from "./orm.js";
import { query } from "./sql.js";

/**
 * Every PostgreSQL advisory lock Coffer takes, so no two uses share a key by
 * accident. Keys are arbitrary constants in Coffer's own 7_100_xxx range.
 * PostgreSQL keeps one-key (bigint) and two-key (int, int) locks apart, so the
 * sync lock's space cannot collide with a one-key lock of the same number.
 */
export const LOCK_KEYS = {
  /** Concurrent cores never migrate at once (a session lock on a connection of its own, orm.ts). */
  migration: 7_100_001,
  /** One first admin, however many first-run setup links are used at the same moment. */
  firstLogin: 7_100_003,
  /** Concurrent cores rotate the cursor-signing key once. */
  cursorKeyRotation: 7_100_007,
  /** Applying series detection: requests, the daily task and several cores take turns. */
  seriesDetection: 7_100_014,
} as const;

/** The sessions holding sync locks carry this name (pg_stat_activity). */
export const SYNC_LOCK_APPLICATION_NAME = "coffer sync lock";

/** First key of the two-key sync lock; the second is the connection's hash. */
const SYNC_LOCK_SPACE = 7_100_002;

type TransactionLock = Exclude<keyof typeof LOCK_KEYS, "migration">;

/** Waits for the lock and holds it until the transaction `tx` ends. */
export async function lockForTransaction(tx: Em, lock: TransactionLock): Promise<void> {
  await query(tx, `select pg_advisory_xact_lock(?)`, [LOCK_KEYS[lock]]);
}

export interface HeldLock {
  /**
   * Whether the lock is still held: its session is alive and answers. A
   * session lock goes only with its session, so a session that answers still
   * holds it; one that died (killed, cut off, the database restarted) lost it.
   */
  held(): Promise<boolean>;
  release(): Promise<void>;
}

/**
 * Takes the sync lock of one connection, or answers null when another
 * process (any core replica, or a CLI import) holds it. The lock is a
 * PostgreSQL session advisory lock on a database connection of its own, held
 * for the whole sync, outside the ORM's pool so it never takes a pooled
 * connection for minutes: if the process dies, PostgreSQL ends the session and
 * the lock goes with it, so a crashed sync never blocks the next one.
 */
export async function tryLockConnection(databaseUrl: string, connectionId: string): Promise<HeldLock | null> {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: SYNC_LOCK_APPLICATION_NAME });
  // A dropped lock connection ends the session (and the lock): the sync asks held() before each page.
  let lost = false;
  client.on("error", () => (lost = true));
  client.on("end", () => (lost = true));
  await client.connect();
  try {
    const { rows } = await client.query<{ ok: boolean }>("select pg_try_advisory_lock($1, hashtext($2)) as ok", [
      SYNC_LOCK_SPACE,
      connectionId,
    ]);
    if (!rows[0].ok) {
      await client.end();
      return null;
    }
  } catch (e) {
    await client.end().catch(() => undefined);
    throw e;
  }
  return {
    held: async () => {
      if (lost) return false;
      try {
        await client.query("select 1");
        return !lost;
      } catch {
        return false;
      }
    },
    release: () => client.end().catch(() => undefined),
  };
}
