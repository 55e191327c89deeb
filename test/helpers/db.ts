import { randomBytes } from "node:crypto";
import pg from "pg";
import { inject } from "vitest";
import { withDatabase } from "../global-setup.js";

/** A fresh, migrated database for one test file, cloned from the run's template. */
export async function createTestDatabase(): Promise<string> {
  const adminUrl = inject("adminUrl");
  const name = `coffer_t_${inject("runId")}_${randomBytes(4).toString("hex")}`;
  const admin = new pg.Client({ connectionString: adminUrl });
  await admin.connect();
  try {
    // Cloning from one template must not overlap: Postgres refuses while another clone reads it.
    for (let attempt = 0; ; attempt++) {
      try {
        await admin.query(`create database ${name} template ${inject("templateDb")}`);
        break;
      } catch (e) {
        if (attempt > 50 || !/being accessed by other users/.test(String(e))) throw e;
        await new Promise((r) => setTimeout(r, 50 + Math.random() * 100));
      }
    }
  } finally {
    await admin.end();
  }
  return withDatabase(adminUrl, name);
}
