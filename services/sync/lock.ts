import pg from "pg";

/** First key of the two-key advisory lock; the second is the connection's hash. */
const SYNC_LOCK_SPACE = 7_100_002;

export interface HeldLock {
  release(): Promise<void>;
}

/**
 * Takes the sync lock of one connection, or answers null when another
 * process (any core replica, or a CLI import) holds it. The lock is a
 * PostgreSQL session advisory lock on a connection of its own, held for the
 * whole sync: if the process dies, PostgreSQL ends the session and the lock
 * goes with it, so a crashed sync never blocks the next one.
 */
export async function tryLockConnection(databaseUrl: string, connectionId: string): Promise<HeldLock | null> {
  const client = new pg.Client({ connectionString: databaseUrl, application_name: "coffer sync lock" });
  // A dropped lock connection ends the session (and the lock); the sync's own writes notice nothing.
  client.on("error", () => undefined);
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
  return { release: () => client.end().catch(() => undefined) };
}
