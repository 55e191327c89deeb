import { pendingSyncJob, startPendingSyncJobNow, type PendingSyncRow } from "../db/tables/sync-jobs.js";
import type { SyncTrigger } from "../db/entities/index.js";
import type { Em } from "../db/orm.js";
import {
  connectionOwner,
  connectionRowByLookup,
  insertConnection,
  listConnectionRows,
  lockLiveConnectionOf,
  markConnectionDisconnected,
  reactivateConnection,
  replaceConnectionEnrollment,
  updateConnectionPaused,
  type ConnectionRow,
} from "../db/tables/connections.js";
import { detachConnectionAccounts } from "../db/tables/accounts.js";
import { CofferError, notFound, validation } from "../errors/coffer-error.js";
import { retryOnShortIdClash } from "../ids/insert.js";
import { parseId } from "../ids/resolve-id.js";
import { newShortId } from "../ids/short-id.js";
import type { Actor } from "../ledger/actor.js";
import { recordAnnotation } from "../ledger/annotations.js";
import { resolveUser } from "../users/users.js";
import type { CredentialCipher } from "./credentials.js";
import { checkCredentials } from "./credentials-schema.js";
import { deleteCsvImportsOf } from "../db/tables/csv-imports.js";
import { storeFileImport } from "./file-imports.js";
import { keepsFiles, ProviderError, type Enrollment, type LinkSession, type Provider } from "./providers/provider.js";
import type { ProviderRegistry } from "./registry.js";
import { sealedCredentials, storeSealedCredentials } from "./stored-credentials.js";

/** A connection as the API shows it; references are short ids, timestamps UTC ISO text. */
export type ConnectionView = ConnectionRow;

/** What the connection endpoints need besides the database. */
export interface ConnectionDeps {
  registry: ProviderRegistry;
  cipher: CredentialCipher;
  /** Queues a sync of the connection (services/sync/scheduler.ts). */
  requestSync(connectionId: string, trigger: SyncTrigger): Promise<void>;
}

/** Every connection, oldest first (not paginated: a household has a handful). */
export async function listConnections(em: Em): Promise<ConnectionView[]> {
  return listConnectionRows(em);
}

export async function loadConnection(em: Em, id: string): Promise<ConnectionView> {
  const row = await connectionRowByLookup(em, { column: "id", value: id });
  if (!row) throw notFound("Connection");
  return row;
}

/** A connection by UUID or short id, or 404. */
export async function resolveConnection(em: Em, raw: string): Promise<ConnectionView> {
  const lookup = parseId(raw);
  const row = lookup ? await connectionRowByLookup(em, lookup) : undefined;
  if (!row) throw notFound("Connection");
  return row;
}

/** A provider failure as the API answers it: the person's input is wrong (400), or the provider failed (502). */
export function providerFailure(provider: string, e: unknown): never {
  if (!(e instanceof ProviderError)) throw e;
  if (e.failure === "invalid_input") throw new CofferError("VALIDATION_ERROR", e.message, { cause: e.code });
  throw new CofferError("PROVIDER_ERROR", `${provider}: ${e.message}`, { cause: e.code });
}

/** A link session for the provider's browser widget, or null when it needs none (204). */
export async function createLinkSession(
  em: Em,
  deps: ConnectionDeps,
  req: { provider: string; userId: string },
): Promise<LinkSession | null> {
  const provider = deps.registry.configured(req.provider);
  if (!req.userId?.trim()) throw validation("user_id is required");
  const user = await resolveUser(em, req.userId.trim());
  // The provider gets the member's UUID: an opaque id, no name or email (Plaid asks for no personal data).
  return provider.createLinkSession({ clientUserId: user.id }).catch((e) => providerFailure(provider.name, e));
}

/**
 * Connects a household member to a provider: checks the credentials against
 * the provider's schema, has the provider validate or exchange them, stores
 * what it returns encrypted (a CSV file: as an import record, unencrypted,
 * with no key needed), and queues the first sync. A login the member
 * already has a live connection for (the same Plaid item, the same CSV
 * account name) is that connection, given the new credentials: a CSV file
 * imported again under an account name goes into the same account, and its
 * import starts from the file's first row. `runFirstSync: "caller"` leaves
 * the first sync to the caller (`coffer import csv` runs it in process).
 */
export async function createConnection(
  em: Em,
  deps: ConnectionDeps,
  actor: Actor,
  req: { provider: string; userId: string; credentials: unknown },
  opts: { runFirstSync?: "queue" | "caller" } = {},
): Promise<ConnectionView> {
  const provider = deps.registry.configured(req.provider);
  const input = checkCredentials(provider.name, provider.info().credentialsSchema, req.credentials);
  if (!req.userId?.trim()) throw validation("user_id is required");
  const user = await resolveUser(em, req.userId.trim());
  // Refused before the provider is called: a one-time token spent on credentials that cannot be stored is lost.
  if (!keepsFiles(provider)) deps.cipher.assertCanStore();
  const enrollment = await provider.enroll(input).catch((e) => providerFailure(provider.name, e));

  const id = await em.transactional(async (tx) => {
    const existing = await lockLiveConnectionOf(tx, {
      userId: user.id,
      provider: provider.name,
      providerItemId: enrollment.providerItemId,
    });
    const connectionId = existing ?? crypto.randomUUID();
    const sealed = sealedOf(deps, provider, connectionId, enrollment);
    if (existing) {
      await replaceConnectionEnrollment(tx, {
        id: connectionId,
        credentials: sealed,
        institutionId: enrollment.institutionId,
        institutionName: enrollment.institutionName,
      });
    } else {
      await retryOnShortIdClash(() =>
        tx.transactional((sp) =>
          insertConnection(sp, {
            id: connectionId,
            shortId: newShortId(),
            userId: user.id,
            provider: provider.name,
            providerItemId: enrollment.providerItemId,
            institutionId: enrollment.institutionId,
            institutionName: enrollment.institutionName,
            credentials: sealed,
          }),
        ),
      );
    }
    if (enrollment.fileImport) await storeFileImport(tx, connectionId, enrollment.fileImport);
    await annotate(tx, actor, connectionId, existing ? "credentials_replaced" : "connected", {
      provider: provider.name,
      institution_name: enrollment.institutionName,
    });
    return connectionId;
  });
  if (opts.runFirstSync !== "caller") await deps.requestSync(id, "initial");
  return loadConnection(em, id);
}

/** What is stored in the connection's credentials: sealed, or nothing for a provider that keeps files. */
const sealedOf = (deps: ConnectionDeps, provider: Provider, connectionId: string, e: Enrollment) =>
  keepsFiles(provider) ? null : deps.cipher.seal(connectionId, e.credentials);

function annotate(em: Em, actor: Actor, connectionId: string, action: string, details: Record<string, unknown>) {
  return recordAnnotation(em, actor, { entityType: "connection", entityId: connectionId, action, details });
}

const refuseDisconnected = (c: ConnectionView) => {
  if (c.status === "disconnected") {
    throw new CofferError("CONFLICT", "This connection is disconnected; connect the bank again to sync it");
  }
};

/** What "Sync now" did: queued a sync, or found one pending that answers it too. */
export interface ManualSync {
  connection: ConnectionView;
  queued: boolean;
  /** The sync that answers the request (null: it already ended). */
  sync: PendingSyncRow | null;
}

/**
 * Queues a sync now (it runs even when the connection is paused), unless one
 * is already waiting to start, or waiting for its retry after a transient
 * failure: that one answers this request too and is made to start now, so
 * pressing "Sync now" again never starts a second chain of syncs and
 * retries. A sync that is running does not answer it (it may have read the
 * provider before the change the person expects): the new one runs after it.
 */
export async function requestManualSync(em: Em, deps: ConnectionDeps, raw: string): Promise<ManualSync> {
  const c = await resolveConnection(em, raw);
  refuseDisconnected(c);
  const pending = await startPendingSyncJobNow(em, c.id);
  if (pending) return { connection: c, queued: false, sync: pending };
  await deps.requestSync(c.id, "manual");
  return { connection: c, queued: true, sync: (await pendingSyncJob(em, c.id)) ?? null };
}

/** Pauses or resumes the schedule of a connection (a manual sync still runs while paused). */
export async function setConnectionPaused(em: Em, actor: Actor, raw: string, paused: boolean): Promise<ConnectionView> {
  const c = await resolveConnection(em, raw);
  if (c.paused !== paused) {
    await em.transactional(async (tx) => {
      await updateConnectionPaused(tx, c.id, paused);
      await annotate(tx, actor, c.id, paused ? "paused" : "resumed", {});
    });
  }
  return loadConnection(em, c.id);
}

/**
 * Re-authentication. With new credentials (SimpleFIN's new setup token),
 * they replace the stored ones, the connection is active again, and a sync
 * is queued. Without, the answer is an update-mode link session for the
 * provider's widget (Plaid update mode, Teller repair); the connection turns
 * active when the next sync succeeds.
 */
export async function reauthConnection(
  em: Em,
  deps: ConnectionDeps,
  actor: Actor,
  req: { id: string; credentials?: unknown },
): Promise<{ connection: ConnectionView; linkSession: LinkSession | null }> {
  const c = await resolveConnection(em, req.id);
  refuseDisconnected(c);
  const provider = deps.registry.configured(c.provider);
  if (req.credentials !== undefined && req.credentials !== null) {
    const input = checkCredentials(provider.name, provider.info().credentialsSchema, req.credentials);
    // Refused before the provider is called: a one-time token spent on credentials that cannot be stored is lost.
    if (!keepsFiles(provider)) deps.cipher.assertCanStore();
    const enrollment = await provider.enroll(input).catch((e) => providerFailure(provider.name, e));
    await em.transactional(async (tx) => {
      await storeSealedCredentials(tx, c.id, sealedOf(deps, provider, c.id, enrollment));
      if (enrollment.fileImport) await storeFileImport(tx, c.id, enrollment.fileImport);
      await reactivateConnection(tx, c.id);
      await annotate(tx, actor, c.id, "credentials_replaced", { provider: provider.name });
    });
    await deps.requestSync(c.id, "reauth");
    return { connection: await loadConnection(em, c.id), linkSession: null };
  }
  // A provider that keeps files has no secret to repair with (its link session is none).
  const credentials = keepsFiles(provider) ? {} : deps.cipher.open(c.id, await sealedCredentials(em, c.id));
  const ownerId = await connectionOwner(em, c.id);
  const session = await provider
    .createLinkSession({ clientUserId: ownerId, update: credentials })
    .catch((e) => providerFailure(provider.name, e));
  if (!session) {
    throw validation(
      `A ${provider.name} connection re-authenticates with new credentials: send them as credentials ` +
        `(GET /api/v1/providers/${provider.name} describes them)`,
    );
  }
  return { connection: c, linkSession: session };
}

/**
 * Disconnects: ends the login at the provider, wipes the credentials (a CSV
 * connection's files: its import records are deleted), and
 * keeps the connection (status disconnected) with its accounts and
 * transactions, whose connection reference becomes null. When the provider
 * is down the disconnect is refused (502) and nothing changes, so the login
 * is never left running at the provider with no way to end it; a login the
 * provider already considers gone is simply forgotten. Disconnecting twice
 * changes nothing.
 */
export async function disconnectConnection(
  em: Em,
  deps: ConnectionDeps,
  actor: Actor,
  raw: string,
  log: { warn(obj: object, msg: string): void },
): Promise<ConnectionView> {
  const c = await resolveConnection(em, raw);
  if (c.status === "disconnected") return c;
  const provider = deps.registry.has(c.provider) ? deps.registry.get(c.provider) : null;
  // A provider that keeps files has nothing to end: the connection is its files, forgotten below.
  const atProvider = provider !== null && !keepsFiles(provider);
  if (atProvider && provider.info().configured && deps.cipher.hasKey) {
    try {
      await provider.remove(deps.cipher.open(c.id, await sealedCredentials(em, c.id)));
    } catch (e) {
      if (e instanceof ProviderError && (e.failure === "unavailable" || e.failure === "rate_limited")) {
        providerFailure(provider.name, e);
      }
      log.warn(
        { connection: c.shortId, code: e instanceof ProviderError ? e.code : "UNREADABLE" },
        "the provider could not end the login; forgetting it anyway",
      );
    }
  } else if (atProvider || !provider) {
    log.warn({ connection: c.shortId }, "disconnecting without calling the provider (no configuration or no key)");
  }
  await em.transactional(async (tx) => {
    await markConnectionDisconnected(tx, c.id);
    await deleteCsvImportsOf(tx, c.id);
    await detachConnectionAccounts(tx, c.id);
    await annotate(tx, actor, c.id, "disconnected", { provider: c.provider });
  });
  return loadConnection(em, c.id);
}
