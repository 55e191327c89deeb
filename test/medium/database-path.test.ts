import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeOrm, openOrm, type Orm } from "../../services/db/orm.js";
import { query } from "../../services/db/sql.js";
import { insertApiKey, authenticateKey } from "../../services/auth/api-keys.js";
import { createTestDatabase } from "../helpers/db.js";

// Every statement runs on the ORM's one pool (services/db/sql.ts). With a pool
// of one connection, what a statement leaves in its session is visible to the
// next one: a hot read asked to be prepared must leave a named statement there,
// and a statement inside a transaction must see the transaction's own writes.

let orm: Orm;

beforeAll(async () => {
  orm = await openOrm(await createTestDatabase(), 1);
});
afterAll(async () => {
  if (orm) await closeOrm(orm);
});

const preparedNames = async () =>
  (
    await query<{ name: string }>(orm.em.fork(), `select name from pg_prepared_statements where name like 'coffer_%'`)
  ).map((r) => r.name);

describe("the one database path", () => {
  it("a prepared read is a named statement on the ORM's pool, made once and reused", async () => {
    const { plaintext } = await insertApiKey(orm.em.fork(), { name: "path", scope: "read_only" });
    // Reading the new key back (loadApiKey) is a prepared read of its own.
    const before = await preparedNames();
    expect(before).toHaveLength(1);
    await authenticateKey(orm.em.fork(), plaintext);
    const once = await preparedNames();
    expect(once).toHaveLength(2);
    for (const name of once) expect(name).toMatch(/^coffer_[0-9a-f]{24}$/);
    const principal = await authenticateKey(orm.em.fork(), plaintext);
    expect(principal.keyName).toBe("path");
    expect(await preparedNames()).toEqual(once);
  });

  it("a statement inside a transaction runs on the transaction's connection", async () => {
    const em = orm.em.fork();
    const seen = await em.transactional(async (tx) => {
      await query(tx, `create temporary table path_probe (n int) on commit drop`);
      await query(tx, `insert into path_probe values (?)`, [7]);
      return query<{ n: number }>(tx, `select n from path_probe`);
    });
    expect(seen).toEqual([{ n: 7 }]);
  });

  it("a Date parameter is the same instant and day whatever the host's zone", async () => {
    // Node reads TZ when it formats a date, so the host's zone can change for this test alone.
    const zone = process.env.TZ;
    process.env.TZ = "America/New_York";
    const [row] = await query<{ day: string; at: string }>(
      orm.em.fork(),
      `select to_char(?::date, 'YYYY-MM-DD') as day, to_char(?::timestamptz at time zone 'UTC', 'HH24:MI') as at`,
      [new Date("2026-03-01T00:30:00Z"), new Date("2026-03-01T00:30:00Z")],
    ).finally(() => {
      if (zone === undefined) delete process.env.TZ;
      else process.env.TZ = zone;
    });
    expect(row).toEqual({ day: "2026-03-01", at: "00:30" });
  });
});
