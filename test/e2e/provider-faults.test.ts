import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import pg from "pg";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakePlaid, type FakeItem } from "../fakes/plaid/server.js";
import { createTestDatabase } from "../helpers/db.js";
import { syncJobsOf } from "../helpers/job-queue.js";
import {
  cofferEnv,
  freePort,
  killAll,
  runCoffer,
  spawnCoffer,
  waitForOk,
  type CofferProcess,
} from "../helpers/processes.js";
import { restSyncs } from "../helpers/rest-syncs.js";
import { waitFor } from "../helpers/wait.js";

// Issue 21, items 3–5, against `coffer core`, `coffer rest` and `coffer mcp` as real processes and the
// Plaid fake (served from this process, so it can inject faults): transient provider errors retried
// inside the sync, float-noise amounts stored as their cents and a real third decimal shown as a
// warning, a replayed webhook answered `duplicate`, a stale ITEM/ERROR ignored, and "Sync now" pressed
// again while a sync is pending answered with that sync.

type Json = Record<string, any>;

let plaid: FakePlaid;
let rest: string;
let mcpUrl: string;
let adminKey: string;
let userId: string;
let databaseUrl: string;
const procs: CofferProcess[] = [];

beforeAll(async () => {
  plaid = await new FakePlaid().start();
  plaid.maxPageSize = 10; // 25 rows are 3 /transactions/sync pages
  let corePort: number, restPort: number, mcpPort: number;
  [databaseUrl, corePort, restPort, mcpPort] = await Promise.all([
    createTestDatabase(),
    freePort(),
    freePort(),
    freePort(),
  ]);
  rest = `http://127.0.0.1:${restPort}`;
  mcpUrl = `http://127.0.0.1:${mcpPort}/mcp`;
  const env = cofferEnv({
    DATABASE_URL: databaseUrl,
    COFFER_CORE_PORT: String(corePort),
    COFFER_REST_PORT: String(restPort),
    COFFER_MCP_PORT: String(mcpPort),
    COFFER_CORE_URL: `http://127.0.0.1:${corePort}`,
    COFFER_PUBLIC_URL: rest,
    COFFER_LOG_LEVEL: "warn",
    COFFER_ENCRYPTION_KEY: "0123456789abcdef".repeat(4),
    // 3 tries, as by default, with short waits (the default first wait is 10 s).
    COFFER_PROVIDER_RETRIES: "3",
    COFFER_PROVIDER_RETRY_DELAY_MS: "50",
    COFFER_PROVIDER_RETRY_MAX_WAIT_SECONDS: "5",
    PLAID_CLIENT_ID: plaid.clientId,
    PLAID_SECRET: plaid.secret,
    PLAID_BASE_URL: plaid.url,
  });
  for (const name of ["core", "rest", "mcp"]) procs.push(spawnCoffer(name, [name], env));
  const [created] = await Promise.all([
    runCoffer(["keys", "create", "--name", "e2e provider faults", "--scope", "full_access"], env),
    waitForOk(`${rest}/health/ready`, 120_000, procs),
    waitForOk(`http://127.0.0.1:${mcpPort}/health/ready`, 120_000, procs),
  ]);
  expect(created.code, created.stderr).toBe(0);
  adminKey = created.stdout.trim();
  userId = (await call("POST", "/api/v1/users", { name: "Ann" })).body.short_id;
}, 180_000);

afterAll(async () => {
  await killAll(procs);
  await plaid?.stop();
});

const { call, nthSync, syncNow, connection } = restSyncs(
  () => rest,
  () => adminKey,
);

/** A Plaid connection of a new Item with `transactions` rows; its first sync has not necessarily ended. */
async function connect(transactions: number): Promise<{ item: FakeItem; id: string }> {
  const made = plaid.createPublicToken({ webhook: `${rest}/webhooks/plaid`, transactions });
  const created = await call("POST", "/api/v1/connections", {
    provider: "plaid",
    user_id: userId,
    credentials: { public_token: made.publicToken },
  });
  expect(created.status).toBe(201);
  return { item: made.item, id: created.body.short_id };
}

/** Stored amounts (as PostgreSQL writes the NUMERIC) by provider transaction id. */
async function storedAmounts(ids: string[]): Promise<Record<string, string>> {
  const client = new pg.Client({ connectionString: databaseUrl });
  await client.connect();
  try {
    const { rows } = await client.query<{ ptid: string; amount: string }>(
      `select provider_transaction_id as ptid, amount::text as amount from transactions
       where provider_transaction_id = any($1::text[]) and deleted_at is null`,
      [ids],
    );
    return Object.fromEntries(rows.map((r) => [r.ptid, r.amount]));
  } finally {
    await client.end();
  }
}

const syncCalls = (from: number) => plaid.requests.slice(from).filter((r) => r.path === "/transactions/sync");

/** POSTs a Plaid webhook body with a Plaid-Verification header, as Plaid (or someone replaying it) does. */
const postPlaidWebhook = (body: string, verification: string) =>
  call("POST", "/webhooks/plaid", body, {
    "content-type": "application/json",
    "plaid-verification": verification,
    "x-api-key": "",
  });

describe("transient provider errors are retried inside the sync", () => {
  let item: FakeItem;
  let id: string;

  it("every other /transactions/sync call answering 500: the 3-page sync completes, no row missing", async () => {
    plaid.faults.alternate("/transactions/sync", { kind: "status", status: 500 }, 3);
    const from = plaid.requests.length;
    ({ item, id } = await connect(25));
    const first = await nthSync(id, 1);
    expect(first).toMatchObject({ trigger: "initial", status: "success", pages: 3, added: 25, error_code: null });
    // 3 pages, each asked for twice: the 500, then the answer.
    expect(syncCalls(from)).toHaveLength(6);
    expect(await connection(id)).toMatchObject({ status: "active", error_code: null, warnings: 0 });
  });

  it("a 429 with Retry-After: 2 is waited out, then the sync goes on", async () => {
    plaid.add(item, { name: "AFTER THE RATE LIMIT", amount: 7.25 });
    plaid.faults.add("/transactions/sync", { kind: "status", status: 429, retryAfterSeconds: 2 });
    const from = plaid.requests.length;
    expect(await syncNow(id)).toMatchObject({ status: "success", added: 1, error_code: null });
    const [limited, next] = syncCalls(from);
    // The backoff alone waits 50–100 ms here: the 2 s are the provider's.
    expect(next.at - limited.at).toBeGreaterThanOrEqual(2000);
  });

  it("a connection reset on a page request is retried", async () => {
    plaid.add(item, { name: "AFTER THE RESET", amount: 3.1 });
    plaid.faults.add("/transactions/sync", { kind: "reset" });
    const from = plaid.requests.length;
    expect(await syncNow(id)).toMatchObject({ status: "success", added: 1, error_code: null });
    expect(syncCalls(from)).toHaveLength(2);
  });

  it("a fault that outlasts the tries still fails the sync, with the provider's code", async () => {
    plaid.faults.add("/transactions/sync", { kind: "status", status: 503 }, 3);
    expect(await syncNow(id)).toMatchObject({ status: "error", error_code: "PROVIDER_UNAVAILABLE" });
    expect(await connection(id)).toMatchObject({ status: "error", error_code: "PROVIDER_UNAVAILABLE" });
  });
});

describe("never drop a cent", () => {
  it("Plaid amounts one ulp off a cent are that cent; 1.005 is refused but shown on the connection", async () => {
    const { item, id } = await connect(2);
    await nthSync(id, 1);
    const noisy = [
      plaid.add(item, { name: "NOISE A", amount: JSON.parse("19.509999999999998") as number }),
      plaid.add(item, { name: "NOISE B", amount: 0.1 + 0.2 }),
      plaid.add(item, { name: "NOISE C", amount: JSON.parse("1234.5600000000002") as number }),
    ];
    const third = plaid.add(item, { name: "A THIRD DECIMAL", amount: 1.005 });
    const sync = await syncNow(id);
    expect(sync).toMatchObject({ status: "success", added: 3, skipped_count: 1 });
    expect(sync.skipped).toEqual([
      { row: expect.stringContaining(third.transaction_id), reason: expect.any(String), amount: "1.005" },
    ]);
    expect(await storedAmounts(noisy.map((t) => t.transaction_id))).toEqual({
      [noisy[0].transaction_id]: "19.51",
      [noisy[1].transaction_id]: "0.30",
      [noisy[2].transaction_id]: "1234.56",
    });

    const conn = await connection(id);
    expect(conn).toMatchObject({
      status: "active",
      error_code: null,
      warnings: 1,
      warnings_sync_log_id: sync.short_id,
    });
    expect(conn.warning_rows).toEqual(sync.skipped);
    // The next sync skips nothing, and the warning stays: the row is still not in the ledger.
    expect(await syncNow(id)).toMatchObject({ status: "success", skipped_count: 0 });
    expect(await connection(id)).toMatchObject({ status: "active", warnings: 1, warnings_sync_log_id: sync.short_id });
    const listed = (await call("GET", "/api/v1/connections")).body as Json[];
    expect(listed.find((c) => c.short_id === id)).toMatchObject({ warnings: 1, warning_rows: sync.skipped });

    const client = new Client({ name: "e2e", version: "0" });
    await client.connect(
      new StreamableHTTPClientTransport(new URL(mcpUrl), { requestInit: { headers: { "X-API-Key": adminKey } } }),
    );
    try {
      const status = await client.callTool({ name: "get_sync_status", arguments: {} });
      const listed = (status.structuredContent as { connections: Json[] }).connections;
      const mine = listed.find((c) => c.id === id || c.short_id === id);
      expect(mine).toMatchObject({
        status: "active",
        warnings: 1,
        warnings_sync_log_id: sync.short_id,
        warning_rows: [{ row: expect.stringContaining(third.transaction_id), amount: "1.005" }],
      });
    } finally {
      await client.close();
    }
  });

  it("a CSV's float-noise amounts are their cents; 1.005 is a warning on the connection", async () => {
    const csv = [
      "Date,Amount,Description",
      "2026-01-05,-19.509999999999998,FILE NOISE A",
      "2026-01-06,0.30000000000000004,FILE NOISE B",
      "2026-01-07,-1234.5600000000002,FILE NOISE C",
      "2026-01-08,-1.005,A THIRD DECIMAL",
    ].join("\n");
    const created = await call("POST", "/api/v1/connections", {
      provider: "csv",
      user_id: userId,
      credentials: { csv, account_name: "Noisy export", iso_currency_code: "USD" },
    });
    expect(created.status).toBe(201);
    const id = created.body.short_id as string;
    const sync = await nthSync(id, 1);
    expect(sync).toMatchObject({ status: "success", added: 3, skipped_count: 1 });
    expect(sync.skipped).toEqual([{ row: "line 5", reason: '"-1.005" has more than two decimals', amount: null }]);
    const txns = (await call("GET", `/api/v1/transactions?limit=500&search=${encodeURIComponent("FILE NOISE")}`)).body
      .transactions as Json[];
    const byName = Object.fromEntries(txns.map((t) => [t.name, t.amount]));
    // Money out is positive in Coffer: the file's -19.51 is 19.51.
    expect(byName).toEqual({ "FILE NOISE A": 19.51, "FILE NOISE B": -0.3, "FILE NOISE C": 1234.56 });
    expect(await connection(id)).toMatchObject({ status: "active", warnings: 1, warnings_sync_log_id: sync.short_id });
  });
});

describe("webhook replay", () => {
  let item: FakeItem;
  let id: string;

  beforeAll(async () => {
    ({ item, id } = await connect(3));
    await nthSync(id, 1);
  });

  it("the same signed SYNC_UPDATES_AVAILABLE sent again: 200 duplicate, no extra sync", async () => {
    const body = plaid.webhookBody(item, { webhook_type: "TRANSACTIONS", webhook_code: "SYNC_UPDATES_AVAILABLE" });
    const verification = plaid.signWebhook(body);
    const first = await postPlaidWebhook(body, verification);
    expect(first).toMatchObject({ status: 200, body: { status: "accepted" } });
    await nthSync(id, 2);
    const jobs = (await syncJobsOf(databaseUrl, id)).length;
    for (let i = 0; i < 4; i++) {
      expect(await postPlaidWebhook(body, verification)).toMatchObject({ status: 200, body: { status: "duplicate" } });
    }
    // A webhook queues its sync before it answers: no new job now means no sync will come.
    expect(await syncJobsOf(databaseUrl, id)).toHaveLength(jobs);
    const duplicates = await call("GET", "/api/v1/webhook-events?provider=plaid&status=duplicate");
    expect(duplicates.body.webhook_events).toHaveLength(4);
    expect(duplicates.body.webhook_events[0].reason).toMatch(/replay/);
    // The same body signed anew (a later delivery) is a new event.
    const again = await postPlaidWebhook(body, plaid.signWebhook(body, { iat: Math.floor(Date.now() / 1000) + 1 }));
    expect(again).toMatchObject({ status: 200, body: { status: "accepted" } });
  });

  it("an ITEM/ERROR signed before the last successful sync or repair does not change the status", async () => {
    const itemError = plaid.webhookBody(item, {
      webhook_type: "ITEM",
      webhook_code: "ERROR",
      error: { error_type: "ITEM_ERROR", error_code: "ITEM_LOGIN_REQUIRED", error_message: "login required" },
    });
    const now = () => Math.floor(Date.now() / 1000);
    await waitFor(async () => (await connection(id)).last_synced_at !== null, "a successful sync");
    await syncNow(id); // a successful sync that starts after the stale report below was signed
    await new Promise((r) => setTimeout(r, 1100)); // Plaid's iat counts seconds: the fresh report's is later
    const stale = await postPlaidWebhook(itemError, plaid.signWebhook(itemError, { iat: now() - 200 }));
    expect(stale).toMatchObject({ status: 200, body: { status: "accepted" } });
    expect(await connection(id)).toMatchObject({ status: "active", error_code: null });

    // A fresh one does break it (the test can fail)…
    const fresh = await postPlaidWebhook(itemError, plaid.signWebhook(itemError));
    expect(fresh).toMatchObject({ status: 200, body: { status: "accepted" } });
    expect(await connection(id)).toMatchObject({ status: "pending_reauth", error_code: "REAUTH_REQUIRED" });

    // …and after the repair, a report signed before it is stale even though it is newer than the last sync.
    const repairedBody = plaid.webhookBody(item, { webhook_type: "ITEM", webhook_code: "LOGIN_REPAIRED" });
    // Signed a second after the fresh one (not its replay) and a second before the repair.
    await new Promise((r) => setTimeout(r, 2100));
    const signedBeforeRepair = plaid.signWebhook(itemError, { iat: now() - 1 });
    expect(await postPlaidWebhook(repairedBody, plaid.signWebhook(repairedBody))).toMatchObject({ status: 200 });
    expect(await connection(id)).toMatchObject({ status: "active", error_code: null });
    expect(await postPlaidWebhook(itemError, signedBeforeRepair)).toMatchObject({
      status: 200,
      body: { status: "accepted" },
    });
    expect(await connection(id)).toMatchObject({ status: "active", error_code: null });
  });
});

describe('"Sync now" while a sync is pending', () => {
  it("answers 202 with the sync waiting for its retry, starts it now, and queues no second chain", async () => {
    const { id } = await connect(2);
    await nthSync(id, 1);

    // A sync that failed transiently waits for its retry (pg-boss's, a minute later or more).
    plaid.faults.add("/transactions/sync", { kind: "status", status: 500 }, 3);
    const first = await call("POST", `/api/v1/connections/${id}/sync`);
    expect(first).toMatchObject({ status: 202, body: { status: "queued", already_pending: false } });
    expect((await nthSync(id, 2)).error_code).toBe("PROVIDER_UNAVAILABLE");
    await waitFor(
      async () => (await syncJobsOf(databaseUrl, id)).some((j) => j.state === "retry"),
      "the job to wait for its retry",
    );
    const jobs = (await syncJobsOf(databaseUrl, id)).length;

    // "Sync now" is answered by that retry, which starts now; it fails again, and waits for its next retry.
    plaid.faults.add("/transactions/sync", { kind: "status", status: 500 }, 3);
    const asked = Date.now();
    const again = await call("POST", `/api/v1/connections/${id}/sync`);
    expect(again).toMatchObject({
      status: 202,
      body: { status: "queued", already_pending: true, sync: { state: "retrying", retries: 1 } },
    });
    expect(Date.parse(again.body.sync.next_attempt_at)).toBeLessThanOrEqual(Date.now());
    // A request queues its job before it answers: the same jobs now mean no second chain.
    expect(await syncJobsOf(databaseUrl, id)).toHaveLength(jobs);
    const retried = await nthSync(id, 3);
    expect(retried).toMatchObject({ trigger: "manual", status: "error", error_code: "PROVIDER_UNAVAILABLE" });
    expect(Date.parse(retried.started_at) - asked).toBeLessThan(30_000); // not pg-boss's minute
    await waitFor(
      async () => (await syncJobsOf(databaseUrl, id)).some((j) => j.state === "retry"),
      "the job to wait for its next retry",
    );
    const third = await call("POST", `/api/v1/connections/${id}/sync`);
    expect(third).toMatchObject({ status: 202, body: { already_pending: true, sync: { retries: 2 } } });
    expect(await syncJobsOf(databaseUrl, id)).toHaveLength(jobs);
    // With the provider back, that same job ends the chain well.
    expect(await nthSync(id, 4)).toMatchObject({ trigger: "manual", status: "success" });
    expect(await syncJobsOf(databaseUrl, id)).toHaveLength(jobs);
  });

  it("a sync that is running does not answer it: a new one is queued and runs after it", async () => {
    const { id } = await connect(2);
    await nthSync(id, 1);
    plaid.faults.add("/transactions/sync", { kind: "slow", ms: 3_000 });
    const first = await call("POST", `/api/v1/connections/${id}/sync`);
    expect(first).toMatchObject({ status: 202, body: { already_pending: false } });
    await waitFor(async () => {
      const logs = (await call("GET", `/api/v1/sync/logs?connection_id=${id}`)).body.sync_logs as Json[];
      return logs.some((l) => l.status === "running");
    }, "the sync to run");
    const second = await call("POST", `/api/v1/connections/${id}/sync`);
    expect(second).toMatchObject({ status: 202, body: { already_pending: false } });
    // Both run, one after the other.
    expect(await nthSync(id, 2)).toMatchObject({ trigger: "manual", status: "success" });
    expect(await nthSync(id, 3)).toMatchObject({ trigger: "manual", status: "success" });
  });
});
