import { purgeLoginLeftoversTask } from "./auth/login-retention.js";
import { purgeVersionsTask } from "./ledger/transactions/versions.js";
import { rotateCursorKeyTask } from "./pagination/cursor-keys.js";
import type { PeriodicTask } from "./periodic.js";
import { seriesDetectionTask } from "./series/detection.js";
import { purgeSyncLogsTask, purgeWebhookEventsTask } from "./sync/retention.js";

/** Every periodic task of the core, one per queue of services/schedule.ts. */
export const PERIODIC_TASKS: PeriodicTask[] = [
  purgeVersionsTask,
  rotateCursorKeyTask,
  seriesDetectionTask,
  purgeWebhookEventsTask,
  purgeLoginLeftoversTask,
  purgeSyncLogsTask,
];
