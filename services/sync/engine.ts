import { ConnectionEntity, type Connection, type SyncTrigger } from "../db/entities/index.js";
import type { Em, Orm } from "../db/orm.js";
import { allCategoryNames } from "../db/tables/categories.js";
import { newShortId } from "../ids/short-id.js";
import type { Actor } from "../ledger/actor.js";
import { applyPage, ConnectionGone, MAX_LOGGED_SKIPS, type PageContext } from "./apply-page.js";
import { mappedCategorySlug } from "./category-map.js";
import type { CredentialCipher } from "./credentials.js";
import type { PostCommitHook } from "./hooks.js";
import { isDatabaseUnreachable } from "../db/availability.js";
import { tryLockConnection, type HeldLock } from "../db/locks.js";
import { markConnectionSynced, setConnectionError } from "../db/tables/connections.js";
import { pageBatches } from "./page-batches.js";
import { addSyncLogSkips, endSyncLog, interruptRunningSyncLogs, startSyncLog } from "../db/tables/sync-logs.js";
import type { ProviderName } from "./providers/provider.js";
import type { ProviderRegistry } from "./registry.js";
import { classifyFailure, HEALTHY, isTransient, statusAfterFailure, type SyncFailure } from "./status.js";
import { upsertAccounts } from "./sync-accounts.js";
import { connectionInput, fileImportEnded, fileImportStarted } from "./file-imports.js";

/** The logger the engine writes to (the core's pino logger, or the CLI's). Never given credentials. */
export interface EngineLogger {
  info(obj: object, msg: string): void;
  warn(obj: object, msg: string): void;
  error(obj: object, msg: string): void;
}

export interface SyncEngineDeps {
  orm: Orm;
  databaseUrl: string;
  cipher: CredentialCipher;
  registry: ProviderRegistry;
  hooks: PostCommitHook[];
  log: EngineLogger;
}

export interface SyncCounts {
  pages: number;
  added: number;
  modified: number;
  removed: number;
  unchanged: number;
  skipped: number;
}

export interface RunOptions {
  trigger: SyncTrigger;
  /**
   * When the sync was asked for (database time). A sync that started after
   * that and succeeded has already done what was asked, so this one is
   * skipped: two requests that race become one sync.
   */
  requestedAt?: Date;
  /** Aborting stops the sync after the page being committed (the core is shutting down). */
  signal?: AbortSignal;
  onProgress?: (counts: SyncCounts) => void;
}

export type SyncOutcome =
  | ({ status: "success"; syncLogId: string } & SyncCounts)
  | { status: "error"; syncLogId: string; failure: SyncFailure; retry: boolean }
  /**
   * Stopped between pages: the core is shutting down, the connection was
   * disconnected, or the sync lost its lock (lock_lost: its session died, and
   * another sync may hold it now). What was committed stays; the next sync
   * continues from it.
   */
  | { status: "interrupted"; syncLogId: string; reason: "shutdown" | "disconnected" | "lock_lost" }
  /** Another process is syncing this connection right now. */
  | { status: "busy" }
  | { status: "skipped"; reason: "not_found" | "disconnected" | "satisfied" | "paused" | "pending_reauth" };

/** The sync's lock went with its database session: another sync may run now, so this one stops. */
class LockLost extends Error {
  constructor() {
    super("The sync lost its lock (its database session ended); the next sync continues from its last page");
  }
}

/** Who the audit timeline names for what a sync does. */
const syncActor = (provider: string): Actor => ({ type: "system", id: null, keyId: null, name: `sync (${provider})` });

/** An error as the log may show it: name, message, stack; never its other fields (a request config holds secrets). */
const safeErr = (e: unknown) =>
  e instanceof Error ? { type: e.name, message: e.message, stack: e.stack } : { type: typeof e };

/**
 * Runs one sync of one connection: takes the connection's sync lock (one
 * sync per connection at a time, across every core and the CLI), refreshes
 * its accounts, then commits the provider's pages one by one
 * (services/sync/apply-page.ts), and records the outcome in the connection's
 * status (services/sync/status.ts) and its sync log.
 */
export class SyncEngine {
  constructor(private readonly deps: SyncEngineDeps) {}

  private em(): Em {
    return this.deps.orm.em.fork();
  }

  async run(connectionId: string, opts: RunOptions): Promise<SyncOutcome> {
    const lock = await tryLockConnection(this.deps.databaseUrl, connectionId);
    if (!lock) return { status: "busy" };
    try {
      return await this.runLocked(connectionId, opts, lock);
    } finally {
      await lock.release();
    }
  }

  private async runLocked(connectionId: string, opts: RunOptions, lock: HeldLock): Promise<SyncOutcome> {
    const em = this.em();
    const conn = await em.findOne(ConnectionEntity, { id: connectionId }, { refresh: true });
    if (!conn) return { status: "skipped", reason: "not_found" };
    if (conn.status === "disconnected") return { status: "skipped", reason: "disconnected" };
    if (opts.requestedAt && conn.lastSuccessStartedAt && conn.lastSuccessStartedAt >= opts.requestedAt) {
      return { status: "skipped", reason: "satisfied" };
    }
    if (opts.trigger === "schedule" && conn.paused) return { status: "skipped", reason: "paused" };
    if (opts.trigger === "schedule" && conn.status === "pending_reauth") {
      return { status: "skipped", reason: "pending_reauth" };
    }

    // We hold the lock, so a log still "running" belongs to a sync whose process died.
    await interruptRunningSyncLogs(em, conn.id);
    const syncLogId = crypto.randomUUID();
    await startSyncLog(em, { id: syncLogId, shortId: newShortId(), connectionId: conn.id, trigger: opts.trigger });
    this.deps.log.info({ connection: conn.shortId, provider: conn.provider, trigger: opts.trigger }, "sync started");

    const counts: SyncCounts = { pages: 0, added: 0, modified: 0, removed: 0, unchanged: 0, skipped: 0 };
    // The file import this sync runs (a CSV connection's newest), whose record follows the sync's outcome.
    const run = { importId: null as string | null };
    try {
      await this.syncPages(em, conn, syncLogId, counts, opts, run, lock);
    } catch (e) {
      return this.fail(em, conn, syncLogId, counts, e, run.importId, lock);
    }
    if (opts.signal?.aborted) {
      const interrupted = {
        code: "INTERRUPTED",
        message: "The core shut down during the sync; the next sync continues from its last committed page",
      };
      await em.transactional(async (tx) => {
        await this.endLog(tx, syncLogId, "interrupted", interrupted);
        await fileImportEnded(tx, run.importId, "interrupted", counts, null);
      });
      return { status: "interrupted", syncLogId, reason: "shutdown" };
    }
    await em.transactional(async (tx) => {
      await this.endLog(tx, syncLogId, "success", null);
      await markConnectionSynced(tx, { id: conn.id, syncLogId, status: HEALTHY.status });
      await fileImportEnded(tx, run.importId, "success", counts, null);
    });
    this.deps.log.info({ connection: conn.shortId, ...counts }, "sync finished");
    for (const hook of this.deps.hooks) {
      if (!hook.afterSync) continue;
      await hook
        .afterSync({ connectionId: conn.id, syncLogId, trigger: opts.trigger, ...counts, em: this.em() })
        .catch((e: unknown) => this.deps.log.error({ err: safeErr(e), hook: hook.name }, "post-sync hook failed"));
    }
    return { status: "success", syncLogId, ...counts };
  }

  private async syncPages(
    em: Em,
    conn: Connection,
    syncLogId: string,
    counts: SyncCounts,
    opts: RunOptions,
    run: { importId: string | null },
    lock: HeldLock,
  ) {
    const provider = this.deps.registry.configured(conn.provider);
    const { credentials, importId } = await connectionInput(em, this.deps.cipher, conn.id, provider);
    run.importId = importId;
    await fileImportStarted(em, importId);
    // The provider's own session: it reads while the engine commits a page (pageBatches reads ahead).
    const call = { em: this.em() };
    const actor = syncActor(conn.provider);
    const accounts = await upsertAccounts(em, actor, conn, await provider.accounts(credentials, call));
    if (accounts.skipped.length) {
      await addSyncLogSkips(em, syncLogId, {
        count: accounts.skipped.length,
        logged: accounts.skipped.slice(0, MAX_LOGGED_SKIPS),
      });
      counts.skipped += accounts.skipped.length;
    }
    const ctx: PageContext = {
      connectionId: conn.id,
      provider: conn.provider as ProviderName,
      syncLogId,
      cursorBefore: conn.cursor ?? null,
      accounts: accounts.byProviderId,
      categoryOf: await this.categoryResolver(em, conn.provider as ProviderName),
      actor,
      loggedSkips: Math.min(MAX_LOGGED_SKIPS, accounts.skipped.length),
    };
    for await (const { page, pages } of pageBatches(provider.sync(credentials, conn.cursor ?? null, call))) {
      // Only the lock's holder may commit: a sync whose lock went with its session stops here.
      if (!(await lock.held())) throw new LockLost();
      const r = await applyPage(em, ctx, page, pages);
      ctx.cursorBefore = page.nextCursor;
      ctx.loggedSkips = Math.min(MAX_LOGGED_SKIPS, ctx.loggedSkips + r.skipped.length);
      counts.pages += pages;
      counts.added += r.added;
      counts.modified += r.modified;
      counts.removed += r.removed;
      counts.unchanged += r.unchanged;
      counts.skipped += r.skipped.length;
      opts.onProgress?.({ ...counts });
      for (const hook of this.deps.hooks) {
        if (!hook.afterPage) continue;
        await hook
          .afterPage({
            connectionId: conn.id,
            syncLogId,
            insertedIds: r.insertedIds,
            updatedIds: r.updatedIds,
            removedIds: r.removedIds,
          })
          .catch((e: unknown) => this.deps.log.error({ err: safeErr(e), hook: hook.name }, "post-commit hook failed"));
      }
      if (opts.signal?.aborted) return;
    }
  }

  /** Seeded categories by slug, and the mapping from a provider's category to one of them. */
  private async categoryResolver(em: Em, provider: ProviderName) {
    const rows = await allCategoryNames(em);
    const idBySlug = new Map(rows.map((r) => [r.slug, r.id]));
    const slugByName = new Map<string, string>();
    for (const r of rows) slugByName.set(r.name, r.slug).set(r.slug, r.slug);
    const byName = (text: string) => slugByName.get(text.trim().toLowerCase()) ?? null;
    return (primary: string | null, detailed: string | null) => {
      const slug = mappedCategorySlug(provider, primary, detailed, byName);
      return slug ? (idBySlug.get(slug) ?? null) : null;
    };
  }

  private async endLog(
    em: Em,
    syncLogId: string,
    status: "success" | "error" | "interrupted",
    error: { code: string; message: string } | null,
  ) {
    await endSyncLog(em, syncLogId, status, error);
  }

  private async fail(
    em: Em,
    conn: Connection,
    syncLogId: string,
    counts: SyncCounts,
    e: unknown,
    importId: string | null,
    lock: HeldLock,
  ): Promise<SyncOutcome> {
    if (e instanceof ConnectionGone) {
      const gone = { code: "DISCONNECTED", message: e.message };
      await em.transactional(async (tx) => {
        await this.endLog(tx, syncLogId, "interrupted", gone);
        await fileImportEnded(tx, importId, "interrupted", counts, gone);
      });
      return { status: "interrupted", syncLogId, reason: "disconnected" };
    }
    // Nothing can be recorded without the database: the caller waits for it and syncs again, and
    // that sync closes this one's log as interrupted (services/sync/scheduler.ts).
    if (isDatabaseUnreachable(e)) throw e;
    // A sync that lost its lock may have lost a race to a newer one (a moved cursor, say): that is
    // no failure of the connection, whose data the newer sync keeps whole (with its file import, if any).
    if (e instanceof LockLost || !(await lock.held())) {
      const message = e instanceof LockLost ? e.message : new LockLost().message;
      this.deps.log.warn({ connection: conn.shortId, pages: counts.pages }, "sync lost its lock; stopped");
      await this.endLog(em, syncLogId, "interrupted", { code: "LOCK_LOST", message });
      return { status: "interrupted", syncLogId, reason: "lock_lost" };
    }
    const failure = classifyFailure(e);
    const logged = { connection: conn.shortId, provider: conn.provider, code: failure.code, pages: counts.pages };
    if (failure.failure === "internal") this.deps.log.error({ ...logged, err: safeErr(e) }, "sync failed");
    else this.deps.log.warn({ ...logged, failure: failure.failure }, "sync failed");
    const next = statusAfterFailure(failure);
    await em.transactional(async (tx) => {
      await this.endLog(tx, syncLogId, "error", failure);
      await setConnectionError(tx, {
        id: conn.id,
        status: next.status,
        errorCode: next.errorCode,
        errorMessage: next.errorMessage,
      });
      await fileImportEnded(tx, importId, "error", counts, { code: failure.code, message: failure.message });
    });
    return { status: "error", syncLogId, failure, retry: isTransient(failure) };
  }
}
