import PgBoss from "pg-boss";
import { SYNC_TRIGGERS, type SyncTrigger } from "../db/entities/index.js";
import { DUE_QUEUE, JOB_SCHEMA, SYNC_QUEUE } from "../db/job-queue-schema.js";
import { nowOf } from "../clock.js";
import type { Em } from "../db/orm.js";
import { dueConnectionIds } from "../db/tables/connections.js";
import type { EngineLogger, SyncEngine } from "./engine.js";

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
}

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
 * - once a minute one replica (pg-boss's cron) queues a sync for every
 *   connection not tried within COFFER_SYNC_INTERVAL that is neither paused,
 *   disconnected nor waiting for a re-login.
 */
export class SyncScheduler {
  private boss: PgBoss | null = null;
  private stopping = false;
  private readonly abort = new AbortController();
  private readonly running = new Set<Promise<unknown>>();
  private workerIds: string[] = [];

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
          this.track(this.runJob(job)),
        ),
      );
    }
    if (o.schedule !== false) {
      await boss.schedule(DUE_QUEUE, "* * * * *", {}, { retryLimit: 0 });
      this.workerIds.push(await boss.work(DUE_QUEUE, polling, () => this.track(this.queueDueSyncs())));
    }
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
      singletonKey: connectionId,
      startAfter: startAfterSeconds,
      retryLimit: o.retryLimit ?? 5,
      retryDelay: o.retryDelaySeconds ?? 60,
      retryBackoff: true,
      expireInSeconds: o.expireInSeconds ?? 3 * 3600,
    });
    if (startAfterSeconds === 0) for (const id of this.workerIds) boss.notifyWorker(id);
  }

  private async runJob(job: PgBoss.JobWithMetadata<SyncJob>): Promise<object> {
    if (!isSyncJob(job.data)) return { ignored: "malformed job" };
    const { connectionId, trigger } = job.data;
    const requestedAt = job.data.requestedAt ? new Date(job.data.requestedAt) : job.createdOn;
    const outcome = await this.opts.engine.run(connectionId, { trigger, requestedAt, signal: this.abort.signal });
    switch (outcome.status) {
      case "busy":
        // Asked again later, still as of the first request: the sync running now may turn out to answer it.
        await this.send(
          { connectionId, trigger, requestedAt: requestedAt.toISOString() },
          this.opts.busyDelaySeconds ?? 15,
        );
        return { deferred: "another sync of this connection is running" };
      case "interrupted":
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

  /** Queues a sync for every connection the schedule has made due; returns how many. */
  async queueDueSyncs(): Promise<number> {
    const em = this.opts.fork();
    const ids = await dueConnectionIds(em, nowOf(em), this.opts.intervalSeconds);
    for (const id of ids) await this.requestSync(id, "schedule");
    return ids.length;
  }

  /** Stops taking jobs, lets running syncs finish their current page, and closes the queue's connections. */
  async stop(): Promise<void> {
    const boss = this.boss;
    if (!boss || this.stopping) return;
    this.stopping = true;
    this.abort.abort();
    await Promise.allSettled([...this.running]);
    await boss.stop({ graceful: true, wait: true, timeout: 15_000 });
    this.boss = null;
  }
}
