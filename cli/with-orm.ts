import { readEnv } from "../common/env.js";
import { openDatabase } from "./embedded-postgres.js";
import { closeOrm, migrate, openOrm, type Em, type Orm } from "../services/db/orm.js";

/**
 * Runs `fn` straight on the database (DATABASE_URL, or the embedded default,
 * started for the duration if it is not running), after applying migrations.
 */
export async function withOrm<T>(
  fn: (em: Em, db: { orm: Orm; url: string }) => Promise<T>,
  env: NodeJS.ProcessEnv = process.env,
): Promise<T> {
  const db = await openDatabase(readEnv(env), (m) => process.stderr.write(`${m}\n`));
  try {
    const orm = await openOrm(db.url, 3);
    try {
      await migrate(orm);
      return await fn(orm.em.fork(), { orm, url: db.url });
    } finally {
      await closeOrm(orm);
    }
  } finally {
    await db.stop();
  }
}
