import { spawn, type ChildProcess } from "node:child_process";
import { join } from "node:path";
import { readEnv, type LogFormat } from "../common/env.js";
import { prettyLine } from "../common/logging.js";
import { projectRoot } from "../common/project-root.js";
import {
  AWAIT_DATABASE_ENV,
  isDatabaseWaitMessage,
  isFirstRunSetupMessage,
  type DatabaseReadyMessage,
  type FirstRunSetupMessage,
} from "../common/supervision.js";
import { embeddedDatabaseUrl, openDatabase, type Database } from "./embedded-postgres.js";
import { CrashRecord, DEFAULT_RESTART_POLICY } from "./restart-policy.js";
import { encryptionKeyFor } from "./encryption-key.js";

const BIN = join(projectRoot(), "bin", "coffer.js");
const CHILDREN = ["core", "rest", "mcp"] as const;
type ChildName = (typeof CHILDREN)[number];
/** How long a child may take to stop on SIGTERM (the core gives in-flight calls 10 s) before it is killed. */
const STOP_GRACE_MS = 15_000;
/** A core that exits while it waits for the database is started again after this long. */
const DATABASE_WAIT_RESTART_MS = 5_000;

/** Waits for `url` to answer 2xx; the timeout does not run while `patient()` (the core is waiting for the database). */
async function waitFor(url: string, timeoutMs: number, patient: () => boolean = () => false): Promise<void> {
  let deadline = Date.now() + timeoutMs;
  for (;;) {
    if (patient()) deadline = Math.max(deadline, Date.now() + timeoutMs);
    try {
      const res = await fetch(url);
      if (res.ok) return;
    } catch {
      // not listening yet
    }
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${url}`);
    // Often: the summary should follow readiness at once.
    await new Promise((r) => setTimeout(r, 20));
  }
}

const seconds = (ms: number) => (ms < 1000 ? `${ms} ms` : `${(ms / 1000).toFixed(ms < 10_000 ? 1 : 0)} s`);

/** Stops one child: SIGTERM, then SIGKILL if it has not exited within STOP_GRACE_MS (a hung or stopped process). */
function stopChild(name: string, c: ChildProcess, say: (m: string) => void): Promise<void> {
  return new Promise((resolve) => {
    if (c.exitCode !== null || c.signalCode !== null) return resolve();
    const force = setTimeout(() => {
      say(`coffer ${name} did not stop within ${seconds(STOP_GRACE_MS)}; killing it`);
      c.kill("SIGKILL");
    }, STOP_GRACE_MS);
    c.once("exit", () => {
      clearTimeout(force);
      resolve();
    });
    c.kill("SIGTERM");
  });
}

/**
 * The supervisor's own lines (a child started, stopped, crashed, restarting):
 * plain sentences on stderr, as JSON mode has always had them, or with the
 * time and "coffer" in front, beside the children's readable log lines.
 */
function supervisorVoice(format: LogFormat): (m: string) => void {
  return format === "pretty"
    ? (m) => process.stderr.write(`${prettyLine(new Date(), "coffer", m.replace(/^coffer /, ""))}\n`)
    : (m) => process.stderr.write(`${m}\n`);
}

/**
 * `coffer start`: one supervisor for the three processes. Opens the database
 * (embedded unless DATABASE_URL is set), starts the core (which applies the
 * migrations before it listens, under a lock), then the REST and MCP
 * gateways. A child that exits on its own is restarted after a growing delay
 * (restart-policy.ts); one that crashes 5 times in 60 s stops everything with
 * exit code 1. Ctrl-C (or SIGTERM) stops everything cleanly, with exit code 0:
 * the children first, then the embedded database. The children and the
 * database run in process groups of their own, so a Ctrl-C in the terminal
 * reaches the supervisor alone and the order holds. (bin/coffer.js has
 * built dist/ and the console, when they were stale, before this runs.)
 */
export async function start(env: NodeJS.ProcessEnv) {
  const began = Date.now();
  const e = readEnv(env);
  const say = supervisorVoice(e.logFormat);
  // The children start while the database does: loading their code takes as long as starting an existing
  // embedded server, and initdb on a first run longer. The core waits for the word that it answers.
  const opening = openDatabase(e, say);
  let db: Database | null = null;
  const policy = { ...DEFAULT_RESTART_POLICY, firstDelayMs: e.restartBackoffMs };

  const { corePort, restPort, mcpPort, host } = e;
  const shown = host === "0.0.0.0" ? "localhost" : host;
  const childEnv: NodeJS.ProcessEnv = {
    ...env,
    DATABASE_URL: e.databaseUrl ?? embeddedDatabaseUrl(e.embeddedPgPort),
    COFFER_CORE_URL: e.coreUrl,
    COFFER_LOG_FORMAT: e.logFormat,
    [AWAIT_DATABASE_ENV]: "1",
  };
  // On the embedded database the key lives in the data directory, made on first start.
  const key = encryptionKeyFor(e);
  if (key) childEnv.COFFER_ENCRYPTION_KEY = key;

  const running = new Map<ChildName, ChildProcess>();
  const pendingRestarts = new Map<ChildName, NodeJS.Timeout>();
  const records = new Map(CHILDREN.map((n) => [n, new CrashRecord(policy)]));
  let setupArrived: (m: FirstRunSetupMessage) => void = () => {};
  const firstRunSetup = new Promise<FirstRunSetupMessage>((r) => (setupArrived = r));
  let stopping = false;
  /** The core said it is waiting for a database that does not answer (and has not said it answers since). */
  let coreAwaitsDatabase = false;

  const stopAll = async (code: number) => {
    if (stopping) return;
    stopping = true;
    for (const timer of pendingRestarts.values()) clearTimeout(timer);
    say("stopping Coffer…");
    await Promise.all(
      [...running].map(async ([name, c]) => {
        await stopChild(name, c, say);
        say(`coffer ${name} stopped`);
      }),
    );
    // A database still starting is waited for, so that it is stopped too.
    const opened = db ?? (await opening.catch(() => null));
    if (opened?.owned) {
      await opened.stop();
      say("the embedded PostgreSQL stopped");
    }
    say("Coffer stopped");
    process.exit(code);
  };

  const run = (name: ChildName) => {
    const startedAt = Date.now();
    const child = spawn(process.execPath, [BIN, name], {
      env: childEnv,
      // The IPC channel: the core's first-run link comes this way, and a child stops when it closes.
      stdio: ["ignore", "inherit", "inherit", "ipc"],
      // A process group of its own: the terminal's Ctrl-C reaches the supervisor, which stops it in order.
      detached: true,
    });
    if (name === "core") {
      coreAwaitsDatabase = false;
      child.on("message", (m) => {
        if (isFirstRunSetupMessage(m)) setupArrived(m);
        if (isDatabaseWaitMessage(m)) {
          coreAwaitsDatabase = m.kind === "database-waiting";
          say(coreAwaitsDatabase ? "coffer core is waiting for the database" : "coffer core reached the database");
        }
      });
      const ready: DatabaseReadyMessage = { kind: "database-ready" };
      void opening.then(
        () => child.connected && child.send(ready),
        () => undefined,
      );
    }
    running.set(name, child);
    let gone = false;
    const died = (cause: string) => {
      if (gone || stopping) return;
      gone = true;
      running.delete(name);
      const now = Date.now();
      if (name === "core" && coreAwaitsDatabase) {
        // Not a crash of the core's: the database is down. Restarted at a steady pace, never counted.
        say(
          `coffer core ${cause} while waiting for the database; restarting it in ${seconds(DATABASE_WAIT_RESTART_MS)}`,
        );
        pendingRestarts.set(
          name,
          setTimeout(() => {
            pendingRestarts.delete(name);
            if (!stopping) run(name);
          }, DATABASE_WAIT_RESTART_MS),
        );
        return;
      }
      const decision = records.get(name)!.crashed(now, now - startedAt);
      const crashes = `${decision.crashesInWindow} crash${decision.crashesInWindow === 1 ? "" : "es"}`;
      const window = seconds(policy.windowMs);
      if (!decision.restart) {
        say(
          `coffer ${name} ${cause}; ${crashes} in ${window} (the limit is ${policy.maxCrashes}), so Coffer stops. ` +
            `Its log above says why it failed.`,
        );
        void stopAll(1);
        return;
      }
      say(
        `coffer ${name} ${cause} after ${seconds(now - startedAt)}; restarting it in ${seconds(decision.delayMs)} ` +
          `(${crashes} in ${window}; ${policy.maxCrashes} stop Coffer)`,
      );
      pendingRestarts.set(
        name,
        setTimeout(() => {
          pendingRestarts.delete(name);
          if (!stopping) run(name);
        }, decision.delayMs),
      );
    };
    child.once("exit", (code, signal) => died(signal ? `was killed by ${signal}` : `exited with code ${code}`));
    // spawn itself failed (no 'exit' follows when the process never started).
    child.once("error", (err) => {
      if (child.pid === undefined) died(`could not be started (${err.message})`);
    });
    if (child.pid !== undefined) say(`coffer ${name} started (pid ${child.pid})`);
  };
  process.on("SIGINT", () => void stopAll(0));
  process.on("SIGTERM", () => void stopAll(0));
  // The terminal closed: the database, in a process group of its own, would not hear of it otherwise.
  process.on("SIGHUP", () => void stopAll(0));

  for (const name of CHILDREN) run(name);
  try {
    db = await opening;
  } catch (err) {
    say(`the database did not start: ${(err as Error).message}`);
    return stopAll(1);
  }
  try {
    // Ready means the REST gateway reaches the core and the core reaches the database.
    await waitFor(`http://127.0.0.1:${restPort}/health/ready`, 30_000, () => coreAwaitsDatabase);
    await waitFor(`http://127.0.0.1:${mcpPort}/health`, 30_000);
  } catch (err) {
    say(`Coffer did not become ready: ${(err as Error).message}`);
    return stopAll(1);
  }

  const ready = ((Date.now() - began) / 1000).toFixed(1);
  // The core sends it before it listens, so it is here by now, unless that core died and another started.
  const setup = await Promise.race([firstRunSetup, new Promise<null>((r) => setTimeout(() => r(null), 5_000).unref())]);
  if (!setup || setup.error)
    say(`could not check for a first-run setup link: ${setup?.error ?? "the core did not say"}`);
  const setupUrl = setup?.url ?? null;
  process.stdout.write(
    [
      ``,
      `Coffer is running (ready in ${ready}s)${db.owned ? ` on the embedded PostgreSQL in ${e.dataDir}` : ""}.`,
      `  REST API   http://${shown}:${restPort}/api/v1   (health: http://${shown}:${restPort}/health)`,
      `  MCP        http://${shown}:${mcpPort}/mcp`,
      `  core       http://${shown}:${corePort}   (Connect, gRPC, gRPC-Web over h2c)`,
      ``,
      ...(setupUrl
        ? [
            `No one can sign in to the web console yet. Open this one-time link within an hour to create`,
            `the admin account (each start prints a new one until an account exists):`,
            `  ${setupUrl}`,
            ``,
          ]
        : []),
      `Create your first API key (in another terminal):`,
      `  npx coffer keys create --name admin --scope full_access`,
      `Then:  curl -H "X-API-Key: <key>" http://${shown}:${restPort}/api/v1/keys/me`,
      `Press Ctrl-C to stop.`,
      ``,
    ].join("\n"),
  );
}
