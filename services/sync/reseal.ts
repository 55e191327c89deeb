import type { Em } from "../db/orm.js";
import { countSessionsNamed } from "../db/tables/pg-stat-activity.js";
import { lockConnectionsWithCredentials, updateConnectionCredentials } from "../db/tables/connections.js";
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
  const cores = await countSessionsNamed(em, JOB_QUEUE_APPLICATION_NAME);
  if (cores > 0) {
    throw new ResealRefused(
      "A core is running on this database; stop every core first, then start them with the new key",
    );
  }
  return em.transactional(async (tx) => {
    const rows = await lockConnectionsWithCredentials(tx);
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
      await updateConnectionCredentials(tx, r!.id, r!.credentials);
    }
    return rows.length;
  });
}
