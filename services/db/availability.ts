import pg from "pg";
import { databaseTrouble } from "../interceptors/errors.js";
import { CONNECT_TIMEOUT_MS } from "./orm.js";

/** Whether a failure (or anything in its cause chain) is the database being out of reach: it may pass. */
export const isDatabaseUnreachable = (e: unknown): boolean => databaseTrouble(e) === "unreachable";

/** The delay before the n-th attempt (1-based) at reaching the database: 0.5 s, doubling, at most 10 s. */
export const databaseRetryDelayMs = (attempt: number): number => Math.min(500 * 2 ** (attempt - 1), 10_000);

/** Whether the database answers a trivial query now, on a connection of its own (never a pooled one). */
export async function databaseAnswers(databaseUrl: string): Promise<{ ok: true } | { ok: false; reason: string }> {
  const client = new pg.Client({
    connectionString: databaseUrl,
    connectionTimeoutMillis: CONNECT_TIMEOUT_MS,
    application_name: "coffer probe",
  });
  client.on("error", () => undefined);
  try {
    await client.connect();
    await client.query("select 1");
    return { ok: true };
  } catch (e) {
    const err = e as { code?: unknown; message?: unknown };
    return { ok: false, reason: typeof err.code === "string" ? err.code : String(err.message) };
  } finally {
    await client.end().catch(() => undefined);
  }
}

export interface WaitForDatabaseOptions {
  /** Told once per failed attempt, with the delay before the next one. */
  onAttemptFailed?: (attempt: number, reason: string, retryInMs: number) => void;
  /** Aborting ends the wait early (the process is stopping); the promise then resolves false. */
  signal?: AbortSignal;
}

/**
 * Waits until the database answers, trying again with backoff
 * (databaseRetryDelayMs). Resolves true once it answers, false if `signal`
 * aborted the wait first. Nothing gives up: a database that is away for an
 * hour is waited for for an hour.
 */
export async function waitForDatabase(databaseUrl: string, opts: WaitForDatabaseOptions = {}): Promise<boolean> {
  for (let attempt = 1; ; attempt++) {
    if (opts.signal?.aborted) return false;
    const answer = await databaseAnswers(databaseUrl);
    if (answer.ok) return true;
    const delay = databaseRetryDelayMs(attempt);
    opts.onAttemptFailed?.(attempt, answer.reason, delay);
    if (!(await sleep(delay, opts.signal))) return false;
  }
}

/**
 * Runs `work`; if it fails because the database is out of reach, waits for
 * the database to answer (or `signal` to abort) before passing the failure on.
 * pg-boss reports a job's end to the database without handling a rejection of
 * that report, so a job must not end while the database is away.
 */
export async function failWhenDatabaseAnswers<T>(
  databaseUrl: string,
  work: () => Promise<T>,
  opts: WaitForDatabaseOptions = {},
): Promise<T> {
  try {
    return await work();
  } catch (e) {
    if (isDatabaseUnreachable(e)) await waitForDatabase(databaseUrl, opts);
    throw e;
  }
}

/** Sleeps `ms`; resolves false at once if `signal` aborts first. */
function sleep(ms: number, signal?: AbortSignal): Promise<boolean> {
  return new Promise((resolve) => {
    if (signal?.aborted) return resolve(false);
    const done = () => {
      clearTimeout(timer);
      resolve(false);
    };
    const timer = setTimeout(() => {
      signal?.removeEventListener("abort", done);
      resolve(true);
    }, ms);
    signal?.addEventListener("abort", done, { once: true });
  });
}
