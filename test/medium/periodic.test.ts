import type { FastifyBaseLogger } from "fastify";
import PgBoss from "pg-boss";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
import { coreConfigFromEnv } from "../../services/config.js";
import { JOB_SCHEMA } from "../../services/db/job-queue-schema.js";
import { closeOrm, openOrm, type Orm } from "../../services/db/orm.js";
import { query } from "../../services/db/sql.js";
import { startPeriodicTasks, type PeriodicTask, type RunningTasks } from "../../services/periodic.js";
import { PERIODIC_TASKS } from "../../services/periodic-tasks.js";
import { SCHEDULE, type ScheduledQueue } from "../../services/schedule.js";
import { createTestDatabase } from "../helpers/db.js";
import { waitFor } from "../helpers/wait.js";

// The periodic tasks on pg-boss, with two "cores" (each its own pg-boss) on one database.

const QUEUE: ScheduledQueue = "coffer-purge-transaction-versions";

let url: string;
let orm: Orm;
const bosses: PgBoss[] = [];
const running: RunningTasks[] = [];

const recordingLog = () => {
  const warnings: Record<string, unknown>[] = [];
  const log = { warn: (obj: Record<string, unknown>) => warnings.push(obj) } as unknown as FastifyBaseLogger;
  return { log, warnings };
};

async function newBoss(schedule: boolean): Promise<PgBoss> {
  const boss = new PgBoss({
    connectionString: url,
    schema: JOB_SCHEMA,
    migrate: false,
    schedule,
    max: 2,
    // pg-boss's clock checks the schedules every second here (30 s by default).
    cronMonitorIntervalSeconds: 1,
    cronWorkerIntervalSeconds: 1,
  });
  await boss.start();
  bosses.push(boss);
  return boss;
}

async function start(boss: PgBoss, tasks: PeriodicTask[], log = recordingLog().log, schedule = false) {
  const r = await startPeriodicTasks(boss, tasks, {
    fork: () => orm.em.fork(),
    config: coreConfigFromEnv({ DATABASE_URL: url }),
    log,
    schedule,
    pollingIntervalSeconds: 0.5,
  });
  running.push(r);
  return r;
}

/** The witness that a run happened: its job reached a final state. */
async function finished(boss: PgBoss, id: string | null) {
  if (!id) throw new Error("no job was queued");
  const job = await waitFor(async () => {
    const j = await boss.getJobById<object>(QUEUE, id, { includeArchive: true });
    return j && ["completed", "failed"].includes(j.state) ? j : null;
  }, `job ${id}`);
  return { state: job.state, output: job.output };
}

function task(run: PeriodicTask["run"]): PeriodicTask {
  return { queue: QUEUE, name: "test task", run };
}

beforeAll(async () => {
  url = await createTestDatabase();
  orm = await openOrm(url, 2);
});

// Each test's cores go before the next test's start, so no stale worker takes its jobs.
afterEach(async () => {
  for (const r of running.splice(0)) await r.stop();
  for (const b of bosses.splice(0)) await b.stop({ graceful: false, wait: true });
  // And no job a test left (or pg-boss's clock queued at a minute's turn) waits for the next one.
  await query(orm.em.fork(), `delete from pgboss.job where name in (?, '__pgboss__send-it')`, [QUEUE]);
});

afterAll(async () => {
  await closeOrm(orm);
});

describe("the periodic tasks", () => {
  it("are one task per scheduled queue, at the documented times", () => {
    expect(PERIODIC_TASKS.map((t) => t.queue).sort()).toEqual(Object.keys(SCHEDULE).sort());
    expect(SCHEDULE).toEqual({
      "coffer-purge-transaction-versions": "* * * * *",
      "coffer-rotate-cursor-key": "5 * * * *",
      "coffer-series-detection": "10 * * * *",
      "coffer-purge-webhook-events": "15 * * * *",
      "coffer-purge-login-leftovers": "20 * * * *",
      "coffer-purge-sync-logs": "25 * * * *",
    });
  });

  it("put their schedules into pg-boss when the core keeps the schedule", async () => {
    const boss = await newBoss(true);
    await start(boss, PERIODIC_TASKS, recordingLog().log, true);
    const schedules = await boss.getSchedules();
    expect(Object.fromEntries(schedules.map((s) => [s.name, s.cron]))).toEqual(SCHEDULE);
    for (const s of schedules) await boss.unschedule(s.name); // the later tests run tasks by hand only
  });
});

describe("startPeriodicTasks", () => {
  it("on a core that keeps the schedule, runs the every-minute task by itself", async () => {
    let runs = 0;
    const boss = await newBoss(true);
    await start(boss, [task(async () => ++runs)], recordingLog().log, true);
    // The witness: a job of the task's queue, which pg-boss's clock queued, finished by a worker.
    const job = await waitFor(async () => {
      const rows = await query<{ state: string; output: unknown }>(
        orm.em.fork(),
        `select state::text as state, output from pgboss.job where name = ? and state = 'completed'`,
        [QUEUE],
      );
      return rows[0];
    }, "a scheduled run");
    expect(job).toEqual({ state: "completed", output: { result: 1 } });
    expect(runs).toBe(1);
    await boss.unschedule(QUEUE);
  });

  it("runs a queued run once across two cores, and keeps what it returned", async () => {
    let runs = 0;
    const count = task(async () => ++runs);
    const [a, b] = [await newBoss(false), await newBoss(false)];
    const coreA = await start(a, [count]);
    await start(b, [count]);
    const id = await coreA.runNow(QUEUE);
    expect(await finished(a, id)).toEqual({ state: "completed", output: { result: 1 } });
    expect(runs).toBe(1);
  });

  it("never overlaps runs of a task: one active, one waiting, more are not queued", async () => {
    let active = 0;
    let most = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    const slow = task(async () => {
      most = Math.max(most, ++active);
      await gate;
      active--;
    });
    const [a, b] = [await newBoss(false), await newBoss(false)];
    const coreA = await start(a, [slow]);
    const coreB = await start(b, [slow]);
    const first = await coreA.runNow(QUEUE);
    await waitFor(async () => active === 1, "the first run");
    const second = await coreB.runNow(QUEUE);
    expect(second).not.toBeNull();
    expect(await coreA.runNow(QUEUE)).toBeNull(); // one is already waiting
    release();
    expect((await finished(a, first)).state).toBe("completed");
    expect((await finished(a, second)).state).toBe("completed");
    expect(most).toBe(1);
  });

  it("logs a failing run, fails its job, and runs the next one", async () => {
    let runs = 0;
    const { log, warnings } = recordingLog();
    const flaky = task(async () => {
      if (++runs === 1) throw new Error("database went away");
      return "ok";
    });
    const boss = await newBoss(false);
    const core = await start(boss, [flaky], log);
    expect((await finished(boss, await core.runNow(QUEUE))).state).toBe("failed");
    expect(warnings).toEqual([expect.objectContaining({ task: "test task" })]);
    expect(await finished(boss, await core.runNow(QUEUE))).toEqual({ state: "completed", output: { result: "ok" } });
  });

  it("stop() waits for the run in progress", async () => {
    let finishedRuns = 0;
    let release!: () => void;
    const gate = new Promise<void>((r) => (release = r));
    let started = false;
    const slow = task(async () => {
      started = true;
      await gate;
      finishedRuns++;
    });
    const boss = await newBoss(false);
    const core = await start(boss, [slow]);
    await core.runNow(QUEUE);
    await waitFor(async () => started, "the run");
    // The witness that stop() got past taking no more work: pg-boss's offWork has returned.
    let tookNoMore = false;
    const offWork = boss.offWork.bind(boss) as (name: string) => Promise<void>;
    boss.offWork = (async (name: string) => {
      await offWork(name);
      tookNoMore = true;
    }) as typeof boss.offWork;
    let stopped = false;
    const stopping = core.stop().then(() => (stopped = true));
    await waitFor(async () => tookNoMore, "offWork");
    expect(stopped).toBe(false); // still waiting for the run
    release();
    await stopping;
    expect(finishedRuns).toBe(1);
  });
});
