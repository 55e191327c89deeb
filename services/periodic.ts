import type PgBoss from "pg-boss";
import type { FastifyBaseLogger } from "fastify";
import type { CoreConfig } from "./config.js";
import { failWhenDatabaseAnswers } from "./db/availability.js";
import type { Em } from "./db/orm.js";
import { SCHEDULE, type ScheduledQueue } from "./schedule.js";

/** Work the core does by itself on a clock, apart from any request. */
export interface PeriodicTask {
  /** Its pg-boss queue, which services/schedule.ts gives a cron schedule. */
  queue: ScheduledQueue;
  /** What it does, for the log. */
  name: string;
  /** One run (with the core's settings, e.g. a retention); what it returns is kept as the job's output. */
  run(em: Em, config: CoreConfig): Promise<unknown>;
}

export interface RunningTasks {
  /** Queues a run now, outside the schedule (tests; an operator); the job's id, or null if one is already waiting. */
  runNow(queue: ScheduledQueue): Promise<string | null>;
  /** Stops taking jobs and waits for runs in progress to end. */
  stop(): Promise<void>;
}

/**
 * Puts each task's schedule into pg-boss (when this core keeps the schedule)
 * and works its queue. The queues' policy ("stately") lets one run be active
 * and one wait, so runs of a task never overlap across cores; a failing run is
 * logged, fails its job, and the next one happens as scheduled. A run that
 * failed because the database is away fails its job once the database
 * answers (pg-boss would leave the failure of that report unhandled).
 */
export async function startPeriodicTasks(
  boss: PgBoss,
  tasks: PeriodicTask[],
  opts: {
    fork: () => Em;
    config: CoreConfig;
    log: FastifyBaseLogger;
    schedule: boolean;
    pollingIntervalSeconds?: number;
  },
): Promise<RunningTasks> {
  const inFlight = new Set<Promise<unknown>>();
  const stopping = new AbortController();
  const workers = new Map<ScheduledQueue, string>();
  for (const task of tasks) {
    if (opts.schedule) await boss.schedule(task.queue, SCHEDULE[task.queue], {}, { retryLimit: 0 });
    const id = await boss.work(
      task.queue,
      { pollingIntervalSeconds: opts.pollingIntervalSeconds ?? 2, batchSize: 1 },
      async () => {
        const run = failWhenDatabaseAnswers(
          opts.config.databaseUrl,
          () =>
            task.run(opts.fork(), opts.config).catch((err: unknown) => {
              opts.log.warn({ err, task: task.name }, "periodic task failed");
              throw err;
            }),
          { signal: stopping.signal },
        );
        inFlight.add(run);
        try {
          return { result: await run };
        } finally {
          inFlight.delete(run);
        }
      },
    );
    workers.set(task.queue, id);
  }
  return {
    async runNow(queue) {
      const id = await boss.send(queue, {}, { retryLimit: 0 });
      const worker = workers.get(queue);
      if (worker) boss.notifyWorker(worker);
      return id;
    },
    async stop() {
      stopping.abort();
      for (const queue of workers.keys()) await boss.offWork(queue);
      await Promise.allSettled([...inFlight]);
    },
  };
}
