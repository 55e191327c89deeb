import type { Em } from "../db/orm.js";
import { connectionCredentials, updateConnectionCredentials } from "../db/tables/connections.js";
import { CofferError } from "../errors/coffer-error.js";

/** A connection's sealed credentials (services/sync/credentials.ts opens them). */
export async function sealedCredentials(em: Em, connectionId: string): Promise<Buffer> {
  const sealed = await connectionCredentials(em, connectionId);
  if (!sealed) throw new CofferError("CONFLICT", "This connection has no credentials (it was disconnected)");
  return sealed;
}

/** Replaces a connection's sealed credentials (null wipes them: a disconnect). */
export async function storeSealedCredentials(em: Em, connectionId: string, sealed: Buffer | null): Promise<void> {
  await updateConnectionCredentials(em, connectionId, sealed);
}
