import type { Orm } from "../../services/db/orm.js";
import { closeOrm, openOrm } from "../../services/db/orm.js";
import { query } from "../../services/db/sql.js";
import type { SyncTrigger } from "../../services/db/entities/index.js";
import type { Actor } from "../../services/ledger/actor.js";
import { createConnection, type ConnectionDeps, type ConnectionView } from "../../services/sync/connections.js";
import { CredentialCipher } from "../../services/sync/credentials.js";
import { SyncEngine, type EngineLogger } from "../../services/sync/engine.js";
import type { PostCommitHook } from "../../services/sync/hooks.js";
import { CsvProvider } from "../../services/sync/providers/csv/provider.js";
import type { Provider } from "../../services/sync/providers/provider.js";
import { ProviderRegistry } from "../../services/sync/registry.js";
import { createTestDatabase } from "./db.js";
import { newUser } from "./ledger.js";
import { ScriptedProvider } from "./scripted-provider.js";

/** A fixed key for tests (never used outside them). */
export const TEST_ENCRYPTION_KEY = "0123456789abcdef".repeat(4);

export const OPERATOR: Actor = { type: "user", id: null, keyId: null, name: "test operator" };

/** A logger that keeps what it was told, so tests can check what is (and is not) logged. */
export function memoryLogger(): EngineLogger & { lines: string[] } {
  const lines: string[] = [];
  const put = (obj: object, msg: string) => void lines.push(`${msg} ${JSON.stringify(obj)}`);
  return { lines, info: put, warn: put, error: put };
}

export interface SyncWorld {
  url: string;
  orm: Orm;
  provider: ScriptedProvider;
  registry: ProviderRegistry;
  engine: SyncEngine;
  deps: ConnectionDeps;
  /** Syncs the connection endpoints asked for (the scheduler is not running here). */
  requested: { connectionId: string; trigger: SyncTrigger }[];
  userId: string;
  log: ReturnType<typeof memoryLogger>;
  connect(credentials?: Record<string, unknown>, provider?: string): Promise<ConnectionView>;
  close(): Promise<void>;
}

/** A database of its own, a scripted provider (as "plaid") beside CSV, and the engine over them (no scheduler). */
export async function syncWorld(
  opts: { hooks?: PostCommitHook[]; providers?: Provider[]; url?: string } = {},
): Promise<SyncWorld> {
  const url = opts.url ?? (await createTestDatabase());
  const orm = await openOrm(url, 6);
  const provider = new ScriptedProvider("plaid");
  const registry = new ProviderRegistry(opts.providers ?? [provider, new CsvProvider()]);
  const cipher = new CredentialCipher(TEST_ENCRYPTION_KEY);
  const requested: SyncWorld["requested"] = [];
  const deps: ConnectionDeps = {
    registry,
    cipher,
    requestSync: async (connectionId, trigger) => void requested.push({ connectionId, trigger }),
  };
  const log = memoryLogger();
  const engine = new SyncEngine({ orm, databaseUrl: url, cipher, registry, hooks: opts.hooks ?? [], log });
  const userId = (await newUser(orm.em.fork(), "Ann")).id;
  return {
    url,
    orm,
    provider,
    registry,
    engine,
    deps,
    requested,
    userId,
    log,
    connect: (credentials = { token: "t1" }, name = "plaid") =>
      createConnection(orm.em.fork(), deps, OPERATOR, { provider: name, userId, credentials }),
    close: () => closeOrm(orm),
  };
}

export interface StoredTx {
  id: string;
  short_id: string;
  provider_transaction_id: string;
  amount: string;
  pending: boolean;
  deleted: boolean;
  removed_by_provider: boolean;
  category: string | null;
  category_source: string | null;
  tags: string[];
  metadata: Record<string, unknown>;
  provider_category_primary: string | null;
  provider_name: string;
  date: string;
}

/** Every transaction row of the database (live, deleted and removed), by provider id. */
export async function storedTransactions(orm: Orm): Promise<Map<string, StoredTx>> {
  const rows = await query<StoredTx>(
    orm.em.fork(),
    `select t.id, t.short_id, t.provider_transaction_id, t.amount::text as amount, t.pending,
       t.deleted_at is not null as deleted, t.provider_removed_at is not null as removed_by_provider,
       c.slug as category, t.category_source,
       coalesce((select array_agg(g.slug order by g.slug) from tags g where g.id = any(t.tag_ids)), '{}') as tags,
       t.metadata, t.provider_category_primary, t.provider_name, to_char(t.date, 'YYYY-MM-DD') as date
     from transactions t left join categories c on c.id = t.category_id`,
  );
  return new Map(rows.map((r) => [r.provider_transaction_id, r]));
}
