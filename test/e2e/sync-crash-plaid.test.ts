import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { coreClients, coreTransport, type CoreClients } from "../../gateways/shared/core-client.js";
import { insertApiKey } from "../../services/auth/api-keys.js";
import { closeOrm, openOrm, type Orm } from "../../services/db/orm.js";
import { query } from "../../services/db/sql.js";
import { updateTransactionTags } from "../../services/ledger/transactions/tags.js";
import { FakePlaid, type FakeItem } from "../fakes/plaid/server.js";
import { createTestDatabase } from "../helpers/db.js";
import { newUser } from "../helpers/ledger.js";
import { cofferEnv, freePort, killAll, spawnCoffer, type CofferProcess } from "../helpers/processes.js";
import { OPERATOR, TEST_ENCRYPTION_KEY } from "../helpers/sync.js";
import { waitFor } from "../helpers/wait.js";

// The crash test with the real Plaid client: `coffer core` (configured by PLAID_* alone) syncs from
// the Plaid fake and is killed with SIGKILL while it waits for a page; a new core syncs again, and
// the stored rows are exactly the fake's, nothing twice, a person's tag carried to the posted row.
// Plaid resumes only from the cursor after a run's last page, so the second run reads the history
// from the start again and must apply the pages the first one committed without changing them.

const PAGE = 10;
const auth = () => ({ headers: { "x-api-key": key } });
let plaid: FakePlaid;
let url: string;
let orm: Orm;
let key: string;
const procs: CofferProcess[] = [];

beforeAll(async () => {
  plaid = await new FakePlaid().start();
  plaid.maxPageSize = PAGE;
  url = await createTestDatabase();
  orm = await openOrm(url, 3);
  key = (await insertApiKey(orm.em.fork(), { name: "plaid crash test", scope: "full_access" })).plaintext;
});
afterAll(async () => {
  await killAll(procs);
  if (orm) await closeOrm(orm);
  await plaid?.stop();
});

/** `coffer core` against the test's database and the Plaid fake; resolves once it answers. */
async function startCore(name: string): Promise<{ proc: CofferProcess; core: CoreClients }> {
  const port = await freePort();
  const proc = spawnCoffer(
    name,
    ["core"],
    cofferEnv({
      DATABASE_URL: url,
      COFFER_CORE_PORT: String(port),
      COFFER_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      COFFER_LOG_LEVEL: "warn",
      PLAID_CLIENT_ID: plaid.clientId,
      PLAID_SECRET: plaid.secret,
      PLAID_BASE_URL: plaid.url,
    }),
  );
  procs.push(proc);
  const core = coreClients(coreTransport(`http://127.0.0.1:${port}`, 5_000));
  await waitFor(
    async () => {
      if (proc.child.exitCode !== null) throw new Error(`${name} exited:\n${proc.lines.join("\n")}`);
      return core.system.checkReady({}, auth()).then(
        () => true,
        () => false,
      );
    },
    `${name} to be ready`,
    45_000,
  );
  return { proc, core };
}

async function stored(connectionId: string) {
  return query<{ p: string; amount: string; live: boolean; pending: boolean }>(
    orm.em.fork(),
    `select t.provider_transaction_id as p, t.amount::text as amount, t.deleted_at is null as live, t.pending
     from transactions t join accounts a on a.id = t.account_id where a.connection_id = ?`,
    [connectionId],
  );
}

const logs = (connectionId: string) =>
  query<{ status: string; pages: number; added: number; unchanged: number; error_code: string | null }>(
    orm.em.fork(),
    `select status, pages, added, unchanged, error_code from sync_logs where connection_id = ? order by started_at`,
    [connectionId],
  );

const syncRequests = () => plaid.requests.filter((r) => r.path === "/transactions/sync").length;

describe("a core killed in the middle of a Plaid sync", () => {
  it("loses nothing and duplicates nothing: the next sync ends with exactly the fake's rows", async () => {
    const user = await newUser(orm.em.fork(), "Ann");
    // The Item's log: 60 rows of history, a pending row, 20 more, then its posting (its removal, 5 rows, the
    // posted row), a change and a removal of history rows: 90 entries, 9 pages of 10.
    const { publicToken, item } = plaid.createPublicToken({ transactions: 60 });
    const pending = plaid.add(item, { pending: true, name: "PENDING DINNER", amount: 42 });
    for (let i = 0; i < 20; i++) plaid.add(item, { name: `ROW ${i}`, amount: 1 + i });
    const posted = plaid.post(item, pending.transaction_id, { amount: 42.5 }, 5);
    const [changed, gone] = [...item.live.values()].slice(0, 2);
    plaid.modify(item, changed.transaction_id, { amount: 777.77 });
    plaid.remove(item, gone.transaction_id);
    expect(item.log.length).toBe(90);
    // The 9th /transactions/sync request hangs: the first core dies waiting for it.
    const blockAt = 8;
    plaid.faults.add("/transactions/sync", { kind: "slow", ms: 20_000 }, 1, blockAt);

    const first = await startCore("core-1");
    const created = await first.core.connections.createConnection(
      { provider: "plaid", userId: user.shortId, credentials: { public_token: publicToken } },
      auth(),
    );
    const id = created.connection!.id;
    await waitFor(
      async () => syncRequests() === blockAt + 1 && (await logs(id))[0]?.pages === blockAt,
      "the first sync to commit 8 pages and wait for the 9th",
      30_000,
    );
    first.proc.child.kill("SIGKILL");
    await first.proc.exited;

    expect(await logs(id)).toEqual([
      { status: "running", pages: blockAt, added: blockAt * PAGE, unchanged: 0, error_code: null },
    ]);
    const half = await stored(id);
    expect(half.length).toBe(blockAt * PAGE);
    const [cursor] = await query<{ cursor: string | null }>(
      orm.em.fork(),
      `select cursor from connections where id = ?`,
      [id],
    );
    expect(cursor.cursor ?? "").toBe(""); // Plaid's cursor moves only with a run's last page

    // While no core runs, a person tags the pending row; it posts in the page the first core never read.
    const [row] = await query<{ id: string }>(
      orm.em.fork(),
      `select id from transactions where provider_transaction_id = ?`,
      [pending.transaction_id],
    );
    await updateTransactionTags(orm.em.fork(), OPERATOR, row.id, { add: ["reimbursable"] });

    const second = await startCore("core-2");
    await second.core.connections.syncConnection({ id }, auth());
    const done = await waitFor(
      async () => {
        const l = await logs(id);
        return l.some((x) => x.status === "success") ? l : null;
      },
      "the second sync",
      30_000,
    );
    expect(done).toEqual([
      { status: "interrupted", pages: blockAt, added: blockAt * PAGE, unchanged: 0, error_code: "INTERRUPTED" },
      // Every page again: the 8 committed ones change nothing; the 9th brings 7 rows, a change and 2 removals.
      { status: "success", pages: 9, added: 7, unchanged: blockAt * PAGE, error_code: null },
    ]);
    expectExactly(await stored(id), item);
    const [tagged] = await query<{ tags: string[] }>(
      orm.em.fork(),
      `select array(select slug from tags where id = any(t.tag_ids)) as tags from transactions t
       where provider_transaction_id = ?`,
      [posted.transaction_id],
    );
    // needs_review from the built-in rule when the pending row arrived, reimbursable from the person.
    expect(tagged.tags.sort()).toEqual(["needs_review", "reimbursable"]);

    // And a third run, from the cursor the second one stored, has nothing to do.
    await second.core.connections.syncConnection({ id }, auth());
    await waitFor(async () => (await logs(id)).length === 3 && (await logs(id))[2].status !== "running", "sync 3");
    expect((await logs(id))[2]).toMatchObject({ status: "success", pages: 1, added: 0 });
    expectExactly(await stored(id), item);
  }, 120_000);
});

/** The live rows are exactly the fake's live transactions (ids, amounts, pending), each once. */
function expectExactly(rows: { p: string; amount: string; live: boolean; pending: boolean }[], item: FakeItem) {
  expect(new Set(rows.map((r) => r.p)).size).toBe(rows.length);
  const live = rows.filter((r) => r.live);
  expect(live.map((r) => r.p).sort()).toEqual([...item.live.keys()].sort());
  for (const r of live) {
    const want = item.live.get(r.p)!;
    expect({ p: r.p, amount: r.amount, pending: r.pending }).toEqual({
      p: r.p,
      amount: want.amount.toFixed(2),
      pending: want.pending,
    });
  }
}
