import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { loadDemo } from "../../cli/demo.js";
import { openOrm, type Orm } from "../../services/db/orm.js";
import { query } from "../../services/db/sql.js";
import { createTestDatabase } from "../helpers/db.js";

// `coffer demo` writes through the domain functions, so it leaves the audit trail they record,
// as the system actor "coffer demo"; a rerun changes nothing and so records nothing.

let orm: Orm;
const trail = () =>
  query<{ entity_type: string; action: string; actor_type: string; n: number }>(
    orm.em.fork(),
    `select entity_type, action, actor_type, count(*)::int as n from annotations
     where actor_name = 'coffer demo' group by 1, 2, 3 order by 1, 2`,
  );
let afterFirst: Awaited<ReturnType<typeof trail>>;
let comments: number;
beforeAll(async () => {
  orm = await openOrm(await createTestDatabase(), 2);
  comments = (await loadDemo(orm.em.fork(), { today: "2026-06-15" })).comments;
  afterFirst = await trail();
  await loadDemo(orm.em.fork(), { today: "2026-06-15" });
});
afterAll(async () => {
  await orm?.close();
});

describe("coffer demo's audit trail", () => {
  it("records what it created, and the balances it set, as the system actor", () => {
    expect(afterFirst).toEqual([
      { entity_type: "account", action: "created", actor_type: "system", n: 4 },
      { entity_type: "account", action: "updated", actor_type: "system", n: 4 },
      { entity_type: "comment", action: "comment_added", actor_type: "system", n: comments },
      { entity_type: "counterparty", action: "created", actor_type: "system", n: 4 },
      { entity_type: "tag", action: "created", actor_type: "system", n: 3 },
    ]);
  });

  it("records nothing on a rerun that adds nothing", async () => {
    expect(await trail()).toEqual(afterFirst);
  });

  it("keeps the accounts' natural keys and its comments' author", async () => {
    const accounts = await query<{ provider: string; provider_account_id: string }>(
      orm.em.fork(),
      `select provider, provider_account_id from accounts order by 2`,
    );
    expect(accounts).toEqual(
      ["demo:card", "demo:checking", "demo:giro", "demo:savings"].map((id) => ({
        provider: "manual",
        provider_account_id: id,
      })),
    );
    const authors = await query(orm.em.fork(), `select distinct author_type, author_name, author_key_id from comments`);
    expect(authors).toEqual([{ author_type: "system", author_name: "coffer demo", author_key_id: null }]);
  });
});
