import { ChannelListener } from "../db/channel-listener.js";
import type { FastifyBaseLogger } from "fastify";
import type { Principal } from "../context.js";

export type KeyPrincipal = Extract<Principal, { kind: "key" }>;

/** The channel Migration0011ApiKeyNotify's triggers announce a changed key on (its id, or "*" for all). */
export const API_KEYS_CHANNEL = "coffer_api_keys";

/** The listening connection's application_name (it shows in pg_stat_activity). */
export const KEY_CACHE_APPLICATION = "coffer key cache";

export interface KeyCacheOptions {
  /** How long an entry is served before the key is read again (and its last_used_at refreshed). */
  freshMs?: number;
  /** At most this many keys are kept; the oldest goes first. */
  maxEntries?: number;
  /** Delay before listening again after the listening connection was lost. */
  retryMs?: number;
  log?: Pick<FastifyBaseLogger, "warn" | "info">;
}

interface Entry {
  principal: KeyPrincipal;
  loadedAt: number;
}

/**
 * The API keys one core authenticated, by key hash, so that a call does not
 * read its key from the database every time. Correctness rests on PostgreSQL's
 * `NOTIFY`: a changed or deleted key is announced on API_KEYS_CHANNEL by a
 * trigger, whoever changed it, and this cache drops it as soon as the
 * notification arrives (milliseconds after the revoking transaction commits,
 * on every core). The cache serves entries only while its listening connection
 * is up: when it is lost, every entry is dropped and calls read the database
 * again until it listens anew, so a missed notification can never leave a
 * revoked key working. Only valid keys are kept (a flood of made-up keys
 * cannot fill it), and an entry older than `freshMs` is read again, which also
 * keeps last_used_at as current as before.
 */
export class ApiKeyCache {
  private readonly entries = new Map<string, Entry>();
  /** Bumped by every invalidation: a lookup that started before one must not store what it read. */
  private epoch = 0;
  private client: ChannelListener | null = null;
  private listening = false;
  private stopped = false;
  private retry: NodeJS.Timeout | null = null;
  private readonly freshMs: number;
  private readonly maxEntries: number;
  private readonly retryMs: number;

  constructor(
    private readonly connectionString: string | undefined,
    private readonly opts: KeyCacheOptions = {},
  ) {
    this.freshMs = opts.freshMs ?? 60_000;
    this.maxEntries = opts.maxEntries ?? 1000;
    this.retryMs = opts.retryMs ?? 1000;
  }

  /** Starts listening; resolves once it listens or the first attempt failed (it then retries by itself). */
  async start(): Promise<void> {
    this.stopped = false;
    await this.listen();
  }

  async stop(): Promise<void> {
    this.stopped = true;
    if (this.retry) clearTimeout(this.retry);
    this.retry = null;
    this.drop();
    const client = this.client;
    this.client = null;
    await client?.end().catch(() => undefined);
  }

  /** Whether the cache serves entries (it listens for changes). */
  get active(): boolean {
    return this.listening;
  }

  /** A fresh entry for this key hash, or undefined (then read the key and `put` it with a `ticket` taken before). */
  get(hash: string): KeyPrincipal | undefined {
    if (!this.listening) return undefined;
    const entry = this.entries.get(hash);
    if (!entry) return undefined;
    if (performance.now() - entry.loadedAt >= this.freshMs) {
      this.entries.delete(hash);
      return undefined;
    }
    return entry.principal;
  }

  /** Taken before reading a key from the database; `put` ignores the result if the key changed meanwhile. */
  ticket(): number {
    return this.epoch;
  }

  put(hash: string, principal: KeyPrincipal, ticket: number): void {
    if (!this.listening || ticket !== this.epoch) return;
    if (this.entries.size >= this.maxEntries) {
      const oldest = this.entries.keys().next();
      if (!oldest.done) this.entries.delete(oldest.value);
    }
    this.entries.set(hash, { principal, loadedAt: performance.now() });
  }

  /** Drops the key with this id ("*": every key). */
  invalidate(keyId: string): void {
    this.epoch++;
    if (keyId === "*") {
      this.entries.clear();
      return;
    }
    for (const [hash, entry] of this.entries) if (entry.principal.keyId === keyId) this.entries.delete(hash);
  }

  private drop(): void {
    this.listening = false;
    this.invalidate("*");
  }

  private async listen(): Promise<void> {
    if (this.stopped) return;
    const lost = (why: unknown) => {
      if (this.client !== client) return;
      this.client = null;
      this.drop();
      if (this.stopped) return;
      this.opts.log?.warn(
        { err: why instanceof Error ? { message: why.message } : undefined },
        "API key cache: not listening for key changes; keys are read from the database until it listens again",
      );
      this.retry = setTimeout(() => {
        this.retry = null;
        void this.listen();
      }, this.retryMs);
      this.retry.unref();
    };
    const client = new ChannelListener(
      { connectionString: this.connectionString, applicationName: KEY_CACHE_APPLICATION, channel: API_KEYS_CHANNEL },
      { onNotify: (payload) => this.invalidate(payload ?? "*"), onLost: lost },
    );
    this.client = client;
    try {
      await client.connect();
      if (this.client !== client) return;
      // Whatever changed while nobody listened is unknown: start empty.
      this.invalidate("*");
      this.listening = true;
    } catch (e) {
      void client.end();
      lost(e);
    }
  }
}
