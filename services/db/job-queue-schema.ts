import { createRequire } from "node:module";
import PgBoss from "pg-boss";
import type pg from "pg";

/** The PostgreSQL schema pg-boss keeps its queues, jobs and cron schedules in. */
export const JOB_SCHEMA = "pgboss";

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
