import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { FakePlaid, type FakeItem } from "../fakes/plaid/server.js";
import { FakeSimplefin } from "../fakes/simplefin/server.js";
import { makeTestPki, type TestPki } from "../fakes/teller/pki.js";
import { FakeTeller, type FakeEnrollment } from "../fakes/teller/server.js";
import { createTestDatabase } from "../helpers/db.js";
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
import { syncJobsOf } from "../helpers/job-queue.js";

// The three provider clients as a deployment runs them: `coffer core` and `coffer rest` as real
// processes, configured only through PLAID_*, TELLER_* and SIMPLEFIN_* variables pointing at the
// local fakes (served from this test process, so it can steer them). Everything else goes through
// the REST API: providers, link sessions, connections, the queued syncs, webhooks and failures.

type Json = Record<string, any>;

let pki: TestPki;
let plaid: FakePlaid;
let teller: FakeTeller;
let simplefin: FakeSimplefin;
let rest: string;
let adminKey: string;
let userId: string;
let databaseUrl: string;
const procs: CofferProcess[] = [];
/** Values that must never appear in a log line of either process. */
const secrets: string[] = [];

beforeAll(async () => {
  pki = makeTestPki();
  [plaid, teller, simplefin] = await Promise.all([
    new FakePlaid().start(),
    new FakeTeller(pki).start(),
    new FakeSimplefin().start(),
  ]);
  plaid.maxPageSize = 10; // a little history spans several /transactions/sync pages
  let corePort: number, restPort: number;
  [databaseUrl, corePort, restPort] = await Promise.all([createTestDatabase(), freePort(), freePort()]);
  rest = `http://127.0.0.1:${restPort}`;
  const env = cofferEnv({
    DATABASE_URL: databaseUrl,
    COFFER_CORE_PORT: String(corePort),
    COFFER_REST_PORT: String(restPort),
    COFFER_CORE_URL: `http://127.0.0.1:${corePort}`,
    COFFER_PUBLIC_URL: rest,
    COFFER_LOG_LEVEL: "info",
    COFFER_ENCRYPTION_KEY: "0123456789abcdef".repeat(4),
    PLAID_CLIENT_ID: plaid.clientId,
    PLAID_SECRET: plaid.secret,
    PLAID_BASE_URL: plaid.url,
    TELLER_APPLICATION_ID: "app_test_coffer",
    TELLER_BASE_URL: teller.url,
    TELLER_CERT: pki.clientCertPath,
    TELLER_KEY: pki.clientKeyPath,
    TELLER_CA: pki.caCertPath,
    TELLER_WEBHOOK_SECRETS: teller.webhookSecrets.join(","),
    SIMPLEFIN_TIMEOUT_SECONDS: "2",
    // This file checks how each failure ends a sync: one try each (the retries are provider-faults.test.ts's).
    COFFER_PROVIDER_RETRIES: "1",
  });
  secrets.push(plaid.secret, pki.clientKey.split("\n")[1], ...teller.webhookSecrets);
  for (const name of ["core", "rest"]) procs.push(spawnCoffer(name, [name], env));
  const [created] = await Promise.all([
    runCoffer(["keys", "create", "--name", "e2e providers", "--scope", "full_access"], env),
    waitForOk(`${rest}/health/ready`, 45_000, procs),
  ]);
  expect(created.code, created.stderr).toBe(0);
  adminKey = created.stdout.trim();
  userId = (await call("POST", "/api/v1/users", { name: "Ann" })).body.short_id;
}, 90_000);

afterAll(async () => {
  await killAll(procs);
  await Promise.all([plaid?.stop(), teller?.stop(), simplefin?.stop()]);
  pki?.remove();
});

const { call, finishedSyncs, nthSync, syncNow, connection } = restSyncs(
  () => rest,
  () => adminKey,
);

/**
 * Every live transaction of the connection's accounts, by provider transaction id. Plaid's and
 * Teller's ids are unique per connection, so a repeated one is a duplicate row (SimpleFIN's are
 * unique only within an account).
 */
async function transactionsOf(connectionId: string, unique = true): Promise<Map<string, Json>> {
  const accounts = (await call("GET", "/api/v1/accounts")).body.accounts as Json[];
  const out = new Map<string, Json>();
  for (const a of accounts.filter((x) => x.connection_id === connectionId)) {
    let cursor = "";
    do {
      const page = (await call("GET", `/api/v1/transactions?account_id=${a.short_id}&limit=500&cursor=${cursor}`)).body;
      for (const t of page.transactions as Json[]) {
        if (unique) expect(out.has(t.provider_transaction_id), t.provider_transaction_id).toBe(false);
        out.set(t.provider_transaction_id, t);
      }
      cursor = page.next_cursor;
    } while (cursor);
  }
  return out;
}

/** The amount Coffer shows for a Plaid amount (same sign, 2 decimals). */
const plaidAmount = (n: number) => Number(n.toFixed(2));

function expectSameAsPlaid(stored: Map<string, Json>, item: FakeItem) {
  expect([...stored.keys()].sort()).toEqual([...item.live.keys()].sort());
  for (const [id, txn] of item.live) {
    expect({ id, amount: stored.get(id)!.amount, pending: stored.get(id)!.pending }).toEqual({
      id,
      amount: plaidAmount(txn.amount),
      pending: txn.pending,
    });
  }
}

describe("providers configured from the environment", () => {
  it("lists Plaid, Teller, SimpleFIN and CSV as configured; link sessions where the provider has them", async () => {
    const list = await call("GET", "/api/v1/providers");
    expect(list.status).toBe(200);
    const entries = (list.body.providers ?? list.body) as Json[];
    expect(entries.map((p) => [p.name, p.configured, p.needs_link_session])).toEqual([
      ["plaid", true, true],
      ["teller", true, false],
      ["simplefin", true, false],
      ["csv", true, false],
    ]);
    const link = await call("POST", "/api/v1/providers/plaid/link-session", { user_id: userId });
    expect(link.status).toBe(200);
    expect(link.body.link_token).toMatch(/^link-sandbox-/);
    expect(Date.parse(link.body.expiration)).toBeGreaterThan(Date.now());
    // Link is told where this server takes Plaid's webhooks.
    expect(plaid.requests.at(-1)).toMatchObject({
      path: "/link/token/create",
      body: { webhook: `${rest}/webhooks/plaid`, products: ["transactions"] },
    });
    for (const name of ["teller", "simplefin"]) {
      expect((await call("POST", `/api/v1/providers/${name}/link-session`, { user_id: userId })).status).toBe(204);
    }
  });
});

describe("bad input and upstream faults when connecting", () => {
  const connections = async () => ((await call("GET", "/api/v1/connections")).body as Json[]).length;

  it("names the bad field in the envelope, answers an upstream failure 502 (never 500), stores nothing", async () => {
    const before = await connections();
    const post = (provider: string, credentials: unknown) =>
      call("POST", "/api/v1/connections", { provider, user_id: userId, credentials });
    const expectError = (r: { status: number; body: Json }, status: number, code: string, message?: RegExp) => {
      expect({ status: r.status, code: r.body.error?.code }).toEqual({ status, code });
      if (message) expect(r.body.error.message).toMatch(message);
    };
    expectError(await post("mint", {}), 404, "NOT_FOUND", /mint/);
    expectError(await post("plaid", {}), 400, "VALIDATION_ERROR", /public_token/);
    expectError(await post("plaid", { public_token: 5 }), 400, "VALIDATION_ERROR", /public_token/);
    expectError(await post("plaid", { public_token: "public-sandbox-unknown" }), 400, "VALIDATION_ERROR");
    expectError(
      await post("teller", { access_token: "test_token_nobody", enrollment_id: "enr_x" }),
      400,
      "VALIDATION_ERROR",
    );
    expectError(await post("simplefin", { setup_token: "not a token" }), 400, "VALIDATION_ERROR", /setup_token/);

    const { publicToken } = plaid.createPublicToken();
    plaid.faults.add("/item/public_token/exchange", { kind: "status", status: 503 });
    expectError(await post("plaid", { public_token: publicToken }), 502, "PROVIDER_ERROR", /plaid/);
    plaid.faults.add("/link/token/create", { kind: "malformed" });
    expectError(await call("POST", "/api/v1/providers/plaid/link-session", { user_id: userId }), 502, "PROVIDER_ERROR");
    simplefin.faults.add("/simplefin/claim", { kind: "status", status: 500 });
    expectError(await post("simplefin", { setup_token: simplefin.createSetupToken() }), 502, "PROVIDER_ERROR");
    expect(await connections()).toBe(before);
  });
});

describe("Plaid through the registry", () => {
  let item: FakeItem;
  let id: string;

  it("exchanges the public token (201), queues the first sync, and brings in every transaction", async () => {
    const made = plaid.createPublicToken({ webhook: `${rest}/webhooks/plaid`, transactions: 35 });
    item = made.item;
    const pending = plaid.add(item, { pending: true, name: "BLUE BOTTLE PENDING", amount: 4.5 });
    secrets.push(item.accessToken, made.publicToken);
    const created = await call("POST", "/api/v1/connections", {
      provider: "plaid",
      user_id: userId,
      credentials: { public_token: made.publicToken },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({
      provider: "plaid",
      status: "active",
      institution_name: "First Platypus Bank",
      institution_id: "ins_109508",
      user_id: userId,
      error_code: null,
      error_message: null,
    });
    expect(JSON.stringify(created.body)).not.toContain(item.accessToken);
    id = created.body.short_id;
    const first = await nthSync(id, 1);
    expect(first).toMatchObject({ trigger: "initial", status: "success", added: 36, pages: 4, error_code: null });
    expectSameAsPlaid(await transactionsOf(id), item);
    expect((await transactionsOf(id)).get(pending.transaction_id)).toMatchObject({ pending: true, amount: 4.5 });
    expect(await connection(id)).toMatchObject({ status: "active", last_synced_at: expect.any(String) });
  });

  it("a signed SYNC_UPDATES_AVAILABLE syncs: the posted row keeps the category, tags and comments", async () => {
    const stored = await transactionsOf(id);
    const pending = [...stored.values()].find((t) => t.pending)!;
    expect(
      (await call("PATCH", `/api/v1/transactions/${pending.id}/category`, { category_slug: "travel" })).status,
    ).toBe(200);
    expect((await call("POST", `/api/v1/transactions/${pending.id}/tags`, { slug: "reimbursable" })).status).toBe(200);
    expect((await call("POST", `/api/v1/transactions/${pending.id}/comments`, { body: "client lunch" })).status).toBe(
      201,
    );
    // The pending row posts with 12 rows in between, so its removal and the posted row land on different pages;
    // one row changes and one is removed.
    const posted = plaid.post(item, pending.provider_transaction_id, { amount: 4.75 }, 12);
    const [changed, gone] = [...item.live.values()].filter((t) => !t.pending).slice(0, 2);
    plaid.modify(item, changed.transaction_id, { amount: 99.99 });
    plaid.remove(item, gone.transaction_id);

    expect(
      await plaid.deliverWebhook(item, { webhook_type: "TRANSACTIONS", webhook_code: "SYNC_UPDATES_AVAILABLE" }),
    ).toBe(200);
    const sync = await nthSync(id, 2);
    expect(sync).toMatchObject({ trigger: "webhook", status: "success", added: 13, modified: 1, removed: 2 });
    const now = await transactionsOf(id);
    expectSameAsPlaid(now, item);
    expect(now.has(pending.provider_transaction_id)).toBe(false);
    expect(now.has(gone.transaction_id)).toBe(false);
    expect(now.get(changed.transaction_id)!.amount).toBe(99.99);
    const row = now.get(posted.transaction_id)!;
    expect(row).toMatchObject({
      pending: false,
      amount: 4.75,
      category_slug: "travel",
      category_source: "user",
      // The built-in rule tagged the pending row needs_review when it arrived; the posted row takes over the
      // pending row's tags, and as a change (not a new row) it is not tagged again.
      tags: ["needs_review", "reimbursable"],
    });
    const comments = await call("GET", `/api/v1/transactions/${row.id}/comments`);
    expect(comments.body.comments.map((c: Json) => c.body)).toEqual(["client lunch"]);
    const events = await call("GET", "/api/v1/webhook-events?provider=plaid");
    expect(events.body.webhook_events[0]).toMatchObject({
      event_type: "TRANSACTIONS/SYNC_UPDATES_AVAILABLE",
      status: "accepted",
      connection_ids: [id],
    });
  });

  it("a webhook with a bad signature is 401, stored as rejected, and queues no sync", async () => {
    const body = plaid.webhookBody(item, { webhook_type: "TRANSACTIONS", webhook_code: "SYNC_UPDATES_AVAILABLE" });
    const jobs = (await syncJobsOf(databaseUrl, id)).length;
    for (const forged of [plaid.signWebhook(body, { foreignKey: true }), plaid.signWebhook("{}")]) {
      const r = await call("POST", "/webhooks/plaid", body, {
        "content-type": "application/json",
        "plaid-verification": forged,
        "x-api-key": "",
      });
      expect(r.status).toBe(401);
      expect(r.body.error.code).toBe("INVALID_SIGNATURE");
    }
    const rejected = await call("GET", "/api/v1/webhook-events?provider=plaid&status=rejected");
    expect(rejected.body.webhook_events).toHaveLength(2);
    // A webhook queues its sync before it answers: no new job now means no sync will come.
    expect(await syncJobsOf(databaseUrl, id)).toHaveLength(jobs);
    expect(await finishedSyncs(id)).toHaveLength(2);
    expect((await call("GET", `/api/v1/sync/logs?connection_id=${id}`)).body.sync_logs).toHaveLength(2);
  });

  it("a 5xx mid-sync: error status and sync log, committed pages kept; the next sync ends exactly right", async () => {
    const before = await transactionsOf(id);
    for (let i = 0; i < 25; i++) plaid.add(item, { name: `NEW ROW ${i}`, amount: 10 + i });
    plaid.faults.add("/transactions/sync", { kind: "status", status: 500 }, 1, 1);
    const failed = await syncNow(id);
    expect(failed).toMatchObject({ status: "error", error_code: "PROVIDER_UNAVAILABLE", added: 10, pages: 1 });
    expect(failed.error_message).toMatch(/INTERNAL_SERVER_ERROR/);
    expect(await connection(id)).toMatchObject({ status: "error", error_code: "PROVIDER_UNAVAILABLE" });
    const kept = await transactionsOf(id);
    expect(kept.size).toBe(before.size + 10);
    for (const key of before.keys()) expect(kept.has(key)).toBe(true);

    // The run starts again from the cursor it began with: the first page again (unchanged), then the rest.
    const ok = await syncNow(id);
    expect(ok).toMatchObject({ status: "success", added: 15, unchanged: 10, error_code: null });
    expectSameAsPlaid(await transactionsOf(id), item);
    expect(await connection(id)).toMatchObject({ status: "active", error_code: null, error_message: null });
  });

  it("ITEM_LOGIN_REQUIRED → pending_reauth; reauth gives an update-mode link; repaired → active again", async () => {
    item.loginRequired = true;
    const failed = await syncNow(id);
    expect(failed).toMatchObject({ status: "error", error_code: "ITEM_LOGIN_REQUIRED" });
    expect(await connection(id)).toMatchObject({ status: "pending_reauth", error_code: "ITEM_LOGIN_REQUIRED" });

    const reauth = await call("POST", `/api/v1/connections/${id}/reauth`);
    expect(reauth.status).toBe(200);
    expect(reauth.body.link_token).toMatch(/^link-sandbox-/);
    expect(plaid.requests.at(-1)).toMatchObject({
      path: "/link/token/create",
      body: { access_token: item.accessToken },
    });

    // The person goes through Link's update mode; Plaid says LOGIN_REPAIRED, and a sync runs.
    const added = plaid.add(item, { name: "AFTER REPAIR", amount: 1.23 });
    const syncs = (await finishedSyncs(id)).length;
    await plaid.repairLogin(item);
    const repaired = await nthSync(id, syncs + 1);
    expect(repaired).toMatchObject({ trigger: "webhook", status: "success", added: 1 });
    expect(await connection(id)).toMatchObject({ status: "active", error_code: null, error_message: null });
    expect((await transactionsOf(id)).get(added.transaction_id)).toMatchObject({ amount: 1.23 });

    // Plaid's ITEM ERROR webhook marks the login broken without waiting for a sync.
    await plaid.resetLogin(item);
    await waitFor(async () => (await connection(id)).status === "pending_reauth", "pending_reauth by webhook");
    item.loginRequired = false;
    expect(await syncNow(id)).toMatchObject({ status: "success" });
    expect(await connection(id)).toMatchObject({ status: "active", error_code: null });
  });

  it("DELETE disconnects: Plaid's Item is removed, accounts and transactions are kept", async () => {
    const count = (await transactionsOf(id)).size;
    const r = await call("DELETE", `/api/v1/connections/${id}`);
    expect(r.body).toMatchObject({ status: "disconnected" });
    expect(item.removed).toBe(true);
    const accounts = (await call("GET", "/api/v1/accounts")).body.accounts as Json[];
    const unlinked = accounts.filter((a) => a.name.startsWith("Plaid ") && a.connection_id === null);
    expect(unlinked).toHaveLength(3);
    let kept = 0;
    for (const a of unlinked) {
      kept += (await call("GET", `/api/v1/transactions/count?account_id=${a.short_id}`)).body.count as number;
    }
    expect(kept).toBe(count);
  });
});

describe("Teller through the registry (mTLS with the client certificate)", () => {
  let enrollment: FakeEnrollment;
  let id: string;

  it("takes Teller Connect's access token, syncs every account, and signs amounts by account type", async () => {
    enrollment = teller.createEnrollment(3);
    secrets.push(enrollment.token);
    const created = await call("POST", "/api/v1/connections", {
      provider: "teller",
      user_id: userId,
      credentials: { access_token: enrollment.token, enrollment_id: enrollment.id },
    });
    expect(created.status).toBe(201);
    expect(created.body).toMatchObject({ provider: "teller", institution_name: "Chase", status: "active" });
    id = created.body.short_id;
    expect(await nthSync(id, 1)).toMatchObject({ trigger: "initial", status: "success", added: 12 });
    const stored = await transactionsOf(id);
    expect(stored.size).toBe(12);
    const [checking, , card] = enrollment.accounts;
    for (const t of checking.txns) expect(stored.get(t.id)!.amount).toBe(-Number(t.amount)); // depository: negated
    for (const t of card.txns) expect(stored.get(t.id)!.amount).toBe(Number(t.amount)); // credit: as Teller says
  });

  it("a pending row that vanishes for a posted one is dropped; a 502 and a malformed answer are errors", async () => {
    const [checking] = enrollment.accounts;
    const pending = checking.txns.find((t) => t.status === "pending")!;
    const posted = teller.postUnderNewId(checking, pending.id, { amount: "-4.80" });
    teller.faults.add(/\/transactions$/, { kind: "status", status: 502 });
    const failed = await syncNow(id);
    expect(failed).toMatchObject({ status: "error", error_code: "PROVIDER_UNAVAILABLE" });
    expect(await connection(id)).toMatchObject({ status: "error", error_code: "PROVIDER_UNAVAILABLE" });
    expect((await transactionsOf(id)).size).toBe(12);

    teller.faults.add("/accounts", { kind: "malformed" });
    expect(await syncNow(id)).toMatchObject({ status: "error", error_code: "PROVIDER_UNAVAILABLE" });

    const okSync = await syncNow(id);
    expect(okSync).toMatchObject({ status: "success" });
    const stored = await transactionsOf(id);
    expect(stored.has(pending.id)).toBe(false);
    expect(stored.get(posted.id)).toMatchObject({ amount: 4.8, pending: false });
    expect(await connection(id)).toMatchObject({ status: "active", error_code: null });
  });

  it("a disconnected enrollment → pending_reauth; reauth with the repaired enrollment → active again", async () => {
    teller.disconnect(enrollment);
    expect(await syncNow(id)).toMatchObject({ status: "error", error_code: "ITEM_LOGIN_REQUIRED" });
    expect(await connection(id)).toMatchObject({ status: "pending_reauth" });
    // Without a body there is no link session to give: Teller's repair happens in Teller Connect.
    const bare = await call("POST", `/api/v1/connections/${id}/reauth`);
    expect({ status: bare.status, code: bare.body.error?.code }).toEqual({ status: 400, code: "VALIDATION_ERROR" });
    teller.repair(enrollment);
    const syncs = (await finishedSyncs(id)).length;
    const r = await call("POST", `/api/v1/connections/${id}/reauth`, {
      credentials: { access_token: enrollment.token, enrollment_id: enrollment.id },
    });
    expect(r.status).toBe(200);
    expect(r.body.connection).toMatchObject({ status: "active", error_code: null });
    expect(await nthSync(id, syncs + 1)).toMatchObject({ trigger: "reauth", status: "success" });
    expect(await syncNow(id)).toMatchObject({ status: "success" });
    expect(await connection(id)).toMatchObject({ status: "active", error_code: null });
  });

  it("webhooks: a good HMAC queues a sync; a bad one is 401, stored as rejected, and queues none", async () => {
    const syncs = (await finishedSyncs(id)).length;
    const jobs = (await syncJobsOf(databaseUrl, id)).length;
    const body = teller.webhookBody("transactions.processed", { enrollment_id: enrollment.id });
    const good = await call("POST", "/webhooks/teller", body, {
      "content-type": "application/json",
      "teller-signature": teller.signWebhook(body),
    });
    expect(good.status).toBe(200);
    expect(good.body.status).toBe("accepted");
    expect(await nthSync(id, syncs + 1)).toMatchObject({ trigger: "webhook", status: "success" });
    expect(await syncJobsOf(databaseUrl, id)).toHaveLength(jobs + 1);

    const bad = await call("POST", "/webhooks/teller", body.replace("processed", "processed "), {
      "content-type": "application/json",
      "teller-signature": teller.signWebhook(body),
    });
    expect(bad.status).toBe(401);
    expect(bad.body.error.code).toBe("INVALID_SIGNATURE");
    const rejected = await call("GET", "/api/v1/webhook-events?provider=teller&status=rejected");
    expect(rejected.body.webhook_events).toHaveLength(1);
    expect(await syncJobsOf(databaseUrl, id)).toHaveLength(jobs + 1);
    expect(await finishedSyncs(id)).toHaveLength(syncs + 1);
  });
});

describe("SimpleFIN through the registry", () => {
  let id: string;

  it("claims the setup token for an access URL, syncs, and turns money-in-positive amounts around", async () => {
    const created = await call("POST", "/api/v1/connections", {
      provider: "simplefin",
      user_id: userId,
      credentials: { setup_token: simplefin.createSetupToken() },
    });
    expect(created.status).toBe(201);
    id = created.body.short_id;
    expect(JSON.stringify(created.body)).not.toMatch(/access_url|@127\.0\.0\.1/);
    expect(await nthSync(id, 1)).toMatchObject({ trigger: "initial", status: "success" });
    const stored = await transactionsOf(id, false);
    // The first sync reads the last year; the account in a custom currency is left out.
    expect(stored.get("TRN-c2")).toMatchObject({ amount: 45.1, pending: false });
    expect(stored.get("TRN-v2")).toMatchObject({ amount: -50 });
    expect(stored.get("TRN-c4")).toMatchObject({ amount: 12, pending: true });
    expect(stored.has("TRN-p1")).toBe(false);
  });

  it("a timeout is an error with a sync log, nothing lost; the next sync is active again", async () => {
    const before = await transactionsOf(id, false);
    simplefin.faults.add("/simplefin/accounts", { kind: "slow", ms: 4_000 });
    const failed = await syncNow(id);
    expect(failed).toMatchObject({ status: "error", error_code: "PROVIDER_UNAVAILABLE" });
    expect(failed.error_message).toMatch(/timed out/);
    expect(await connection(id)).toMatchObject({ status: "error", error_code: "PROVIDER_UNAVAILABLE" });
    expect((await transactionsOf(id, false)).size).toBe(before.size);
    const pending = simplefin.account("ACT-checking").transactions.find((t) => t.pending)!;
    const posted = simplefin.postUnderNewId("ACT-checking", pending.id, { posted: Math.floor(Date.now() / 1000) });
    expect(await syncNow(id)).toMatchObject({ status: "success" });
    const after = await transactionsOf(id, false);
    expect(after.has(pending.id)).toBe(false);
    expect(after.get(posted.id)).toMatchObject({ amount: 12, pending: false });
    expect(await connection(id)).toMatchObject({ status: "active", error_code: null, error_message: null });
  });

  it("a revoked access URL → pending_reauth; reauth with a new setup token makes it active and syncs", async () => {
    simplefin.revokeAll();
    expect(await syncNow(id)).toMatchObject({ status: "error", error_code: "ITEM_LOGIN_REQUIRED" });
    expect(await connection(id)).toMatchObject({ status: "pending_reauth", error_code: "ITEM_LOGIN_REQUIRED" });
    // SimpleFIN has no link session: without new credentials, reauth says what it needs.
    const bare = await call("POST", `/api/v1/connections/${id}/reauth`, {});
    expect({ status: bare.status, code: bare.body.error?.code }).toEqual({ status: 400, code: "VALIDATION_ERROR" });
    const syncs = (await finishedSyncs(id)).length;
    const r = await call("POST", `/api/v1/connections/${id}/reauth`, {
      credentials: { setup_token: simplefin.createSetupToken() },
    });
    expect(r.status).toBe(200);
    expect(r.body.connection).toMatchObject({ status: "active", error_code: null, error_message: null });
    expect(await nthSync(id, syncs + 1)).toMatchObject({ trigger: "reauth", status: "success" });
    expect(await connection(id)).toMatchObject({ status: "active", error_code: null });
  });
});

describe("the processes' logs", () => {
  it("never carry a provider secret, token or client key", () => {
    const lines = procs.flatMap((p) => p.lines);
    expect(lines.length).toBeGreaterThan(0);
    for (const secret of secrets) {
      expect(lines.filter((l) => l.includes(secret))).toEqual([]);
    }
  });
});
