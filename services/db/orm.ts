import { MikroORM, defineConfig, type EntityManager } from "@mikro-orm/postgresql";
import { Migrator } from "@mikro-orm/migrations";
import pg from "pg";
import { migrateJobQueueSchema } from "./job-queue-schema.js";
import { LOCK_KEYS } from "./locks.js";
import { entities } from "./entities/index.js";
import { migrationsList } from "./migrations/index.js";

export type Orm = MikroORM;
export type Em = EntityManager;

export interface OrmOptions {
  poolMax?: number;
  /**
   * statement_timeout of every connection (ms; unset or 0: none). It is sent
   * when a connection opens, so it holds for each statement of the session.
   */
  statementTimeoutMs?: number;
  /** How long opening a connection may take (ms) before the call fails as UNAVAILABLE. */
  connectTimeoutMs?: number;
}

/**
 * A database host that accepts connections but never answers (a network
 * partition, a frozen server) must fail a call, not hold it: connecting gives
 * up after this long, and waiting for a pooled connection after twice as long.
 */
export const CONNECT_TIMEOUT_MS = 5_000;

export function ormConfig(databaseUrl: string, opts: OrmOptions = {}) {
  const connectTimeoutMs = opts.connectTimeoutMs ?? CONNECT_TIMEOUT_MS;
  const connection = {
    connectionTimeoutMillis: connectTimeoutMs,
    ...(opts.statementTimeoutMs ? { statement_timeout: opts.statementTimeoutMs } : {}),
  };
  return defineConfig({
    clientUrl: databaseUrl,
    entities,
    extensions: [Migrator],
    migrations: { migrationsList, snapshot: false, transactional: true, allOrNothing: true, silent: true },
    pool: { min: 0, max: opts.poolMax ?? 10 },
    driverOptions: { connection, acquireConnectionTimeout: 2 * connectTimeoutMs },
    // Timestamps are timestamptz; keep the driver in UTC regardless of the host.
    timezone: "+00:00",
    forceUtcTimezone: true,
    allowGlobalContext: false,
    debug: false,
  });
}

export async function openOrm(databaseUrl: string, poolMax?: number, opts: OrmOptions = {}): Promise<Orm> {
  return MikroORM.init(ormConfig(databaseUrl, { ...opts, poolMax }));
}

/** Closes the ORM and its pool. */
export async function closeOrm(orm: Orm): Promise<void> {
  await orm.close();
}

/**
 * Applies pending migrations, then installs or upgrades the job queue's
 * schema (pg-boss); idempotent, and safe when several processes start together.
 */
export async function migrate(orm: Orm): Promise<string[]> {
  // The lock lives on its own connection so the migrator keeps the whole pool.
  const lock = new pg.Client({ connectionString: orm.config.get("clientUrl") });
  await lock.connect();
  try {
    await lock.query("select pg_advisory_lock($1)", [LOCK_KEYS.migration]);
    const applied = await orm.getMigrator().up();
    await migrateJobQueueSchema(lock);
    return applied.map((m) => m.name);
  } finally {
    await lock.end().catch(() => undefined); // ending the session releases the lock
  }
}
