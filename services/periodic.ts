import type { FastifyBaseLogger } from "fastify";

/** Work the core does by itself on a clock, apart from any request. */
export interface PeriodicTask {
  name: string;
  everyMs: number;
  run(): Promise<unknown>;
}

export interface RunningTasks {
  /** Stops the clocks and waits for runs in progress to end. */
  stop(): Promise<void>;
}

/**
 * Runs each task every `everyMs` (first run one period after start), one run
 * at a time per task. A failing run is logged and the next one happens as
 * planned. Timers are unref'd: they never keep a process alive.
 */
export function startPeriodicTasks(tasks: PeriodicTask[], log: FastifyBaseLogger): RunningTasks {
  const inFlight = new Set<Promise<unknown>>();
  const timers = tasks.map((task) => {
    let running = false;
    const timer = setInterval(() => {
      if (running) return;
      running = true;
      const run = task
        .run()
        .catch((err: unknown) => log.warn({ err, task: task.name }, "periodic task failed"))
        .finally(() => {
          running = false;
          inFlight.delete(run);
        });
      inFlight.add(run);
    }, task.everyMs);
    timer.unref();
    return timer;
  });
  return {
    async stop() {
      for (const t of timers) clearInterval(t);
      await Promise.all([...inFlight]);
    },
  };
}
