import { mkdtempSync, rmSync, chmodSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import pg from "pg";
import type { TestProject } from "vitest/node";
import { ensureBuilt } from "../bin/build.js";
import { canConnect, startEmbeddedPostgres, type Database } from "../cli/embedded-postgres.js";
import { migrate, openOrm } from "../services/db/orm.js";
import { leftoverProcesses } from "./helpers/leftover-processes.js";

declare module "vitest" {
  export interface ProvidedContext {
    adminUrl: string;
    templateDb: string;
    runId: string;
    /** Where test/helpers/tracked-processes.ts records each process a test starts (a file per spawn). */
    processDir: string;
  }
}

const LOCAL_PG = "postgres://postgres@127.0.0.1:5432/postgres";

/**
 * One PostgreSQL for the whole run: DATABASE_URL if set, else the local server
 * on 5432, else an embedded one in a temporary directory. Migrations run once
 * into a template database; each test file clones it (see helpers/db.ts).
 */
export default async function setup(project: TestProject) {
  // Once per run, before any test spawns a `coffer` process: each one runs dist/ when it is current (else the
  // sources through tsx), and `coffer start` would otherwise build inside a test's time limit; the browser
  // tests drive the console built from the current sources.
  await ensureBuilt();
  let embedded: Database | null = null;
  let tmp: string | null = null;
  let adminUrl = process.env.DATABASE_URL ?? LOCAL_PG;
  if (!(await canConnect(adminUrl))) {
    if (process.env.DATABASE_URL) throw new Error(`cannot connect to DATABASE_URL`);
    tmp = mkdtempSync(join(tmpdir(), "coffer-test-pg-"));
    chmodSync(tmp, 0o755);
    embedded = await startEmbeddedPostgres(tmp, 54330 + Math.floor(Math.random() * 500));
    adminUrl = embedded.url;
  }
  const runId = `${Date.now().toString(36)}${Math.floor(Math.random() * 1e6).toString(36)}`;
  const templateDb = `coffer_tmpl_${runId}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  await admin.query(`create database ${templateDb}`);
  const orm = await openOrm(withDatabase(adminUrl, templateDb), 2);
  await migrate(orm);
  await orm.close();

  project.provide("adminUrl", adminUrl);
  project.provide("templateDb", templateDb);
  const processDir = mkdtempSync(join(tmpdir(), "coffer-test-processes-"));
  project.provide("runId", runId);
  project.provide("processDir", processDir);

  return async () => {
    // First, while the test databases still exist (dropping them would make a leftover core exit).
    const leftovers = leftoverProcesses(runId, processDir);
    rmSync(processDir, { recursive: true, force: true });
    const { rows } = await admin.query("select datname from pg_database where datname like $1", [`coffer_%${runId}%`]);
    for (const { datname } of rows) await admin.query(`drop database if exists ${datname} with (force)`);
    await admin.end();
    if (embedded) await embedded.stop();
    if (tmp) rmSync(tmp, { recursive: true, force: true });
    if (leftovers) throw new Error(leftovers);
  };
}

export function withDatabase(url: string, db: string): string {
  const u = new URL(url);
  u.pathname = `/${db}`;
  return u.toString();
}
