/**
 * When `coffer start` restarts a child that died, and when it gives up. Pure:
 * the supervisor tells it when each crash happened and how long the child had
 * run; it answers with a delay or a verdict. No clock, no processes.
 */

export interface RestartPolicy {
  /** The delay before the first restart; each further crash in a row doubles it. */
  firstDelayMs: number;
  /** The delay never grows past this. */
  maxDelayMs: number;
  /** This many crashes within windowMs stop the whole service. */
  maxCrashes: number;
  windowMs: number;
}

export const DEFAULT_RESTART_POLICY: RestartPolicy = {
  firstDelayMs: 500,
  maxDelayMs: 30_000,
  maxCrashes: 5,
  windowMs: 60_000,
};

export type RestartDecision =
  { restart: true; delayMs: number; crashesInWindow: number } | { restart: false; crashesInWindow: number };

/**
 * One child's crash record. The delay doubles with every crash in a row
 * (0.5 s, 1 s, 2 s, … up to the cap); a child that ran for a whole window
 * before it crashed starts again from the first delay. Independently, the
 * crashes of the last window are counted, and reaching maxCrashes means: stop.
 */
export class CrashRecord {
  private readonly crashes: number[] = [];
  private inARow = 0;

  constructor(private readonly policy: RestartPolicy = DEFAULT_RESTART_POLICY) {}

  /** Records a crash at time `at` (ms) of a child that had been running for `uptimeMs`. */
  crashed(at: number, uptimeMs: number): RestartDecision {
    const { firstDelayMs, maxDelayMs, maxCrashes, windowMs } = this.policy;
    this.crashes.push(at);
    while (this.crashes.length > 0 && this.crashes[0] <= at - windowMs) this.crashes.shift();
    const crashesInWindow = this.crashes.length;
    if (crashesInWindow >= maxCrashes) return { restart: false, crashesInWindow };
    this.inARow = uptimeMs >= windowMs ? 1 : this.inARow + 1;
    // 2 ** n overflows to Infinity long after the cap; Math.min keeps the cap.
    const delayMs = Math.min(firstDelayMs * 2 ** (this.inARow - 1), maxDelayMs);
    return { restart: true, delayMs, crashesInWindow };
  }
}
