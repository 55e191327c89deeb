import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { query } from "../../../services/db/sql.js";
import { ProviderError } from "../../../services/sync/providers/provider.js";
import { purgeWebhookEvents } from "../../../services/sync/retention.js";
import type { PageCommitted, SyncFinished } from "../../../services/sync/hooks.js";
import { deleteTransaction } from "../../../services/ledger/transactions/lifecycle.js";
import { updateTransactionTags } from "../../../services/ledger/transactions/tags.js";
import { setTransactionCategory } from "../../../services/ledger/transactions/categorize.js";
import { addComment } from "../../../services/ledger/transactions/comments.js";
import { setTransactionMetadata } from "../../../services/ledger/transactions/metadata.js";
import { account, ScriptedProvider, tx } from "../../helpers/scripted-provider.js";
import { OPERATOR, storedTransactions, syncWorld, type SyncWorld } from "../../helpers/sync.js";

let w: SyncWorld;
const pages: PageCommitted[] = [];
const finished: SyncFinished[] = [];

beforeAll(async () => {
  w = await syncWorld({
    hooks: [
      {
        name: "recorder",
        afterPage: async (e) => void pages.push(e),
        afterSync: async (e) => void finished.push(e),
      },
    ],
  });
});
afterAll(async () => {
  await w?.close();
});

const em = () => w.orm.em.fork();

async function fresh(): Promise<{ id: string; provider: ScriptedProvider }> {
  // Each test gets a login of its own at the same scripted provider: its own log, cursor and account ids.
  const provider = new ScriptedProvider("plaid");
  (w.registry as unknown as { byName: Map<string, unknown> }).byName.set("plaid", provider);
  const item = `item-${crypto.randomUUID()}`;
  const c = await w.connect({ token: "t", item });
  return { id: c.id, provider };
}

async function connectionRow(id: string) {
  const [row] = await query<{
    status: string;
    error_code: string | null;
    error_message: string | null;
    cursor: string | null;
    last_synced_at: string | null;
  }>(em(), `select status, error_code, error_message, cursor, last_synced_at::text from connections where id = ?`, [
    id,
  ]);
  return row;
}

async function lastLog(connectionId: string) {
  const [row] = await query<Record<string, unknown>>(
    em(),
    `select status, trigger, pages, added, modified, removed, unchanged, skipped_count, skipped, error_code
     from sync_logs where connection_id = ? order by started_at desc limit 1`,
    [connectionId],
  );
  return row;
}

beforeEach(() => {
  pages.length = 0;
  finished.length = 0;
});

describe("a first sync", () => {
  it("creates the accounts with balances, stores every row once, maps categories, and logs the counts", async () => {
    const { id, provider } = await fresh();
    provider.accountList = [
      account("acc-1", { balanceCurrent: "1200.50", balanceAvailable: "1100.00" }),
      account("card", { type: "credit", balanceCurrent: "310.20", balanceLimit: "5000.00", subtype: "credit card" }),
    ];
    provider.push(
      {
        added: [
          tx("a", {
            amount: "4.50",
            categoryPrimary: "FOOD_AND_DRINK",
            categoryDetailed: "FOOD_AND_DRINK_COFFEE",
            merchantName: "Blue Bottle",
          }),
          tx("b", { amount: "-2500", categoryPrimary: "INCOME", categoryDetailed: "INCOME_WAGES" }),
        ],
      },
      {
        added: [
          tx("c", { providerAccountId: "card", categoryPrimary: "SOMETHING_NEW", categoryDetailed: "SOMETHING_NEW_X" }),
        ],
      },
    );
    const outcome = await w.engine.run(id, { trigger: "initial" });
    expect(outcome).toMatchObject({ status: "success", pages: 2, added: 3, modified: 0, removed: 0 });

    const accounts = await query<Record<string, unknown>>(
      em(),
      `select provider_account_id, type, subtype, balance_current::text as cur, balance_available::text as avail,
         balance_limit::text as lim, provider, user_id = ? as owned
       from accounts where connection_id = ? order by provider_account_id`,
      [w.userId, id],
    );
    expect(accounts).toEqual([
      {
        provider_account_id: "acc-1",
        type: "depository",
        subtype: "checking",
        cur: "1200.50",
        avail: "1100.00",
        lim: null,
        provider: "plaid",
        owned: true,
      },
      {
        provider_account_id: "card",
        type: "credit",
        subtype: "credit card",
        cur: "310.20",
        avail: "90.00",
        lim: "5000.00",
        provider: "plaid",
        owned: true,
      },
    ]);

    const rows = await storedTransactions(w.orm);
    expect(rows.get("a")).toMatchObject({
      amount: "4.50",
      category: "food_and_drink_coffee",
      category_source: "system",
    });
    expect(rows.get("b")).toMatchObject({ amount: "-2500.00", category: "income_salary", category_source: "system" });
    // An unknown code is kept raw and leaves the row uncategorized.
    expect(rows.get("c")).toMatchObject({
      provider_category_primary: "SOMETHING_NEW",
      category: null,
      category_source: null,
    });

    expect(await connectionRow(id)).toMatchObject({ status: "active", error_code: null, cursor: "2" });
    expect((await connectionRow(id)).last_synced_at).not.toBeNull();
    expect(await lastLog(id)).toMatchObject({
      status: "success",
      trigger: "initial",
      pages: 2,
      added: 3,
      unchanged: 0,
    });
    expect(pages).toHaveLength(2);
    expect(pages[0].insertedIds).toHaveLength(2);
    expect(finished).toEqual([expect.objectContaining({ connectionId: id, added: 3, trigger: "initial" })]);
  });

  it("continues from the stored cursor: a second sync with nothing new changes nothing", async () => {
    const { id, provider } = await fresh();
    provider.push({ added: [tx("d1"), tx("d2")] });
    await w.engine.run(id, { trigger: "initial" });
    const before = await storedTransactions(w.orm);
    expect(await w.engine.run(id, { trigger: "manual" })).toMatchObject({ status: "success", pages: 0, added: 0 });
    expect(await storedTransactions(w.orm)).toEqual(before);
  });

  it("reports rows it cannot take in the sync log and stores the others", async () => {
    const { id, provider } = await fresh();
    provider.push({
      added: [
        tx("ok"),
        tx("bad-amount", { amount: "1.234" }),
        tx("ghost", { providerAccountId: "nope" }),
        // A row the person can find in what they gave (a CSV line) is reported by that, not by its id.
        tx("fp:x9", { amount: "x", sourceRef: "line 12" }),
      ],
      skipped: [{ row: "item 7", reason: "the provider could not read it" }],
    });
    expect(await w.engine.run(id, { trigger: "manual" })).toMatchObject({ status: "success", added: 1, skipped: 4 });
    const log = await lastLog(id);
    expect(log.skipped_count).toBe(4);
    expect(log.skipped).toEqual([
      { row: "item 7", reason: "the provider could not read it" },
      { row: "acc-1/bad-amount", reason: expect.stringMatching(/amount/) },
      { row: "nope/ghost", reason: expect.stringMatching(/account/) },
      { row: "line 12", reason: expect.stringMatching(/amount/) },
    ]);
  });
});

describe("changes and removals", () => {
  it("updates modified rows, counts unchanged ones, and soft-removes removed ones", async () => {
    const { id, provider } = await fresh();
    provider.push({ added: [tx("m1", { amount: "5.00" }), tx("m2", { amount: "6.00" }), tx("m3")] });
    await w.engine.run(id, { trigger: "initial" });
    provider.push({
      modified: [tx("m1", { amount: "5.50" }), { ...(await asSent("m2")) }],
      removed: [{ providerAccountId: "acc-1", providerTransactionId: "m3" }],
    });
    expect(await w.engine.run(id, { trigger: "manual" })).toMatchObject({
      status: "success",
      added: 0,
      modified: 1,
      unchanged: 1,
      removed: 1,
    });
    const rows = await storedTransactions(w.orm);
    expect(rows.get("m1")).toMatchObject({ amount: "5.50", deleted: false });
    expect(rows.get("m3")).toMatchObject({ deleted: true, removed_by_provider: true });

    async function asSent(ptid: string) {
      const r = (await storedTransactions(w.orm)).get(ptid)!;
      return tx(ptid, { amount: r.amount, name: r.provider_name, date: r.date });
    }
  });

  it("never brings back a row a person deleted, whatever the provider sends", async () => {
    const { id, provider } = await fresh();
    provider.push({ added: [tx("gone", { amount: "9.00" })] });
    await w.engine.run(id, { trigger: "initial" });
    await deleteTransaction(em(), OPERATOR, (await storedTransactions(w.orm)).get("gone")!.id);
    provider.push(
      { modified: [tx("gone", { amount: "9.99" })] },
      { removed: [{ providerAccountId: "acc-1", providerTransactionId: "gone" }] },
      { added: [tx("gone", { amount: "9.99" })] },
    );
    expect(await w.engine.run(id, { trigger: "manual" })).toMatchObject({
      added: 0,
      modified: 0,
      removed: 0,
      unchanged: 2,
    });
    expect((await storedTransactions(w.orm)).get("gone")).toMatchObject({
      amount: "9.00",
      deleted: true,
      removed_by_provider: false,
    });
  });

  it("brings back a row the provider removed when the provider sends it again", async () => {
    const { id, provider } = await fresh();
    provider.push(
      { added: [tx("flaky")] },
      { removed: [{ providerAccountId: "acc-1", providerTransactionId: "flaky" }] },
    );
    await w.engine.run(id, { trigger: "initial" });
    expect((await storedTransactions(w.orm)).get("flaky")).toMatchObject({ deleted: true });
    provider.push({ added: [tx("flaky", { amount: "1.00" })] });
    expect(await w.engine.run(id, { trigger: "manual" })).toMatchObject({ modified: 1 });
    expect((await storedTransactions(w.orm)).get("flaky")).toMatchObject({
      deleted: false,
      removed_by_provider: false,
    });
  });

  it("keeps a category a person chose when the provider changes its own", async () => {
    const { id, provider } = await fresh();
    provider.push({ added: [tx("cat", { categoryPrimary: "TRAVEL", categoryDetailed: "TRAVEL_FLIGHTS" })] });
    await w.engine.run(id, { trigger: "initial" });
    const row = (await storedTransactions(w.orm)).get("cat")!;
    await setTransactionCategory(em(), OPERATOR, row.id, "food_and_drink_groceries");
    provider.push({ modified: [tx("cat", { categoryPrimary: "TRAVEL", categoryDetailed: "TRAVEL_LODGING" })] });
    await w.engine.run(id, { trigger: "manual" });
    expect((await storedTransactions(w.orm)).get("cat")).toMatchObject({
      category: "food_and_drink_groceries",
      category_source: "user",
      provider_category_primary: "TRAVEL",
    });
  });

  it("follows the provider's new category while the category is still the provider's", async () => {
    const { id, provider } = await fresh();
    provider.push({ added: [tx("sys", { categoryPrimary: "TRAVEL", categoryDetailed: "TRAVEL_FLIGHTS" })] });
    await w.engine.run(id, { trigger: "initial" });
    provider.push({ modified: [tx("sys", { categoryPrimary: "TRAVEL", categoryDetailed: "TRAVEL_LODGING" })] });
    await w.engine.run(id, { trigger: "manual" });
    expect((await storedTransactions(w.orm)).get("sys")).toMatchObject({
      category: "travel_lodging",
      category_source: "system",
    });
  });
});

describe("pending → posted", () => {
  async function pendingWithEdits(provider: ScriptedProvider, id: string, ptid: string) {
    provider.push({ added: [tx(ptid, { pending: true, amount: "20.00", categoryPrimary: "GENERAL_MERCHANDISE" })] });
    await w.engine.run(id, { trigger: "initial" });
    const pending = (await storedTransactions(w.orm)).get(ptid)!;
    await setTransactionCategory(em(), OPERATOR, pending.id, "home_furniture");
    // The person reviewed it: the posted row that replaces it is not marked for review again.
    await updateTransactionTags(em(), OPERATOR, pending.id, { add: ["tax_deductible"], remove: ["needs_review"] });
    await addComment(em(), OPERATOR, pending.id, "the new sofa");
    await setTransactionMetadata(em(), OPERATOR, pending.id, { receipt: "R-1" }, false);
    return pending;
  }

  async function commentsOf(transactionId: string) {
    return query<{ body: string }>(em(), `select body from comments where transaction_id = ?`, [transactionId]);
  }

  it("carries a person's category, tags, comments and metadata when removal and posting share a page", async () => {
    const { id, provider } = await fresh();
    const pending = await pendingWithEdits(provider, id, "p1");
    provider.push({
      added: [tx("posted1", { amount: "21.00", pendingTransactionId: "p1", categoryPrimary: "GENERAL_MERCHANDISE" })],
      removed: [{ providerAccountId: "acc-1", providerTransactionId: "p1" }],
    });
    expect(await w.engine.run(id, { trigger: "manual" })).toMatchObject({ added: 1, removed: 1 });
    const rows = await storedTransactions(w.orm);
    expect(rows.get("posted1")).toMatchObject({
      amount: "21.00",
      pending: false,
      deleted: false,
      category: "home_furniture",
      category_source: "user",
      tags: ["tax_deductible"],
      metadata: { receipt: "R-1" },
    });
    expect(rows.get("p1")).toMatchObject({ deleted: true, removed_by_provider: true });
    expect(await commentsOf(rows.get("posted1")!.id)).toEqual([{ body: "the new sofa" }]);
    expect(await commentsOf(pending.id)).toEqual([]);
    const [note] = await query<{ details: Record<string, unknown> }>(
      em(),
      `select details from annotations where transaction_id = ? and action = 'carried_over'`,
      [rows.get("posted1")!.id],
    );
    expect(note.details).toEqual({ from_transaction_id: pending.short_id, comments: 1 });
  });

  it("finds the pending row when its removal came in an earlier page than the posted row", async () => {
    const { id, provider } = await fresh();
    await pendingWithEdits(provider, id, "p2");
    provider.push(
      { removed: [{ providerAccountId: "acc-1", providerTransactionId: "p2" }] },
      { added: [tx("posted2", { pendingTransactionId: "p2" })] },
    );
    expect(await w.engine.run(id, { trigger: "manual" })).toMatchObject({ pages: 2, added: 1, removed: 1 });
    expect((await storedTransactions(w.orm)).get("posted2")).toMatchObject({
      category: "home_furniture",
      tags: ["tax_deductible"],
      metadata: { receipt: "R-1" },
      deleted: false,
    });
  });

  it("removes the pending row at once when the posted row comes before its removal", async () => {
    const { id, provider } = await fresh();
    await pendingWithEdits(provider, id, "p3");
    provider.push(
      { added: [tx("posted3", { pendingTransactionId: "p3" })] },
      { removed: [{ providerAccountId: "acc-1", providerTransactionId: "p3" }] },
    );
    expect(await w.engine.run(id, { trigger: "manual" })).toMatchObject({ added: 1, removed: 1 });
    const rows = await storedTransactions(w.orm);
    expect(rows.get("p3")).toMatchObject({ deleted: true, removed_by_provider: true });
    expect(rows.get("posted3")).toMatchObject({ tags: ["tax_deductible"], deleted: false });
  });

  it("keeps a transaction a person deleted while pending deleted once it posts", async () => {
    const { id, provider } = await fresh();
    provider.push({ added: [tx("p4", { pending: true })] });
    await w.engine.run(id, { trigger: "initial" });
    await deleteTransaction(em(), OPERATOR, (await storedTransactions(w.orm)).get("p4")!.id);
    provider.push({
      added: [tx("posted4", { pendingTransactionId: "p4" })],
      removed: [{ providerAccountId: "acc-1", providerTransactionId: "p4" }],
    });
    await w.engine.run(id, { trigger: "manual" });
    const rows = await storedTransactions(w.orm);
    expect(rows.get("posted4")).toMatchObject({ deleted: true, removed_by_provider: false });
    expect(rows.get("p4")).toMatchObject({ deleted: true, removed_by_provider: false });
  });
});

describe("complete windows (providers without a removal feed)", () => {
  it("removes stored pending rows of the window the page no longer holds, and nothing else", async () => {
    const { id, provider } = await fresh();
    provider.accountList = [account("acc-1"), account("acc-2")];
    provider.push({
      added: [
        tx("w-pend-gone", { pending: true, date: "2026-03-05" }),
        tx("w-pend-kept", { pending: true, date: "2026-03-06" }),
        tx("w-posted-absent", { date: "2026-03-06" }),
        tx("w-pend-before", { pending: true, date: "2026-02-20" }),
        tx("w-pend-other-account", { pending: true, date: "2026-03-05", providerAccountId: "acc-2" }),
      ],
    });
    await w.engine.run(id, { trigger: "initial" });
    provider.push({
      added: [tx("w-pend-kept", { pending: false, date: "2026-03-07" }), tx("w-new", { date: "2026-03-08" })],
      windows: [{ providerAccountId: "acc-1", from: "2026-03-01", to: "2026-03-10" }],
    });
    expect(await w.engine.run(id, { trigger: "manual" })).toMatchObject({ added: 1, modified: 1, removed: 1 });
    const rows = await storedTransactions(w.orm);
    expect(rows.get("w-pend-gone")).toMatchObject({ deleted: true, removed_by_provider: true });
    for (const kept of ["w-pend-kept", "w-posted-absent", "w-pend-before", "w-pend-other-account", "w-new"]) {
      expect(rows.get(kept)?.deleted).toBe(false);
    }
  });
});

describe("the status machine", () => {
  it("goes to pending_reauth when the provider asks for a login, and back to active after a good sync", async () => {
    const { id, provider } = await fresh();
    provider.push({ added: [tx("s1")] });
    provider.failNext = {
      method: "sync",
      error: new ProviderError("reauth_required", "ITEM_LOGIN_REQUIRED", "The bank needs the person to log in again"),
    };
    expect(await w.engine.run(id, { trigger: "initial" })).toMatchObject({
      status: "error",
      retry: false,
      failure: { failure: "reauth_required", code: "ITEM_LOGIN_REQUIRED" },
    });
    expect(await connectionRow(id)).toMatchObject({
      status: "pending_reauth",
      error_code: "ITEM_LOGIN_REQUIRED",
      error_message: "The bank needs the person to log in again",
    });
    expect(await lastLog(id)).toMatchObject({ status: "error", error_code: "ITEM_LOGIN_REQUIRED" });
    // The schedule leaves a connection waiting for a login alone; a person's sync runs.
    expect(await w.engine.run(id, { trigger: "schedule" })).toEqual({ status: "skipped", reason: "pending_reauth" });
    expect(await w.engine.run(id, { trigger: "manual" })).toMatchObject({ status: "success", added: 1 });
    expect(await connectionRow(id)).toMatchObject({ status: "active", error_code: null, error_message: null });
  });

  it("goes to error on an outage mid-sync, keeps the pages committed before it, and retries it", async () => {
    const { id, provider } = await fresh();
    provider.push({ added: [tx("o1")] }, { added: [tx("o2")] }, { added: [tx("o3")] });
    provider.failNext = {
      method: "sync",
      afterPages: 2,
      error: new ProviderError("unavailable", "PROVIDER_UNAVAILABLE", "The provider answered 503"),
    };
    expect(await w.engine.run(id, { trigger: "initial" })).toMatchObject({ status: "error", retry: true });
    expect(await connectionRow(id)).toMatchObject({ status: "error", error_code: "PROVIDER_UNAVAILABLE", cursor: "2" });
    expect(await lastLog(id)).toMatchObject({ status: "error", pages: 2, added: 2 });
    const rows = await storedTransactions(w.orm);
    expect([rows.has("o1"), rows.has("o2"), rows.has("o3")]).toEqual([true, true, false]);
    expect(await w.engine.run(id, { trigger: "manual" })).toMatchObject({ status: "success", pages: 1, added: 1 });
    expect(await connectionRow(id)).toMatchObject({ status: "active", error_code: null });
  });

  it("turns an unexpected failure into an error status without retrying, and logs it without secrets", async () => {
    const { id, provider } = await fresh();
    const boom = Object.assign(new TypeError("Cannot read properties of undefined"), {
      config: { headers: { "PLAID-SECRET": "shh-secret" } },
    });
    provider.failNext = { method: "accounts", error: boom };
    expect(await w.engine.run(id, { trigger: "initial" })).toMatchObject({
      status: "error",
      retry: false,
      failure: { code: "SYNC_FAILED" },
    });
    expect(await connectionRow(id)).toMatchObject({ status: "error", error_code: "SYNC_FAILED" });
    expect(w.log.lines.join("\n")).not.toMatch(/shh-secret|access-t/);
  });

  it("leaves a login reported broken during a sync waiting for repair, even when that sync succeeds", async () => {
    const { id, provider } = await fresh();
    provider.push({ added: [tx("race-a")] }, { added: [tx("race-b")] });
    const reached = provider.blockAfter(1);
    const running = w.engine.run(id, { trigger: "manual" });
    await reached;
    // What the webhook handler does when the provider says the login broke.
    await query(
      em(),
      `update connections set status = 'pending_reauth', error_code = 'REAUTH_REQUIRED', error_message = 'log in',
         updated_at = now() where id = ?`,
      [id],
    );
    provider.release();
    expect(await running).toMatchObject({ status: "success", added: 2 });
    expect(await connectionRow(id)).toMatchObject({ status: "pending_reauth", error_code: "REAUTH_REQUIRED" });
    expect((await connectionRow(id)).last_synced_at).not.toBeNull();
  });

  it("skips a scheduled sync of a paused connection but runs a manual one", async () => {
    const { id, provider } = await fresh();
    provider.push({ added: [tx("paused")] });
    await query(em(), `update connections set paused = true where id = ?`, [id]);
    expect(await w.engine.run(id, { trigger: "schedule" })).toEqual({ status: "skipped", reason: "paused" });
    expect(await w.engine.run(id, { trigger: "manual" })).toMatchObject({ status: "success", added: 1 });
  });

  it("skips a request that a sync started after it has already answered", async () => {
    const { id, provider } = await fresh();
    provider.push({ added: [tx("r1")] });
    const [{ ms }] = await query<{ ms: string }>(em(), `select (extract(epoch from now()) * 1000)::bigint as ms`);
    await w.engine.run(id, { trigger: "manual" });
    expect(await w.engine.run(id, { trigger: "webhook", requestedAt: new Date(Number(ms)) })).toEqual({
      status: "skipped",
      reason: "satisfied",
    });
    expect(provider.syncCalls).toBe(1);
  });
});

describe("one sync per connection at a time", () => {
  it("answers busy to a second sync while the first holds the connection", async () => {
    const { id, provider } = await fresh();
    provider.push({ added: [tx("l1")] }, { added: [tx("l2")] });
    const reached = provider.blockAfter(1);
    const first = w.engine.run(id, { trigger: "manual" });
    await reached;
    expect(await w.engine.run(id, { trigger: "manual" })).toEqual({ status: "busy" });
    provider.release();
    expect(await first).toMatchObject({ status: "success", added: 2 });
    expect(provider.maxRunning).toBe(1);
  });
});

describe("webhook event retention", () => {
  it("drops rejected and duplicate deliveries after a week and every event after three months", async () => {
    const ins = (status: string, days: number) =>
      query(
        em(),
        `insert into webhook_events (id, short_id, provider, status, body, received_at)
         values (gen_random_uuid(), substr(md5(random()::text), 1, 8), 'plaid', ?, '\\x7b7d',
           now() - make_interval(days => ?))`,
        [status, days],
      );
    await query(em(), `delete from webhook_events`);
    await ins("rejected", 8);
    await ins("duplicate", 8);
    await ins("rejected", 2);
    await ins("accepted", 30);
    await ins("accepted", 91);
    await ins("ignored", 95);
    expect(await purgeWebhookEvents(em())).toBe(4);
    const left = await query<{ status: string }>(em(), `select status from webhook_events order by status`);
    expect(left.map((r) => r.status)).toEqual(["accepted", "rejected"]);
  });
});
