/**
 * What a child of `coffer start` tells the supervisor over the IPC channel
 * (process.send). The core sends the first-run setup link once it has
 * migrated, so the supervisor can print it in its summary without loading
 * the ORM itself.
 */
export interface FirstRunSetupMessage {
  kind: "first-run-setup";
  /** The one-time link while no one can sign in; null once a login exists or when it could not be made. */
  url: string | null;
  /** Why no link could be made, if that is the reason url is null. */
  error?: string;
}

export const isFirstRunSetupMessage = (m: unknown): m is FirstRunSetupMessage =>
  typeof m === "object" && m !== null && (m as { kind?: unknown }).kind === "first-run-setup";

/**
 * The supervisor starts the core while the embedded database is still
 * starting (initdb on a first run takes seconds), so the core loads its code
 * meanwhile; it sets this variable in the core's environment and sends
 * DatabaseReadyMessage once DATABASE_URL answers.
 */
export const AWAIT_DATABASE_ENV = "COFFER_AWAIT_DATABASE";

export interface DatabaseReadyMessage {
  kind: "database-ready";
}

/**
 * The core tells the supervisor when it starts waiting for a database that
 * does not answer, and when it answers again: a core that exits while it
 * waits is not counted as crashing (the database is what is down).
 */
export interface DatabaseWaitMessage {
  kind: "database-waiting" | "database-answers";
}

export const isDatabaseWaitMessage = (m: unknown): m is DatabaseWaitMessage =>
  typeof m === "object" &&
  m !== null &&
  ["database-waiting", "database-answers"].includes((m as { kind?: unknown }).kind as string);

/** Resolves at once, unless the supervisor said (AWAIT_DATABASE_ENV) that it will tell when the database is up. */
export function databaseReady(env: NodeJS.ProcessEnv): Promise<void> {
  if (env[AWAIT_DATABASE_ENV] !== "1" || !process.send) return Promise.resolve();
  return new Promise((resolve) => {
    const heard = (m: unknown) => {
      if ((m as Partial<DatabaseReadyMessage> | null)?.kind !== "database-ready") return;
      process.off("message", heard);
      resolve();
    };
    process.on("message", heard);
  });
}

/**
 * Calls `stop` when the supervisor goes away (its IPC channel closes): a
 * child whose `coffer start` was killed outright stops too, instead of
 * running on with nobody to stop it.
 */
export function stopWithSupervisor(stop: () => void) {
  if (!process.send) return; // not started by a supervisor
  if (process.connected) process.once("disconnect", stop);
  else stop(); // it went away while this process was starting
}
