import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { closeOrm, openOrm, type Orm } from "../../../services/db/orm.js";
import { query } from "../../../services/db/sql.js";
import { applyRule } from "../../../services/rules/apply.js";
import { findMatchingRules } from "../../../services/rules/find-matching.js";
import { previewRule } from "../../../services/rules/preview.js";
import { CofferError } from "../../../services/errors/coffer-error.js";
import { loadRule } from "../../../services/rules/rules.js";
import { applyRulesOnSync } from "../../../services/rules/runner.js";
import { createSeries } from "../../../services/series/series.js";
import { createTestDatabase } from "../../helpers/db.js";
import { newAccount, newTransactions, newUser } from "../../helpers/ledger.js";
import { annotationsOf, newRule, person, resetRules, ruleRow, syncActor, txRow } from "../../helpers/rules.js";

// Recurring series in rules: the condition fields `series` and `in_series` read transactions.series_id,
// and the action assign_series (by id, or by name, created when missing if asked) is checked when the
// rule is written and fills only transactions in no series, through the sync pipeline and apply alike.

let orm: Orm;
let usd: string;
let eur: string;
const em = () => orm.em.fork();

beforeAll(async () => {
  orm = await openOrm(await createTestDatabase(), 3);
  const user = await newUser(em(), "Ann");
  usd = (await newAccount(em(), user.id, { name: "Everyday" })).id;
  eur = (await newAccount(em(), user.id, { name: "Giro", currency: "EUR" })).id;
});
afterAll(async () => {
  await closeOrm(orm);
});
beforeEach(async () => {
  await resetRules(em());
});

const insert = (items: Parameters<typeof newTransactions>[2], account = usd) => newTransactions(em(), account, items);
const sync = (created: string[], changed: string[] = []) =>
  em().transactional((tx) => applyRulesOnSync(tx, { created, changed }, syncActor));
const seriesShortId = async (id: string) =>
  (await query<{ short_id: string }>(em(), `select short_id from series where id = ?`, [id]))[0].short_id;
const seriesOfTx = async (id: string): Promise<string | null> =>
  (
    await query<{ s: string | null }>(
      em(),
      `select s.short_id as s from transactions t left join series s on s.id = t.series_id where t.id = ?`,
      [id],
    )
  )[0].s;
const newSeries = async (name: string, members: string[] = []) =>
  createSeries(em(), person, {
    name,
    ...(members.length ? { transactionIds: members } : { expectedAmount: "9.99", isoCurrencyCode: "USD" }),
  });

describe("conditions on series and in_series", () => {
  it("read the stored series in the pipeline, preview and find_matching_rules alike", async () => {
    const [member, loose] = await insert([{ providerName: "NETFLIX" }, { providerName: "NETFLIX" }]);
    const sid = await seriesShortId(await newSeries("Netflix", [member]));
    const inIt = await newRule(em(), {
      conditions: { field: "series", op: "eq", value: sid },
      actions: [{ type: "set_metadata", key: "in", value: "that" }],
    });
    const none = await newRule(em(), {
      conditions: { field: "in_series", op: "eq", value: false },
      actions: [{ type: "set_metadata", key: "loose", value: true }],
    });
    expect(await sync([member, loose])).toEqual({ matched: 2, changed: 2 });
    expect((await txRow(em(), member)).metadata).toEqual({ in: "that" });
    expect((await txRow(em(), loose)).metadata).toEqual({ loose: true });
    expect((await ruleRow(em(), inIt)).hit_count).toBe(1);
    expect((await ruleRow(em(), none)).hit_count).toBe(1);

    const preview = await previewRule(
      em(),
      {
        conditions: {
          and: [
            { field: "in_series", op: "eq", value: true },
            { field: "series", op: "eq", value: sid },
          ],
        },
      },
      { timeoutMs: 10_000 },
    );
    expect(preview.matchCount).toBe(1);
    const memberShort = (
      await query<{ s: string }>(em(), `select short_id as s from transactions where id = ?`, [member])
    )[0].s;
    expect(preview.samples.map((m) => m.shortId)).toEqual([memberShort]);
    const found = await findMatchingRules(em(), { transactionId: member });
    expect(found.rules.map((r) => r.shortId)).toEqual([(await loadRule(em(), inIt)).shortId]);
  });
});

describe("assign_series", () => {
  it("is checked when the rule is written: exactly one target, a known series, no other parameters", async () => {
    const cases: [unknown, string][] = [
      [{ type: "assign_series" }, "actions[0]: give either series_id or series_name"],
      [{ type: "assign_series", series_id: "Ser12345", series_name: "X" }, "actions[0]: give either series_id or"],
      [{ type: "assign_series", series_id: "Nope1234" }, 'actions[0]: unknown series "Nope1234"'],
      [
        { type: "assign_series", series_id: "Ser12345", create_if_missing: true },
        "actions[0]: create_if_missing goes with series_name",
      ],
      [{ type: "assign_series", series_name: "Nobody" }, 'actions[0]: no series is named "Nobody"'],
      [{ type: "assign_series", series_name: 5 }, "actions[0]: series_name must be a string, got a number"],
      [{ type: "assign_series", series_name: "N", create_if_missing: "yes" }, "actions[0]: create_if_missing must be"],
      [{ type: "assign_series", series_name: "N", slug: "x" }, 'actions[0]: unknown key "slug"'],
    ];
    for (const [action, message] of cases) {
      const e = await newRule(em(), { actions: [action] }).then(
        () => null,
        (x: unknown) => x,
      );
      expect(e).toBeInstanceOf(CofferError);
      expect((e as CofferError).code).toBe("VALIDATION_ERROR");
      expect((e as CofferError).message.startsWith(message), (e as CofferError).message).toBe(true);
    }
    expect((await query(em(), `select 1 from rules where created_by_type <> 'system'`)).length).toBe(0);
  });

  it("stores a series given by UUID as its short id, and a name as given", async () => {
    const id = await newSeries("Spotify");
    const byId = await newRule(em(), { actions: [{ type: "assign_series", series_id: id }] });
    expect((await loadRule(em(), byId)).actions).toEqual([
      { type: "assign_series", series_id: await seriesShortId(id) },
    ]);
    const byName = await newRule(em(), {
      actions: [{ type: "assign_series", series_name: " Gym ", create_if_missing: true }],
    });
    expect((await loadRule(em(), byName)).actions).toEqual([
      { type: "assign_series", series_name: "Gym", create_if_missing: true },
    ]);
  });

  it("at sync fills only rows in no series, annotated with the rule, and later rules see it", async () => {
    const [other] = await insert([{ providerName: "SPOTIFY" }]);
    const otherSeries = await newSeries("Old", [other]);
    const target = await newSeries("Spotify");
    const sid = await seriesShortId(target);
    const rule = await newRule(em(), {
      priority: 1,
      conditions: { field: "provider_name", op: "contains", value: "spotify" },
      actions: [{ type: "assign_series", series_id: sid }],
    });
    const later = await newRule(em(), {
      priority: 2,
      conditions: { field: "series", op: "eq", value: sid },
      actions: [{ type: "add_comment", content: "in Spotify" }],
    });
    const [fresh, eurRow] = [
      ...(await insert([{ providerName: "SPOTIFY P123" }])),
      ...(await insert([{ providerName: "SPOTIFY", isoCurrencyCode: "EUR" }], eur)),
    ];
    await sync([fresh, eurRow], [other]);
    expect(await seriesOfTx(fresh)).toBe(sid);
    expect(await seriesOfTx(other)).toBe(await seriesShortId(otherSeries));
    // A transaction in another currency than the series is left out, as the series' own assign does.
    expect(await seriesOfTx(eurRow)).toBeNull();
    const notes = await annotationsOf(em(), fresh);
    expect(notes.filter((n) => n.action === "series_assigned")).toEqual([
      {
        action: "series_assigned",
        actor_name: "sync",
        details: expect.objectContaining({ series_id: sid, series_name: "Spotify", rule_name: expect.any(String) }),
      },
    ]);
    expect(notes.map((n) => n.action)).toContain("comment_added");
    expect((await ruleRow(em(), rule)).hit_count).toBe(3);
    expect((await ruleRow(em(), later)).hit_count).toBe(2);
    const [{ last_seen_date }] = await query<{ last_seen_date: string }>(
      em(),
      `select to_char(last_seen_date, 'YYYY-MM-DD') as last_seen_date from series where id = ?`,
      [target],
    );
    expect(last_seen_date).toBe("2026-01-15");
  });

  it("by name with create_if_missing creates the series once, through apply", async () => {
    const rows = await insert([
      { providerName: "GYM CLUB", date: "2026-01-03", amount: "30.00" },
      { providerName: "GYM CLUB", date: "2026-02-03", amount: "30.00" },
      { providerName: "BAKERY" },
    ]);
    const rule = await newRule(em(), {
      trigger: "on_create",
      conditions: { field: "provider_name", op: "contains", value: "gym" },
      actions: [{ type: "assign_series", series_name: "Gym", create_if_missing: true }],
    });
    expect(await applyRule(em(), person, rule, {})).toEqual({ matched: 2, changed: 2 });
    const series = await query<{ id: string; short_id: string; source: string; expected_amount: string }>(
      em(),
      `select id, short_id, source, expected_amount::text from series where name = 'Gym'`,
    );
    expect(series).toEqual([expect.objectContaining({ source: "manual", expected_amount: "30.00" })]);
    expect(await Promise.all(rows.map(seriesOfTx))).toEqual([series[0].short_id, series[0].short_id, null]);
    // Applied again: both already in a series, nothing changes and no second series appears.
    expect(await applyRule(em(), person, rule, {})).toEqual({ matched: 2, changed: 0 });
    expect((await query(em(), `select 1 from series where name = 'Gym'`)).length).toBe(1);
    const [note] = (await annotationsOf(em(), rows[0])).filter((n) => n.action === "series_assigned");
    expect(note).toMatchObject({ actor_name: person.name, details: { series_name: "Gym" } });
  });

  it("a series deleted after the rule was saved fills nothing and fails no sync", async () => {
    const target = await newSeries("Gone");
    const rule = await newRule(em(), {
      actions: [
        { type: "assign_series", series_id: target },
        { type: "set_metadata", key: "k", value: 1 },
      ],
    });
    await query(em(), `delete from series where id = ?`, [target]);
    const [t] = await insert([{}]);
    expect(await sync([t])).toEqual({ matched: 1, changed: 1 });
    expect(await seriesOfTx(t)).toBeNull();
    expect((await txRow(em(), t)).metadata).toEqual({ k: 1 });
    expect((await ruleRow(em(), rule)).hit_count).toBe(1);
  });
});
