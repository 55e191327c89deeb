import { afterAll, beforeAll, describe, expect, it } from "vitest";
import householdJson from "../../fixtures/demo/household.json" with { type: "json" };
import { loadDemo } from "../../cli/demo.js";
import { generateDemo } from "../../fixtures/demo/generate.js";
import { readHousehold } from "../../fixtures/demo/household.js";
import { openOrm, type Orm } from "../../services/db/orm.js";
import { pgArray, query } from "../../services/db/sql.js";
import { AUTO_MIN_CONFIDENCE, applySeriesDetection, detectProposals } from "../../services/series/detection.js";
import { createTestDatabase } from "../helpers/db.js";

// Detection on the demo household as `coffer demo` stores it: through the database, with real counterparty
// ids and account currencies, the same series as the pure measurement (test/unit/series-demo-quality.test.ts).

const TODAY = "2026-06-15";
const household = readHousehold(householdJson);
let orm: Orm;

beforeAll(async () => {
  orm = await openOrm(await createTestDatabase(), 2);
  await loadDemo(orm.em.fork(), { today: TODAY });
});
afterAll(async () => {
  await orm?.close();
});

/** The planted series of each stored transaction, by UUID (provider id and account tell them apart). */
async function plantedSeries(ids: string[]): Promise<(string | null)[]> {
  const plan = generateDemo(household, TODAY);
  const label = new Map(plan.transactions.map((t) => [`${t.account}/${t.id}`, t.series]));
  const rows = await query<{ id: string; ptid: string; account: string }>(
    orm.em.fork(),
    `select t.id, t.provider_transaction_id as ptid, a.provider_account_id as account
     from transactions t join accounts a on a.id = t.account_id where t.id = any(?::uuid[])`,
    [pgArray(ids)],
  );
  const byId = new Map(rows.map((r) => [r.id, label.get(`${r.account.replace(/^demo:/, "")}/${r.ptid}`) ?? null]));
  return ids.map((id) => byId.get(id) ?? null);
}

describe("series detection on the stored demo household", () => {
  it("proposes one series per planted series but the dentist, each holding that series' transactions", async () => {
    const views = await detectProposals(orm.em.fork(), { minConfidence: 0, today: TODAY });
    const found: string[] = [];
    for (const v of views) {
      const labels = new Set(await plantedSeries(v.proposal.transactionIds));
      expect(labels.size, v.proposal.reason).toBe(1);
      found.push([...labels][0]!);
    }
    const planted = household.recurring.map((r) => r.id);
    expect(found.sort()).toEqual(planted.filter((id) => id !== "dentist").sort());
  });

  it("applied at the automatic confidence, creates the confident ones with their counterparties", async () => {
    const r = await applySeriesDetection(
      orm.em.fork(),
      { type: "system", id: null, keyId: null, name: "test" },
      {
        minConfidence: AUTO_MIN_CONFIDENCE,
        trigger: "api",
        today: TODAY,
      },
    );
    expect(r.created).toHaveLength(household.recurring.length - 1);
    const rent = await query<{ name: string; counterparty: string; type: string; n: number }>(
      orm.em.fork(),
      `select s.name, cp.name as counterparty, s.type,
         (select count(*)::int from transactions t where t.series_id = s.id) as n
       from series s join counterparties cp on cp.id = s.counterparty_id where cp.name = 'Maple Street Properties'`,
    );
    expect(rent).toEqual([
      { name: "Maple Street Properties", counterparty: "Maple Street Properties", type: "bill", n: 12 },
    ]);
    expect(await detectProposals(orm.em.fork(), { minConfidence: AUTO_MIN_CONFIDENCE, today: TODAY })).toEqual([]);
  });
});
