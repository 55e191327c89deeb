/**
 * When the core's periodic tasks run: each is a pg-boss queue with a cron
 * schedule (five fields, UTC). pg-boss's clock queues one job per due minute
 * for the whole database, whichever cores are running, and one core's worker
 * takes it, so a task runs once across cores with no lock of Coffer's.
 * The queues are created with the job queue's schema (services/db/job-queue-schema.ts),
 * so this module imports nothing. To add a task: a line here, and its
 * PeriodicTask in services/periodic-tasks.ts.
 */
export const SCHEDULE = {
  /** Row versions no live cursor can need (services/ledger/transactions/versions.ts). */
  "coffer-purge-transaction-versions": "* * * * *",
  /** A new cursor signing key once the newest is old enough (services/pagination/cursor-keys.ts). */
  "coffer-rotate-cursor-key": "5 * * * *",
  /** The daily series detection, when the last automatic one is a day old (services/series/detection.ts). */
  "coffer-series-detection": "10 * * * *",
  /** Webhook deliveries past their retention (services/sync/retention.ts). */
  "coffer-purge-webhook-events": "15 * * * *",
  /** Ended sessions, spent setup links, old sign-in attempts (services/auth/login-retention.ts). */
  "coffer-purge-login-leftovers": "20 * * * *",
  /** Finished sync logs past COFFER_SYNC_LOG_RETENTION_DAYS (services/sync/retention.ts). */
  "coffer-purge-sync-logs": "25 * * * *",
} as const;

export type ScheduledQueue = keyof typeof SCHEDULE;

export const SCHEDULED_QUEUES = Object.keys(SCHEDULE) as ScheduledQueue[];
