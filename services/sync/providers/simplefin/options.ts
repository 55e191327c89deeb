import type { Clock } from "../../../clock.js";
import type { RetryPolicy } from "../retry.js";

/**
 * SimpleFIN needs no server-side configuration: everything a connection needs
 * is in its access URL. These are tuning knobs with working defaults.
 */
export interface SimplefinOptions {
  /** Per-request timeout. The whole account set comes in one answer, which can be slow. Default 120 s. */
  timeoutMs?: number;
  /** How far before the stored cursor date each sync re-reads (pending rows that posted). Default 10 days. */
  overlapDays?: number;
  /** History read on the first sync, and the farthest back any sync reaches. Default 365 days. */
  historyDays?: number;
  /** How a sync retries a request that failed transiently (providers/retry.ts). Default: no retry. */
  retry?: RetryPolicy;
  /** The core's clock. Default the system clock. */
  clock?: Clock;
}

/** The protocol's longest `start-date`..`end-date` range; longer ones are silently capped by the Bridge. */
export const MAX_WINDOW_DAYS = 90;
