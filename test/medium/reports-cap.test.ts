import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { query } from "../../services/db/sql.js";
import { REPORT_LIST_CAP } from "../../services/reports/reports.js";
import { withKey } from "../helpers/core-error.js";
import { key } from "../helpers/rest.js";
import { startStack, type Stack } from "../helpers/stack.js";

// The list cap: every match up to 1,000, newest first, and truncated when more matched.
// The rows are written in bulk with SQL, one second apart, so "newest" is known exactly.

let s: Stack;
beforeAll(async () => {
  s = await startStack();
});
afterAll(async () => {
  await s?.close();
});

/** n reports titled "r1".."rn", r1 the oldest; the even ones tagged "even". */
async function insertReports(n: number): Promise<void> {
  await query(
    s.orm.em.fork(),
    `insert into reports (id, short_id, title, body, tags, created_by_type, created_by_name, created_at)
     select gen_random_uuid(), coffer_short_id(), 'r' || i, 'body ' || i,
       case when i % 2 = 0 then array['even'] else array[]::text[] end,
       'agent', 'bulk', timestamptz '2026-01-01T00:00:00Z' + i * interval '1 second'
     from generate_series(1, ?) as i`,
    [n],
  );
}

const restList = async (qs = "") => {
  const res = await s.rest.inject({ method: "GET", url: `/api/v1/reports${qs}`, headers: key(s.readKey) });
  expect(res.statusCode).toBe(200);
  return res.json<{ reports: { title: string; body: string }[]; truncated: boolean }>();
};

describe("the report list cap", () => {
  it("exactly 1,000 matches: all of them, truncated false", async () => {
    expect(REPORT_LIST_CAP).toBe(1000);
    await insertReports(1000);
    const r = await s.core.reports.listReports({}, withKey(s.readKey));
    expect(r.reports).toHaveLength(1000);
    expect(r.truncated).toBe(false);
  });

  it("1,001 matches: the newest 1,000 and truncated true, over Connect and REST", async () => {
    await query(s.orm.em.fork(), `delete from reports`);
    await insertReports(1001);
    const r = await s.core.reports.listReports({}, withKey(s.readKey));
    expect(r.reports).toHaveLength(1000);
    expect(r.truncated).toBe(true);
    expect(r.reports[0].title).toBe("r1001");
    expect(r.reports[999].title).toBe("r2");

    const rest = await restList("?fields=body");
    expect(Object.keys(rest).sort()).toEqual(["reports", "truncated"]);
    expect(rest.truncated).toBe(true);
    expect(rest.reports).toHaveLength(1000);
    expect(rest.reports[0]).toMatchObject({ title: "r1001", body: "body 1001" });
    expect(rest.reports.at(-1)!.title).toBe("r2");
  });

  it("a filter that brings the matches under the cap: every match, truncated false", async () => {
    const even = await restList("?tag=even");
    expect(even.truncated).toBe(false);
    expect(even.reports).toHaveLength(500);
    expect(even.reports[0].title).toBe("r1000");
    const recent = await restList("?since=2026-01-01T00:16:00Z"); // r960 and later
    expect(recent).toMatchObject({ truncated: false });
    expect(recent.reports).toHaveLength(42);
  });
});
