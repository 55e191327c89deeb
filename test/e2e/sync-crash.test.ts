import { type ChildProcess } from "node:child_process";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { coreClients, coreTransport } from "../../gateways/shared/core-client.js";
import { insertApiKey } from "../../services/auth/api-keys.js";
import { closeOrm, openOrm, type Orm } from "../../services/db/orm.js";
import { query } from "../../services/db/sql.js";
import { updateTransactionTags } from "../../services/ledger/transactions/tags.js";
import { createTestDatabase } from "../helpers/db.js";
import { newUser } from "../helpers/ledger.js";
import { cofferEnv, freePort, REPO_ROOT } from "../helpers/processes.js";
import { OPERATOR, TEST_ENCRYPTION_KEY } from "../helpers/sync.js";
import { killTree, spawnTracked } from "../helpers/tracked-processes.js";
import { waitFor } from "../helpers/wait.js";
import { PagedProvider } from "./fixtures/paged-provider.js";

// Kill the core in the middle of a sync, start it again, sync again: the data ends exactly as
// one uninterrupted sync would leave it, with nothing lost and nothing twice.

const CORE = fileURLToPath(new URL("./fixtures/core-with-paged-provider.ts", import.meta.url));
const SHAPE = { pages: 8, rows: 200, pendingAt: 2 };
const BLOCK_BEFORE = 3;

let url: string;
let orm: Orm;
let key: string;
const children: ChildProcess[] = [];

function startCore(port: number, block: boolean): { child: ChildProcess; stdout: string[] } {
  const child = spawnTracked("core with a paged provider", process.execPath, ["--import", "tsx", CORE], {
    cwd: REPO_ROOT,
    env: cofferEnv({
      DATABASE_URL: url,
      COFFER_CORE_PORT: String(port),
      COFFER_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY,
      COFFER_LOG_LEVEL: "silent",
      PAGED_PAGES: String(SHAPE.pages),
      PAGED_ROWS: String(SHAPE.rows),
      PAGED_PENDING_AT: String(SHAPE.pendingAt),
      ...(block ? { PAGED_BLOCK_BEFORE: String(BLOCK_BEFORE) } : {}),
    }),
    stdio: ["ignore", "pipe", "inherit"],
  });
  children.push(child);
  const stdout: string[] = [];
  child.stdout?.on("data", (c: Buffer) => stdout.push(...c.toString().split("\n")));
  return { child, stdout };
}

beforeAll(async () => {
  url = await createTestDatabase();
  orm = await openOrm(url, 3);
  key = (await insertApiKey(orm.em.fork(), { name: "crash test", scope: "full_access" })).plaintext;
});
afterAll(async () => {
  await Promise.all(children.map(killTree));
  if (orm) await closeOrm(orm);
});

/** What one complete, uninterrupted sync leaves: every row by provider id, with its amount and whether it is live. */
function expected(): Map<string, { amount: string; live: boolean }> {
  const p = new PagedProvider(SHAPE);
  const rows = new Map<string, { amount: string; live: boolean }>();
  for (let i = 0; i < SHAPE.pages; i++) {
    const page = p.page(i);
    for (const t of [...page.added, ...page.modified])
      rows.set(t.providerTransactionId, { amount: t.amount, live: true });
    for (const r of page.removed) rows.get(r.providerTransactionId)!.live = false;
  }
  return rows;
}

async function stored(connectionId: string) {
  const rows = await query<{ p: string; amount: string; live: boolean }>(
    orm.em.fork(),
    `select t.provider_transaction_id as p, t.amount::text as amount, t.deleted_at is null as live
     from transactions t join accounts a on a.id = t.account_id where a.connection_id = ?`,
    [connectionId],
  );
  return rows;
}

describe("a core killed in the middle of a sync", () => {
  it("loses nothing and duplicates nothing: the next sync ends with exactly the right rows", async () => {
    const user = await newUser(orm.em.fork(), "Ann");
    const port1 = await freePort();
    const first = startCore(port1, true);
    await waitFor(async () => first.stdout.includes("LISTENING"), "the first core", 30_000);
    const core1 = coreClients(coreTransport(`http://127.0.0.1:${port1}`));
    const headers = { headers: { "x-api-key": key } };
    const created = await core1.connections.createConnection(
      { provider: "plaid", userId: user.shortId, credentials: { token: "t" } },
      headers,
    );
    const id = created.connection!.id;

    // The first sync is queued with the connection; the provider stops before page 3.
    // The engine asks for a page while it commits the one before: wait for that commit too.
    await waitFor(
      async () =>
        first.stdout.includes("BLOCKED") &&
        (await query<{ pages: number }>(orm.em.fork(), `select pages from sync_logs where connection_id = ?`, [id]))[0]
          ?.pages === BLOCK_BEFORE,
      "the sync to commit 3 pages and wait for the 4th",
      30_000,
    );
    first.child.kill("SIGKILL");
    await new Promise((r) => first.child.once("exit", r));

    const [mid] = await query<{ cursor: string }>(orm.em.fork(), `select cursor from connections where id = ?`, [id]);
    expect(mid.cursor).toBe(String(BLOCK_BEFORE));
    const half = await stored(id);
    expect(half.length).toBe(BLOCK_BEFORE * SHAPE.rows + 1);
    expect(await query(orm.em.fork(), `select status from sync_logs where connection_id = ?`, [id])).toEqual([
      { status: "running" },
    ]);

    // A person tags the pending row while the core is down; its posted row comes in the next page.
    const [pending] = await query<{ id: string }>(
      orm.em.fork(),
      `select id from transactions where provider_transaction_id = 'pend-x'`,
    );
    await updateTransactionTags(orm.em.fork(), OPERATOR, pending.id, { add: ["reimbursable"] });

    const port2 = await freePort();
    const second = startCore(port2, false);
    await waitFor(async () => second.stdout.includes("LISTENING"), "the second core", 30_000);
    const core2 = coreClients(coreTransport(`http://127.0.0.1:${port2}`));
    await core2.connections.syncConnection({ id }, headers);
    const done = await waitFor(
      async () => {
        const logs = await query<{ status: string; added: number; pages: number; error_code: string | null }>(
          orm.em.fork(),
          `select status, added, pages, error_code from sync_logs where connection_id = ? order by started_at`,
          [id],
        );
        return logs.some((l) => l.status === "success") ? logs : null;
      },
      "the second sync",
      30_000,
    );
    second.child.kill("SIGTERM");

    expect(done).toEqual([
      { status: "interrupted", added: BLOCK_BEFORE * SHAPE.rows + 1, pages: BLOCK_BEFORE, error_code: "INTERRUPTED" },
      {
        status: "success",
        added: (SHAPE.pages - BLOCK_BEFORE) * SHAPE.rows + 1,
        pages: SHAPE.pages - BLOCK_BEFORE,
        error_code: null,
      },
    ]);
    const want = expected();
    const rows = await stored(id);
    expect(rows.length).toBe(want.size);
    expect(new Set(rows.map((r) => r.p)).size).toBe(rows.length);
    for (const r of rows) expect({ p: r.p, amount: r.amount, live: r.live }).toEqual({ p: r.p, ...want.get(r.p) });
    const [posted] = await query<{ tags: string[] }>(
      orm.em.fork(),
      `select array(select slug from tags where id = any(t.tag_ids)) as tags from transactions t
       where provider_transaction_id = 'post-x'`,
    );
    // The built-in rule marked the pending row for review when it arrived; the posted row carries that over.
    expect(posted.tags.sort()).toEqual(["needs_review", "reimbursable"]);

    // Rules ran exactly once per new row across the crash: each page committed with its rules or not at all.
    const [review] = await query<{ hits: number; notes: number; marked: number }>(
      orm.em.fork(),
      `select (select hit_count from rules where created_by_type = 'system')::int as hits,
         (select count(*) from annotations where action = 'tag_added' and details->>'tag' = 'needs_review')::int
           as notes,
         (select count(*) from transactions t join tags g on g.id = any(t.tag_ids) where g.slug = 'needs_review')::int
           as marked`,
    );
    // Every row added is new but post-x, which continues pend-x (it runs as changed).
    const added = done.reduce((n, l) => n + l.added, 0) - 1;
    expect(review).toEqual({ hits: added, notes: added, marked: added + 1 });
  }, 90_000);
});
