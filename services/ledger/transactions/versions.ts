import { nowOf } from "../../clock.js";
import type { Em } from "../../db/orm.js";
import { deleteVersionsOlderThan } from "../../db/tables/transaction-versions.js";
import type { PeriodicTask } from "../../periodic.js";
import { CURSOR_MAX_AGE_SECONDS } from "./list.js";

// Earlier versions of changed transactions (Migration0003TransactionSnapshots)
// serve the cursors that were issued before the change; once no live cursor
// can need them, they go.

/** Row versions are kept a little longer than a cursor lives. */
export const VERSION_RETENTION_SECONDS = CURSOR_MAX_AGE_SECONDS + 3600;

/** Deletes row versions no live cursor can need; returns how many. */
export async function purgeTransactionVersions(em: Em, retentionSeconds = VERSION_RETENTION_SECONDS): Promise<number> {
  return deleteVersionsOlderThan(em, nowOf(em), retentionSeconds);
}

/** The purge as the core's periodic task (a read never writes, so lists cannot do it). */
export const purgeVersionsTask: PeriodicTask = {
  queue: "coffer-purge-transaction-versions",
  name: "purge transaction versions",
  run: (em) => purgeTransactionVersions(em),
};
