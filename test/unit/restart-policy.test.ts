import { describe, expect, it } from "vitest";
import { CrashRecord, DEFAULT_RESTART_POLICY } from "../../cli/restart-policy.js";

describe("restart policy of coffer start", () => {
  it("has the documented defaults: 0.5 s doubling to 30 s, 5 crashes in 60 s stop", () => {
    expect(DEFAULT_RESTART_POLICY).toEqual({ firstDelayMs: 500, maxDelayMs: 30_000, maxCrashes: 5, windowMs: 60_000 });
  });

  it("doubles the delay for crashes in a row: 0.5, 1, 2, 4 s, then gives up at the 5th within 60 s", () => {
    const r = new CrashRecord();
    const decisions = [0, 1_000, 3_000, 7_000, 15_000].map((at) => r.crashed(at, 200));
    expect(decisions).toEqual([
      { restart: true, delayMs: 500, crashesInWindow: 1 },
      { restart: true, delayMs: 1_000, crashesInWindow: 2 },
      { restart: true, delayMs: 2_000, crashesInWindow: 3 },
      { restart: true, delayMs: 4_000, crashesInWindow: 4 },
      { restart: false, crashesInWindow: 5 },
    ]);
  });

  it("caps the delay at 30 s for a child that keeps crashing slowly (never 5 in one window)", () => {
    const r = new CrashRecord();
    const delays: number[] = [];
    // A crash every 20 s, each after 19 s of running: at most 3 in any 60 s window.
    for (let i = 0; i < 10; i++) {
      const d = r.crashed(i * 20_000, 19_000);
      expect(d.restart).toBe(true);
      if (d.restart) delays.push(d.delayMs);
    }
    expect(delays).toEqual([500, 1_000, 2_000, 4_000, 8_000, 16_000, 30_000, 30_000, 30_000, 30_000]);
  });

  it("counts only the crashes of the last 60 s", () => {
    const r = new CrashRecord();
    for (const at of [0, 10_000, 20_000, 30_000]) expect(r.crashed(at, 100).restart).toBe(true);
    // The crash at 0 has left the window when the fifth comes at 60 s.
    expect(r.crashed(60_000, 100)).toMatchObject({ restart: true, crashesInWindow: 4 });
    expect(r.crashed(61_000, 100)).toEqual({ restart: false, crashesInWindow: 5 });
  });

  it("starts again from the first delay after a child ran for a whole window", () => {
    const r = new CrashRecord();
    expect(r.crashed(0, 100)).toMatchObject({ delayMs: 500 });
    expect(r.crashed(1_000, 100)).toMatchObject({ delayMs: 1_000 });
    expect(r.crashed(200_000, 120_000)).toMatchObject({ delayMs: 500, crashesInWindow: 1 });
  });

  it("takes its timings from the policy it is given", () => {
    const r = new CrashRecord({ firstDelayMs: 50, maxDelayMs: 150, maxCrashes: 3, windowMs: 1_000 });
    expect([r.crashed(0, 10), r.crashed(100, 10), r.crashed(300, 10)]).toEqual([
      { restart: true, delayMs: 50, crashesInWindow: 1 },
      { restart: true, delayMs: 100, crashesInWindow: 2 },
      { restart: false, crashesInWindow: 3 },
    ]);
  });
});
