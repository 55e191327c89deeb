import { afterEach, describe, expect, it } from "vitest";
import { query } from "../../../services/db/sql.js";
import { POST_COMMIT_HOOKS, seriesDetectionHook } from "../../../services/sync/hooks.js";
import { tx } from "../../helpers/scripted-provider.js";
import { monthDays } from "../../helpers/series.js";
import { storedTransactions, syncWorld, type SyncWorld } from "../../helpers/sync.js";

// Series detection after each sync: the core's post-commit hook runs the daily detection right away
// once a sync brought changes; it never undoes the sync when it fails.

let w: SyncWorld;
afterEach(async () => {
  await w?.close();
});

const monthly = (prefix: string, months: [number, number]) =>
  monthDays(months[0], months[1], 1).map((date, i) =>
    tx(`${prefix}${i}`, { date, amount: "15.49", name: "NETFLIX.COM", merchantName: "Netflix" }),
  );

async function world() {
  w = await syncWorld({ hooks: POST_COMMIT_HOOKS });
  const conn = await w.connect();
  const q = <T extends object>(sql: string, params: unknown[] = []) => query<T>(w.orm.em.fork(), sql, params);
  return { id: conn.id, provider: w.provider, q };
}

describe("series detection after a sync", () => {
  it("is one of the core's post-commit hooks", () => {
    expect(POST_COMMIT_HOOKS).toContain(seriesDetectionHook);
  });

  it("creates the series a sync makes, extends it on the next sync, and runs only when rows changed", async () => {
    const { id, provider, q } = await world();
    provider.push({ added: monthly("n", [-5, -1]) });
    expect(await w.engine.run(id, { trigger: "initial" })).toMatchObject({ status: "success", added: 5 });
    const series = await q<{ id: string; name: string; source: string; cadence: string; created_by_name: string }>(
      `select id, name, source, cadence, created_by_name from series`,
    );
    expect(series).toEqual([
      {
        id: expect.any(String),
        name: "Netflix",
        source: "detected",
        cadence: "monthly",
        created_by_name: "series detection",
      },
    ]);
    const members = async () =>
      [...(await storedTransactions(w.orm)).values()].filter((t) => t.provider_transaction_id.startsWith("n")).length;
    const inSeries = async () =>
      Number(
        (await q<{ n: string }>(`select count(*) as n from transactions where series_id = ?`, [series[0].id]))[0].n,
      );
    expect([await members(), await inSeries()]).toEqual([5, 5]);
    expect((await q<{ trigger: string }>(`select trigger from series_detection_runs`)).map((r) => r.trigger)).toEqual([
      "sync",
    ]);

    // This month's charge arrives: the sync's detection puts it into the series at once.
    const [next] = monthly("x", [0, 0]);
    provider.push({ added: [next] });
    await w.engine.run(id, { trigger: "manual" });
    expect(await inSeries()).toBe(6);
    expect(await q(`select 1 from series_detection_runs`)).toHaveLength(2);

    // A sync that brings nothing runs no detection.
    expect(await w.engine.run(id, { trigger: "manual" })).toMatchObject({ status: "success", added: 0 });
    expect(await q(`select 1 from series_detection_runs`)).toHaveLength(2);
  });

  it("a failing detection is logged and leaves the sync and its rows committed", async () => {
    const { id, provider, q } = await world();
    await q(
      `create function no_series() returns trigger language plpgsql as $$
       begin raise exception 'series are read-only today'; end $$;
       create trigger no_series before insert on series for each row execute function no_series()`,
    );
    provider.push({ added: monthly("n", [-5, -1]) });
    expect(await w.engine.run(id, { trigger: "initial" })).toMatchObject({ status: "success", added: 5 });
    expect((await storedTransactions(w.orm)).size).toBe(5);
    expect(await q(`select 1 from series`)).toEqual([]);
    expect(await q(`select 1 from series_detection_runs`)).toEqual([]);
    const [log] = await q<{ status: string }>(`select status from sync_logs`);
    expect(log.status).toBe("success");
    expect(w.log.lines.filter((l) => l.startsWith("post-sync hook failed"))).toEqual([
      expect.stringContaining('"hook":"series detection"'),
    ]);
    expect(w.log.lines.join("\n")).toContain("series are read-only today");
  });
});
