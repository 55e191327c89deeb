import { createRequire } from "node:module";
import PgBoss from "pg-boss";
import type pg from "pg";
import { SCHEDULED_QUEUES } from "../schedule.js";

/** The PostgreSQL schema pg-boss keeps its queues, jobs and cron schedules in. */
export const JOB_SCHEMA = "pgboss";

/** The queue of sync requests; a job names one connection (at most one waiting job per connection). */
export const SYNC_QUEUE = "coffer-sync";
/** A cron job that queues the syncs the schedule has made due. */
export const DUE_QUEUE = "coffer-sync-due";
/** pg-boss's own queue for cron jobs (its timekeeper's). */
const CRON_QUEUE = "__pgboss__send-it";

/**
 * Every queue Coffer uses, with its policy. pg-boss makes a queue a table
 * partition; two cores creating one at once can deadlock, so queues are made
 * here, under the migration lock, and never by a starting core.
 */
const QUEUES: { name: string; policy: "standard" | "short" | "stately" }[] = [
  { name: SYNC_QUEUE, policy: "short" },
  { name: DUE_QUEUE, policy: "short" },
  { name: CRON_QUEUE, policy: "standard" },
  // The periodic tasks: one run active and one waiting at most, so runs never overlap.
  ...SCHEDULED_QUEUES.map((name) => ({ name, policy: "stately" as const })),
];

/**
 * Installs or upgrades pg-boss's own tables, as one more migration step.
 * pg-boss would otherwise create them lazily when a core first starts it
 * (`migrate: true`); Coffer's cores start it with `migrate: false`, so the
 * queue never changes the schema behind the migration lock, and a core whose
 * database was not migrated fails at start instead of at its first job.
 * pg-boss's plans run in their own transaction under their own advisory
 * lock; the caller holds Coffer's migration lock too.
 */
export async function migrateJobQueueSchema(client: pg.Client): Promise<"installed" | "upgraded" | "current"> {
  const outcome = await migrateTables(client);
  for (const q of QUEUES) {
    // create_queue does nothing for a queue that exists.
    await client.query(`select ${JOB_SCHEMA}.create_queue($1, $2::json)`, [
      q.name,
      JSON.stringify({ policy: q.policy }),
    ]);
  }
  return outcome;
}

async function migrateTables(client: pg.Client): Promise<"installed" | "upgraded" | "current"> {
  const { rows } = await client.query<{ name: string | null }>(`select to_regclass($1) as name`, [
    `${JOB_SCHEMA}.version`,
  ]);
  if (!rows[0].name) {
    await client.query(PgBoss.getConstructionPlans(JOB_SCHEMA));
    return "installed";
  }
  const version = await client.query<{ version: number }>(`select version from ${JOB_SCHEMA}.version`);
  const installed = Number(version.rows[0]?.version);
  const wanted = jobQueueSchemaVersion();
  if (installed >= wanted) return "current";
  // The typings say string; pg-boss compares the version as a number.
  await client.query(PgBoss.getMigrationPlans(JOB_SCHEMA, installed as unknown as string));
  return "upgraded";
}

/** The schema version this pg-boss release runs on. */
export function jobQueueSchemaVersion(): number {
  return (createRequire(import.meta.url)("pg-boss/version.json") as { schema: number }).schema;
}
