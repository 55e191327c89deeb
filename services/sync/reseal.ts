import type { Em } from "../db/orm.js";
import { query } from "../db/sql.js";
import { CredentialsUnreadable, type CredentialCipher } from "./credentials.js";
import { JOB_QUEUE_APPLICATION_NAME } from "./scheduler.js";

/** Why a key rotation did not happen; the message names no secret. */
export class ResealRefused extends Error {
  constructor(message: string) {
    super(message);
    this.name = "ResealRefused";
  }
}

/**
 * Re-seals every stored credential from one key to another, in one database
 * transaction: every row opens with the old key and is sealed anew with the
 * new one, or nothing changes (a row the old key cannot open stops it, named
 * by its connection's short id). Refused while a core runs on the database:
 * a running core holds the old key and would seal what it stores with it.
 * Returns how many credentials were re-sealed.
 */
export async function resealCredentials(em: Em, from: CredentialCipher, to: CredentialCipher): Promise<number> {
  const [{ cores }] = await query<{ cores: number }>(
    em,
    `select count(*)::int as cores from pg_stat_activity where datname = current_database() and application_name = ?`,
    [JOB_QUEUE_APPLICATION_NAME],
  );
  if (cores > 0) {
    throw new ResealRefused(
      "A core is running on this database; stop every core first, then start them with the new key",
    );
  }
  return em.transactional(async (tx) => {
    const rows = await query<{ id: string; short_id: string; credentials: Buffer }>(
      tx,
      `select id, short_id, credentials from connections where credentials is not null order by id for update`,
    );
    const unreadable: string[] = [];
    const sealed = rows.map((r) => {
      try {
        return { id: r.id, credentials: to.seal(r.id, from.open(r.id, r.credentials)) };
      } catch (e) {
        if (!(e instanceof CredentialsUnreadable)) throw e;
        unreadable.push(r.short_id);
        return null;
      }
    });
    if (unreadable.length > 0) {
      throw new ResealRefused(
        `The current key does not open the credentials of connection${unreadable.length === 1 ? "" : "s"} ` +
          `${unreadable.join(", ")}; nothing was changed`,
      );
    }
    for (const r of sealed) {
      await query(tx, `update connections set credentials = ? where id = ?`, [r!.credentials, r!.id]);
    }
    return rows.length;
  });
}
