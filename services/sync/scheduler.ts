import PgBoss from "pg-boss";
import { SYNC_TRIGGERS, type SyncTrigger } from "../db/entities/index.js";
import { DUE_QUEUE, JOB_SCHEMA, SYNC_QUEUE } from "../db/job-queue-schema.js";
import { nowOf } from "../clock.js";
import type { Em } from "../db/orm.js";
import { failWhenDatabaseAnswers, isDatabaseUnreachable, waitForDatabase } from "../db/availability.js";
import { tryLockConnection } from "../db/locks.js";
import { scheduledSyncsDueWithin, secondsUntilScheduledSync } from "../db/tables/connections.js";
import { startWaitingSyncJobWithin } from "../db/tables/sync-jobs.js";
import { connectionsWithRunningSyncLogs, interruptRunningSyncLogs } from "../db/tables/sync-logs.js";
import type { EngineLogger, SyncEngine, SyncOutcome } from "./engine.js";

export interface SchedulerOptions {
  databaseUrl: string;
  engine: SyncEngine;
  /** A fresh entity manager (for the due-connections query). */
  fork: () => Em;
  log: EngineLogger;
  /** How often each connection is synced (COFFER_SYNC_INTERVAL). */
  intervalSeconds: number;
  /** Syncs one core runs at once (of different connections). */
  workers?: number;
  /** Retries of a sync that failed transiently, and the first delay (it doubles each time, with jitter). */
  retryLimit?: number;
  retryDelaySeconds?: number;
  /** How long a sync job may run before pg-boss gives it up (it is retried). */
  expireInSeconds?: number;
  /** How often an idle worker asks for work; a request from this core wakes its workers at once. */
  pollingIntervalSeconds?: number;
  /** When a job finds the connection busy, it is asked again this much later. */
  busyDelaySeconds?: number;
  /**
   * Whether this core takes part in the schedule (the per-minute cron job that
   * queues due syncs); default true. Without it the core still runs every
   * sync that is requested, by anyone.
   */
  schedule?: boolean;
}

/** The job queue's database connections carry this name: while any is open, a core is running on the database. */
export const JOB_QUEUE_APPLICATION_NAME = "coffer jobs";

interface SyncJob {
  connectionId: string;
  trigger: SyncTrigger;
  /** When the sync was first asked for (database time, ISO), if before this job was queued (a deferred job). */
  requestedAt?: string;
  /** The schedule's next sync of the connection, queued to start when it is due. */
  scheduled?: boolean;
}

/** The schedule's sync jobs are keyed apart from requests: a waiting scheduled sync never absorbs a "Sync now". */
const scheduledKey = (connectionId: string) => `${connectionId}:schedule`;

/** The per-minute sweep makes sure every connection due within this long has its scheduled sync queued. */
const SWEEP_HORIZON_SECONDS = 120;

/** A scheduled sync that finds the connection synced more recently than this part of the interval waits again. */
const EARLY_FRACTION = 0.05;

/** How often a sync job syncs again after the database went away and came back, before it fails to pg-boss. */
const OUTAGE_RETRIES = 5;

const isSyncJob = (d: unknown): d is SyncJob =>
  typeof (d as SyncJob)?.connectionId === "string" && SYNC_TRIGGERS.includes((d as SyncJob).trigger);

/**
 * Background syncs on pg-boss, shared by every core replica through
 * PostgreSQL:
 *
 * - requests (manual, webhook, first sync, schedule) are jobs of SYNC_QUEUE
 *   keyed by the connection (policy "short": at most one waiting job per
 *   connection, so repeated requests collapse into one);
 * - any replica's worker may take a job; the engine's per-connection lock
 *   makes sure only one sync of a connection runs at a time, and a job that
 *   finds the connection busy asks again a little later;
 * - a sync that succeeded after a job was queued has done the job's work, so
 *   the job ends without syncing again (the engine compares the times);
 * - transient failures (the provider is down, rate limits) fail the job, and
 *   pg-boss retries it with exponential backoff;
 * - the schedule: when a sync of a connection ends, its next scheduled sync
 *   is queued to start COFFER_SYNC_INTERVAL after this one started (pg-boss's
 *   startAfter; one waiting scheduled job per connection); once a minute one
 *   replica (pg-boss's cron) makes sure every connection due within the next
 *   two minutes has that job, a safety net for connections that never synced
 *   or whose chain broke (paused, then resumed);
 * - a sync whose core died leaves its log "running" and its job active; the
 *   sweep (at start and once a minute) finds such logs whose lock is free,
 *   marks them interrupted and queues the connection again;
 * - a sync that fails because the database went away waits for the database
 *   and syncs again, and no job reports its end to pg-boss while the
 *   database is away (pg-boss would leave that report's failure unhandled).
 */
export class SyncScheduler {
  private boss: PgBoss | null = null;
  private stopping = false;
  private readonly abort = new AbortController();
  private readonly running = new Set<Promise<unknown>>();
  private workerIds: string[] = [];
  /** Wake-ups of this core's workers when a scheduled sync it queued is due (pg-boss polls every 2 s). */
  private readonly wakeUps = new Set<NodeJS.Timeout>();

  constructor(private readonly opts: SchedulerOptions) {}

  async start(): Promise<void> {
    const o = this.opts;
    const boss = new PgBoss({
      connectionString: o.databaseUrl,
      schema: JOB_SCHEMA,
      // The schema is installed and upgraded by `migrate` (services/db/job-queue-schema.ts), never here.
      migrate: false,
      // pg-boss's cron clock runs only where the schedule does.
      schedule: o.schedule !== false,
      max: 4,
      application_name: JOB_QUEUE_APPLICATION_NAME,
    });
    boss.on("error", (err: Error) => o.log.warn({ err: { type: err.name, message: err.message } }, "job queue error"));
    await boss.start();
    this.boss = boss;
    const polling = { pollingIntervalSeconds: o.pollingIntervalSeconds ?? 2, batchSize: 1 };
    for (let i = 0; i < (o.workers ?? 2); i++) {
      this.workerIds.push(
        await boss.work<SyncJob>(SYNC_QUEUE, { ...polling, includeMetadata: true }, ([job]) =>
          this.track(this.reported(() => this.runJob(job))),
        ),
      );
    }
    if (o.schedule !== false) {
      await boss.schedule(DUE_QUEUE, "* * * * *", {}, { retryLimit: 0 });
      this.workerIds.push(
        await boss.work(DUE_QUEUE, polling, () =>
          this.track(
            this.reported(async () => ({
              resumed: await this.resumeInterrupted(),
              queued: await this.queueDueSyncs(),
            })),
          ),
        ),
      );
    }
    // Syncs a core that died left behind resume now, not at the next minute.
    await this.resumeInterrupted().catch((err: unknown) =>
      o.log.warn(
        { err: { type: (err as Error).name, message: (err as Error).message } },
        "could not look for interrupted syncs",
      ),
    );
  }

  /** A job's work, whose failure reaches pg-boss only once the database answers (see failWhenDatabaseAnswers). */
  private reported<T>(work: () => Promise<T>): Promise<T> {
    return failWhenDatabaseAnswers(this.opts.databaseUrl, work, { signal: this.abort.signal });
  }

  /** The core's pg-boss, once started (the periodic tasks run on it too). */
  get jobQueue(): PgBoss {
    if (!this.boss) throw new Error("the job queue is not running");
    return this.boss;
  }

  /** Whether this core keeps pg-boss's cron schedules. */
  get keepsSchedule(): boolean {
    return this.opts.schedule !== false;
  }

  /** Keeps a job's promise until it settles, so stop() can wait for syncs in flight. */
  private track<T>(p: Promise<T>): Promise<T> {
    this.running.add(p);
    return p.finally(() => this.running.delete(p));
  }

  /** Queues a sync of the connection; a sync already waiting for it absorbs this one. */
  async requestSync(connectionId: string, trigger: SyncTrigger): Promise<void> {
    await this.send({ connectionId, trigger }, 0);
  }

  private async send(job: SyncJob, startAfterSeconds: number): Promise<void> {
    const boss = this.boss;
    if (!boss || (this.stopping && startAfterSeconds === 0)) throw new Error("the sync scheduler is not running");
    const o = this.opts;
    const { connectionId } = job;
    await boss.send(SYNC_QUEUE, job, {
      singletonKey: job.scheduled ? scheduledKey(connectionId) : connectionId,
      startAfter: startAfterSeconds,
      retryLimit: o.retryLimit ?? 5,
      retryDelay: o.retryDelaySeconds ?? 60,
      retryBackoff: true,
      expireInSeconds: o.expireInSeconds ?? 3 * 3600,
    });
    if (startAfterSeconds === 0) this.wakeWorkers();
    else if (startAfterSeconds <= 600) {
      // pg-boss finds the job by polling; a wake-up at the due time keeps a short interval exact.
      const timer = setTimeout(() => {
        this.wakeUps.delete(timer);
        this.wakeWorkers();
      }, startAfterSeconds * 1000);
      timer.unref();
      this.wakeUps.add(timer);
    }
  }

  private wakeWorkers() {
    if (!this.boss || this.stopping) return;
    for (const id of this.workerIds) this.boss.notifyWorker(id);
  }

  /** Queues the schedule's next sync of the connection for when it is due (nothing if the schedule leaves it out). */
  private async scheduleNext(connectionId: string): Promise<void> {
    const em = this.opts.fork();
    const wait = await secondsUntilScheduledSync(em, connectionId, nowOf(em), this.opts.intervalSeconds);
    if (wait !== null) await this.send({ connectionId, trigger: "schedule", scheduled: true }, wait);
  }

  /**
   * Runs a sync job; a sync that failed because the database went away is
   * run again once the database answers (it continues from the last page
   * committed before the outage), up to OUTAGE_RETRIES times in a row that
   * the database answered at once.
   */
  private async runJob(job: PgBoss.JobWithMetadata<SyncJob>): Promise<object> {
    if (!isSyncJob(job.data)) return { ignored: "malformed job" };
    for (let retries = 0; ;) {
      try {
        return await this.runJobOnce(job, job.data);
      } catch (e) {
        if (!isDatabaseUnreachable(e) || this.abort.signal.aborted) throw e;
        const { connectionId } = job.data;
        this.opts.log.warn({ connectionId }, "the database went away during a sync; syncing again once it answers");
        let waited = false;
        const answered = await waitForDatabase(this.opts.databaseUrl, {
          signal: this.abort.signal,
          onAttemptFailed: (attempt, reason, retryInMs) => {
            waited = true;
            this.opts.log.warn({ attempt, reason, retryInMs }, "the database does not answer; trying again");
          },
        });
        if (!answered) throw e;
        retries = waited ? 0 : retries + 1;
        if (retries > OUTAGE_RETRIES) throw e;
      }
    }
  }

  private async runJobOnce(job: PgBoss.JobWithMetadata<SyncJob>, data: SyncJob): Promise<object> {
    const { connectionId, trigger } = data;
    if (data.scheduled && job.retryCount === 0) {
      // A sync since this job was queued (a "Sync now", a webhook) moved the connection's due time.
      const em = this.opts.fork();
      const wait = await secondsUntilScheduledSync(em, connectionId, nowOf(em), this.opts.intervalSeconds);
      if (wait === null) return { skipped: "the schedule leaves this connection out" };
      if (wait > this.opts.intervalSeconds * EARLY_FRACTION) {
        await this.send(data, wait);
        return { deferred: "not due yet" };
      }
    }
    // A scheduled job runs when due; any other asks for a sync newer than its request.
    const requestedAt = data.scheduled ? undefined : data.requestedAt ? new Date(data.requestedAt) : job.createdOn;
    const outcome = await this.opts.engine.run(connectionId, { trigger, requestedAt, signal: this.abort.signal });
    if (ran(outcome)) await this.scheduleNext(connectionId);
    switch (outcome.status) {
      case "busy":
        // The sync running now queues the next scheduled one when it ends.
        if (!requestedAt) return { deferred: "another sync of this connection is running" };
        // Asked again later, still as of the first request: the sync running now may turn out to answer it.
        await this.send(
          { connectionId, trigger, requestedAt: requestedAt.toISOString() },
          this.opts.busyDelaySeconds ?? 15,
        );
        return { deferred: "another sync of this connection is running" };
      case "interrupted":
        if (outcome.reason === "lock_lost") {
          // Its session died; if no other sync holds the lock now, this one continues the work.
          await this.send({ connectionId, trigger }, 0);
          return { interrupted: outcome.syncLogId, requeued: true };
        }
        if (!this.abort.signal.aborted) return { interrupted: outcome.syncLogId };
        // Shutting down: this core's job fails and pg-boss hands it to a replica (or to this core after a restart).
        throw new Error("the core shut down during the sync");
      case "error":
        // A failed job is retried by pg-boss, with backoff; only transient failures are worth it.
        if (outcome.retry) throw new Error(`${outcome.failure.code}: ${outcome.failure.message}`);
        return { failed: outcome.failure.code };
      default:
        return outcome;
    }
  }

  /**
   * The schedule's safety net: queues the scheduled sync of every connection
   * due within SWEEP_HORIZON_SECONDS, at its due time (a connection whose
   * scheduled sync already waits keeps that one, moved to the due time when it
   * waited longer: the interval was shortened, or the due time moved); returns
   * how many are due now.
   */
  async queueDueSyncs(): Promise<number> {
    const em = this.opts.fork();
    const due = await scheduledSyncsDueWithin(em, nowOf(em), this.opts.intervalSeconds, SWEEP_HORIZON_SECONDS);
    for (const { id, waitSeconds } of due) {
      await this.send({ connectionId: id, trigger: "schedule", scheduled: true }, waitSeconds);
      if (await startWaitingSyncJobWithin(em, scheduledKey(id), waitSeconds)) {
        if (waitSeconds === 0) this.wakeWorkers();
      }
    }
    return due.filter((d) => d.waitSeconds === 0).length;
  }

  /**
   * Finds syncs whose process died: a log still "running" whose connection's
   * lock is free. Marks them interrupted and queues their connection again
   * (with the sync's trigger), so it continues from its last committed page.
   * Returns how many it queued.
   */
  async resumeInterrupted(): Promise<number> {
    let resumed = 0;
    for (const connectionId of await connectionsWithRunningSyncLogs(this.opts.fork())) {
      const lock = await tryLockConnection(this.opts.databaseUrl, connectionId);
      if (!lock) continue; // it is running
      let trigger: SyncTrigger | null;
      try {
        trigger = await interruptRunningSyncLogs(this.opts.fork(), connectionId);
      } finally {
        await lock.release();
      }
      if (!trigger) continue; // it ended meanwhile
      this.opts.log.warn({ connectionId, trigger }, "found a sync whose process died; resuming it");
      await this.requestSync(connectionId, trigger);
      resumed++;
    }
    return resumed;
  }

  /** Stops taking jobs, lets running syncs finish their current page, and closes the queue's connections. */
  async stop(): Promise<void> {
    const boss = this.boss;
    if (!boss || this.stopping) return;
    this.stopping = true;
    this.abort.abort();
    for (const timer of this.wakeUps) clearTimeout(timer);
    this.wakeUps.clear();
    await Promise.allSettled([...this.running]);
    await boss.stop({ graceful: true, wait: true, timeout: 15_000 });
    this.boss = null;
  }
}

/** Whether a sync ran (and so moved the connection's due time), as opposed to being skipped or deferred. */
const ran = (o: SyncOutcome) =>
  o.status === "success" || o.status === "error" || (o.status === "interrupted" && o.reason !== "shutdown");
