import { afterEach, beforeEach, describe, expect, it, vi } from "vitest";
import type { FastifyBaseLogger } from "fastify";
import { startPeriodicTasks } from "../../services/periodic.js";

const silentLog = () => {
  const warnings: unknown[] = [];
  return { log: { warn: (obj: unknown) => warnings.push(obj) } as unknown as FastifyBaseLogger, warnings };
};

describe("startPeriodicTasks", () => {
  beforeEach(() => {
    vi.useFakeTimers();
  });
  afterEach(() => {
    vi.useRealTimers();
  });

  it("runs a task once per period, starting one period after start", async () => {
    let runs = 0;
    const { log } = silentLog();
    const tasks = startPeriodicTasks([{ name: "t", everyMs: 1000, run: async () => runs++ }], log);
    expect(runs).toBe(0);
    await vi.advanceTimersByTimeAsync(3000);
    expect(runs).toBe(3);
    await tasks.stop();
    await vi.advanceTimersByTimeAsync(5000);
    expect(runs).toBe(3);
  });

  it("never overlaps runs of one task, and stop() waits for the run in progress", async () => {
    let active = 0;
    let most = 0;
    let finished = 0;
    const { log } = silentLog();
    const slow = async () => {
      most = Math.max(most, ++active);
      await new Promise((r) => setTimeout(r, 2500));
      active--;
      finished++;
    };
    const tasks = startPeriodicTasks([{ name: "slow", everyMs: 1000, run: slow }], log);
    await vi.advanceTimersByTimeAsync(4000);
    expect(most).toBe(1);
    const stopped = tasks.stop();
    await vi.advanceTimersByTimeAsync(3000);
    await stopped;
    expect(active).toBe(0);
    expect(finished).toBeGreaterThanOrEqual(1);
  });

  it("logs a failing run and keeps running the task", async () => {
    let runs = 0;
    const { log, warnings } = silentLog();
    const tasks = startPeriodicTasks(
      [
        {
          name: "flaky",
          everyMs: 1000,
          run: async () => {
            runs++;
            if (runs === 1) throw new Error("database went away");
          },
        },
      ],
      log,
    );
    await vi.advanceTimersByTimeAsync(2000);
    expect(runs).toBe(2);
    expect(warnings).toEqual([expect.objectContaining({ task: "flaky" })]);
    await tasks.stop();
  });
});
