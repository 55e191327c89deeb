import type { Em } from "../orm.js";
import { query } from "../sql.js";

/** How many sessions on this database carry this application_name (e.g. running cores' job queues). */
export async function countSessionsNamed(em: Em, applicationName: string): Promise<number> {
  const [{ cores }] = await query<{ cores: number }>(
    em,
    `select count(*)::int as cores from pg_stat_activity where datname = current_database() and application_name = ?`,
    [applicationName],
  );
  return cores;
}
