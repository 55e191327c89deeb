import { createHash } from "node:crypto";
import { createServer } from "node:http";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { PlaidProvider } from "../../services/sync/providers/plaid/index.js";
import { ProviderError, type WebhookEvent } from "../../services/sync/providers/provider.js";
import { close, listen, readBody } from "../fakes/http.js";
import { FakePlaid, type FakeItem } from "../fakes/plaid/server.js";
import { LedgerStub, collect, drain } from "../helpers/provider-pages.js";

let fake: FakePlaid;
let plaid: PlaidProvider;

const provider = (extra: Partial<ConstructorParameters<typeof PlaidProvider>[0]> = {}) =>
  new PlaidProvider({
    clientId: fake.clientId,
    secret: fake.secret,
    baseUrl: `${fake.url}/`,
    timeoutMs: 2_000,
    ...extra,
  });

const creds = (item: FakeItem) => ({ access_token: item.accessToken, item_id: item.itemId });

/** The fake's own view of the Item's transactions, as ids. */
const liveIds = (item: FakeItem) => [...item.live.keys()].sort();

async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProviderError);
  return err as ProviderError;
}

beforeAll(async () => {
  fake = await new FakePlaid().start();
  plaid = provider();
});

afterAll(async () => {
  await fake.stop();
});

describe("Plaid link sessions and enrollment", () => {
  it("creates a link token for a new Item with transactions, the webhook and a 4-hour expiry", async () => {
    const withWebhook = provider({ webhookUrl: "https://coffer.example/webhooks/plaid", countryCodes: ["US", "CA"] });
    const session = await withWebhook.createLinkSession({ clientUserId: "user-1" });
    expect(session.linkToken).toMatch(/^link-sandbox-/);
    expect(session.expiration.getTime() - Date.now()).toBeGreaterThan(3.9 * 3600_000);
    const sent = fake.requests.filter((r) => r.path === "/link/token/create").at(-1)!.body;
    expect(sent).toMatchObject({
      client_name: "Coffer",
      language: "en",
      country_codes: ["US", "CA"],
      user: { client_user_id: "user-1" },
      products: ["transactions"],
      webhook: "https://coffer.example/webhooks/plaid",
    });
  });

  it("creates an update-mode link token with the Item's access token and no products", async () => {
    const item = fake.createItem();
    const session = await plaid.createLinkSession({ clientUserId: "user-1", update: creds(item) });
    expect(session.expiration.getTime() - Date.now()).toBeLessThanOrEqual(30 * 60_000);
    const sent = fake.requests.filter((r) => r.path === "/link/token/create").at(-1)!.body;
    expect(sent.access_token).toBe(item.accessToken);
    expect(sent.products).toBeUndefined();
  });

  it("exchanges a public token and names the institution; the token cannot be used twice", async () => {
    const { publicToken, item } = fake.createPublicToken({
      institutionName: "Tartan Bank",
      institutionId: "ins_109511",
    });
    const enrollment = await plaid.enroll({ public_token: publicToken });
    expect(enrollment).toEqual({
      providerItemId: item.itemId,
      institutionId: "ins_109511",
      institutionName: "Tartan Bank",
      credentials: { access_token: item.accessToken, item_id: item.itemId },
    });
    const err = await failure(plaid.enroll({ public_token: publicToken }));
    expect([err.failure, err.code]).toEqual(["invalid_input", "INVALID_CREDENTIALS"]);
  });

  it("still enrolls, with the institution unknown, when /accounts/get fails after the exchange", async () => {
    const { publicToken, item } = fake.createPublicToken();
    fake.faults.add("/accounts/get", { kind: "status", status: 500 });
    const enrollment = await plaid.enroll({ public_token: publicToken });
    expect(enrollment).toMatchObject({ providerItemId: item.itemId, institutionId: null, institutionName: null });
    expect(item.removed).toBe(false);
  });

  it("refuses an empty public token without calling Plaid", async () => {
    const before = fake.requests.length;
    const err = await failure(plaid.enroll({ public_token: " " }));
    expect(err.failure).toBe("invalid_input");
    expect(fake.requests.length).toBe(before);
  });

  it("says misconfigured, without the secret, when the client id or secret is wrong", async () => {
    const wrong = new PlaidProvider({ clientId: "nope", secret: "s3cr3t-value", baseUrl: fake.url });
    const err = await failure(wrong.createLinkSession({ clientUserId: "u" }));
    expect([err.failure, err.code]).toEqual(["misconfigured", "PROVIDER_MISCONFIGURED"]);
    expect(err.message).toContain("INVALID_API_KEYS");
    expect(err.cause).toBeUndefined();
    expect(JSON.stringify({ ...err, message: err.message, stack: err.stack })).not.toContain("s3cr3t-value");
  });
});

describe("Plaid accounts", () => {
  it("maps type, subtype, mask and exact balances; skips the account in an unofficial currency", async () => {
    const item = fake.createItem({ unofficialCurrencyAccount: true });
    const accounts = await plaid.accounts(creds(item));
    expect(accounts.map((a) => [a.name, a.type, a.subtype, a.mask, a.isoCurrencyCode])).toEqual([
      ["Plaid Checking", "depository", "checking", "0000", "USD"],
      ["Plaid Money Market", "depository", "money market", "4444", "USD"],
      ["Plaid Credit Card", "credit", "credit card", null, "USD"],
    ]);
    expect(accounts[1]).toMatchObject({ balanceCurrent: "43200.50", balanceAvailable: "43200.50", balanceLimit: null });
    // Positive current on a card = the amount owed, kept as Plaid states it.
    expect(accounts[2]).toMatchObject({
      balanceCurrent: "410.12",
      balanceAvailable: "2000.00",
      balanceLimit: "2410.12",
    });
    expect(accounts[0].officialName).toBe("Plaid Checking (official)");
  });
});

describe("Plaid /transactions/sync", () => {
  it("pages 500 at a time until has_more is false; only the last page moves the cursor", async () => {
    const item = fake.createItem({ transactions: 1_234 });
    const pages = await collect(plaid.sync(creds(item), null));
    expect(pages.map((p) => p.added.length)).toEqual([500, 500, 234]);
    expect(pages.slice(0, 2).map((p) => p.nextCursor)).toEqual(["", ""]);
    expect(pages[2].nextCursor).not.toBe("");
    const calls = fake.requests.filter(
      (r) => r.path === "/transactions/sync" && r.body.access_token === item.accessToken,
    );
    expect(calls.map((c) => c.body.count)).toEqual([500, 500, 500]);
    expect(calls[0].body.cursor).toBeUndefined();

    const store = new LedgerStub();
    for (const page of pages) store.apply(page);
    expect(store.ids()).toEqual(liveIds(item));
  });

  it("returns only what changed since the stored cursor: added, modified and removed", async () => {
    const item = fake.createItem({ transactions: 5 });
    const store = new LedgerStub();
    await drain(plaid.sync(creds(item), null), store);
    const [first, second] = [...item.live.keys()];
    fake.modify(item, first, { amount: 99.5, name: "RENAMED" });
    fake.remove(item, second);
    const added = fake.add(item, { amount: -1500, name: "REFUND" });

    const pages = await collect(plaid.sync(creds(item), store.cursor));
    expect(pages).toHaveLength(1);
    expect(pages[0].added.map((t) => [t.providerTransactionId, t.amount])).toEqual([
      [added.transaction_id, "-1500.00"],
    ]);
    expect(pages[0].modified.map((t) => [t.providerTransactionId, t.amount, t.name])).toEqual([
      [first, "99.50", "RENAMED"],
    ]);
    expect(pages[0].removed).toEqual([{ providerAccountId: expect.any(String), providerTransactionId: second }]);
    for (const page of pages) store.apply(page);
    expect(store.ids()).toEqual(liveIds(item));

    // Nothing new: one empty page that keeps the cursor valid.
    const again = await collect(plaid.sync(creds(item), store.cursor));
    expect(again.map((p) => p.added.length + p.modified.length + p.removed.length)).toEqual([0]);
  });

  it("restarts from the cursor the run began with on TRANSACTIONS_SYNC_MUTATION_DURING_PAGINATION", async () => {
    const item = fake.createItem({ transactions: 10 });
    const store = new LedgerStub();
    await drain(plaid.sync(creds(item), null), store);
    const c0 = store.cursor!;
    for (let i = 0; i < 7; i++) fake.add(item, { name: `NEW ${i}` });
    fake.maxPageSize = 3;
    fake.mutateDuringPagination(1);
    try {
      const from = fake.requests.length;
      const { error } = await drain(plaid.sync(creds(item), c0), store);
      expect(error).toBeNull();
      const cursors = fake.requests.slice(from).map((r) => r.body.cursor);
      // page 1 from C0, page 2 fails (the data changed), then the whole loop again from C0: 8 new rows / 3 a page.
      expect(cursors[0]).toBe(c0);
      expect(cursors[2]).toBe(c0);
      expect(cursors).toHaveLength(2 + 3);
    } finally {
      fake.maxPageSize = 500;
    }
    expect(store.ids()).toEqual(liveIds(item));
    expect(item.live.size).toBe(18);
  });

  it("gives up as unavailable when the data keeps changing during pagination", async () => {
    const item = fake.createItem({ transactions: 10 });
    fake.maxPageSize = 4;
    fake.mutateDuringPagination(10);
    try {
      const limited = provider({ maxPaginationRestarts: 2 });
      const store = new LedgerStub();
      const { error } = await drain(limited.sync(creds(item), null), store);
      expect(error).toBeInstanceOf(ProviderError);
      expect((error as ProviderError).failure).toBe("unavailable");
      expect((error as ProviderError).message).toMatch(/kept changing/);
      // The pages already yielded were committable, and the stored cursor never moved past C0.
      expect(store.cursor).toBe("");
    } finally {
      fake.maxPageSize = 500;
      fake["mutations"].length = 0;
    }
  });

  it("turns a pending row into its posted row through pending_transaction_id, even across pages", async () => {
    const item = fake.createItem({ transactions: 2 });
    const pending = fake.add(item, { pending: true, amount: 25, name: "COFFEE SHOP PENDING" });
    const store = new LedgerStub();
    await drain(plaid.sync(creds(item), null), store);
    expect(store.byId(pending.transaction_id)?.pending).toBe(true);

    fake.maxPageSize = 2;
    const posted = fake.post(item, pending.transaction_id, { amount: 27.5, name: "COFFEE SHOP" }, 1);
    try {
      const pages = await collect(plaid.sync(creds(item), store.cursor));
      expect(pages).toHaveLength(2);
      expect(pages[0].removed.map((r) => r.providerTransactionId)).toEqual([pending.transaction_id]);
      expect(pages[1].added.at(-1)).toMatchObject({
        providerTransactionId: posted.transaction_id,
        pendingTransactionId: pending.transaction_id,
        pending: false,
        amount: "27.50",
      });
      for (const page of pages) store.apply(page);
    } finally {
      fake.maxPageSize = 500;
    }
    expect(store.byId(pending.transaction_id)).toBeUndefined();
    expect(store.ids()).toEqual(liveIds(item));
  });

  it("answers an empty page while the Item is NOT_READY, then the history once it is", async () => {
    const item = fake.createItem({ transactions: 40, status: "NOT_READY" });
    const notReady = await collect(plaid.sync(creds(item), null));
    expect(notReady).toEqual([{ added: [], modified: [], removed: [], windows: [], skipped: [], nextCursor: "" }]);

    fake.setStatus(item, "INITIAL_UPDATE_COMPLETE");
    const store = new LedgerStub();
    await drain(plaid.sync(creds(item), notReady[0].nextCursor), store);
    const initial = store.rows.size;
    expect(initial).toBeGreaterThan(0);
    expect(initial).toBeLessThan(40);

    fake.setStatus(item, "HISTORICAL_UPDATE_COMPLETE");
    await drain(plaid.sync(creds(item), store.cursor), store);
    expect(store.rows.size).toBe(40);
  });

  it("normalises a row: exact amount text, currency fallback, category, merchant from counterparties", async () => {
    const item = fake.createItem({ transactions: 0 });
    const t = fake.add(item, {
      amount: 12.3,
      iso_currency_code: null,
      merchant_name: null,
      counterparties: [{ name: "Corner Store", type: "merchant" }],
      personal_finance_category: { primary: "FOOD_AND_DRINK", detailed: "FOOD_AND_DRINK_GROCERIES" },
      authorized_date: "2026-01-02",
      date: "2026-01-03",
    });
    const [page] = await collect(plaid.sync(creds(item), null));
    expect(page.added).toEqual([
      {
        providerAccountId: t.account_id,
        providerTransactionId: t.transaction_id,
        amount: "12.30",
        isoCurrencyCode: "USD",
        date: "2026-01-03",
        authorizedDate: "2026-01-02",
        name: "FAKE MERCHANT",
        merchantName: "Corner Store",
        categoryPrimary: "FOOD_AND_DRINK",
        categoryDetailed: "FOOD_AND_DRINK_GROCERIES",
        pending: false,
        pendingTransactionId: null,
      },
    ]);
  });

  it("skips and reports rows with more than 2 decimals, an exponent or an unofficial currency", async () => {
    const item = fake.createItem({ transactions: 0 });
    const good = fake.add(item, { amount: -0.5 });
    const thousandths = fake.add(item, { amount: 1.005 });
    const huge = fake.add(item, { amount: 1e21 });
    const crypto = fake.add(item, { amount: 0.01, iso_currency_code: null, unofficial_currency_code: "DOGE" });
    const [page] = await collect(plaid.sync(creds(item), null));
    expect(page.added.map((t) => [t.providerTransactionId, t.amount])).toEqual([[good.transaction_id, "-0.50"]]);
    expect(page.skipped.map((s) => s.row.split(" ")[0])).toEqual([
      thousandths.transaction_id,
      huge.transaction_id,
      crypto.transaction_id,
    ]);
    expect(page.skipped[0].reason).toMatch(/1\.005/);
    expect(page.skipped[1].reason).toMatch(/1e\+21/);
    expect(page.skipped[2].reason).toMatch(/unofficial currency DOGE/);
  });
});

describe("Plaid failures", () => {
  it("says reauth_required (ITEM_LOGIN_REQUIRED) for an Item whose login broke, and works after repair", async () => {
    const item = fake.createItem({ transactions: 3 });
    await fake.resetLogin(item);
    const syncErr = await failure(collect(plaid.sync(creds(item), null)));
    expect([syncErr.failure, syncErr.code]).toEqual(["reauth_required", "ITEM_LOGIN_REQUIRED"]);
    const accountsErr = await failure(plaid.accounts(creds(item)));
    expect(accountsErr.failure).toBe("reauth_required");
    await fake.repairLogin(item);
    expect(await plaid.accounts(creds(item))).toHaveLength(3);
  });

  it("says unavailable on a 500, and the next run from the same cursor succeeds", async () => {
    const item = fake.createItem({ transactions: 3 });
    fake.faults.add("/transactions/sync", { kind: "status", status: 500 });
    const err = await failure(collect(plaid.sync(creds(item), null)));
    expect([err.failure, err.code]).toEqual(["unavailable", "PROVIDER_UNAVAILABLE"]);
    expect(err.message).toContain("INTERNAL_SERVER_ERROR");
    const store = new LedgerStub();
    expect((await drain(plaid.sync(creds(item), null), store)).error).toBeNull();
    expect(store.ids()).toEqual(liveIds(item));
  });

  it("says unavailable when Plaid is too slow (a timeout) or answers malformed JSON", async () => {
    const item = fake.createItem({ transactions: 3 });
    const impatient = provider({ timeoutMs: 150 });
    fake.faults.add("/transactions/sync", { kind: "slow", ms: 600 });
    const slow = await failure(collect(impatient.sync(creds(item), null)));
    expect([slow.failure, slow.message]).toEqual(["unavailable", "Plaid: the request timed out"]);

    fake.faults.add("/accounts/get", { kind: "malformed" });
    const garbled = await failure(plaid.accounts(creds(item)));
    expect([garbled.failure, garbled.message]).toEqual(["unavailable", "Plaid: malformed /accounts/get response"]);
  });

  it("says rate_limited on a 429 RATE_LIMIT_EXCEEDED after N calls", async () => {
    const item = fake.createItem({ transactions: 3 });
    fake.faults.rateLimitAfter("/accounts/get", 2);
    try {
      await plaid.accounts(creds(item));
      await plaid.accounts(creds(item));
      const err = await failure(plaid.accounts(creds(item)));
      expect([err.failure, err.code]).toEqual(["rate_limited", "RATE_LIMITED"]);
    } finally {
      fake.faults.clear();
    }
  });

  it("keeps a 429's Retry-After, in seconds", async () => {
    const item = fake.createItem({ transactions: 1 });
    fake.faults.add("/accounts/get", { kind: "status", status: 429, retryAfterSeconds: 7 });
    const err = await failure(plaid.accounts(creds(item)));
    expect([err.failure, err.retryAfterSeconds]).toEqual(["rate_limited", 7]);
  });

  it("with a retry policy, rides out transient faults on page requests (a 500, a reset, a 429)", async () => {
    const item = fake.createItem({ transactions: 25 });
    const patient = provider({ retry: { tries: 3, firstDelayMs: 10, maxWaitMs: 1_000 } });
    fake.maxPageSize = 10;
    try {
      fake.faults.alternate("/transactions/sync", { kind: "status", status: 500 }, 3);
      fake.faults.add("/accounts/get", { kind: "reset" });
      fake.faults.add("/accounts/get", { kind: "status", status: 429, retryAfterSeconds: 0 });
      expect(await patient.accounts(creds(item))).toHaveLength(item.accounts.length);
      const pages = await collect(patient.sync(creds(item), null));
      expect(pages.flatMap((p) => p.added.map((t) => t.providerTransactionId)).sort()).toEqual(liveIds(item));
      // Without a policy the same fault fails at once.
      fake.faults.add("/transactions/sync", { kind: "status", status: 500 });
      const err = await failure(collect(plaid.sync(creds(item), null)));
      expect(err.code).toBe("PROVIDER_UNAVAILABLE");
    } finally {
      fake.faults.clear();
      fake.maxPageSize = 500;
    }
  });

  it("removes the Item; its token then says revoked, and removing again is fine", async () => {
    const item = fake.createItem({ transactions: 1 });
    await plaid.remove(creds(item));
    expect(item.removed).toBe(true);
    const err = await failure(plaid.accounts(creds(item)));
    expect([err.failure, err.code]).toEqual(["revoked", "ACCESS_REVOKED"]);
    await expect(plaid.remove(creds(item))).resolves.toBeUndefined();
  });
});

describe("Plaid webhook verification", () => {
  const body = (item: FakeItem, fields: Record<string, unknown>) => Buffer.from(fake.webhookBody(item, fields));
  const verify = (raw: Buffer, jwt: string, p = plaid) => p.verifyWebhook({ "plaid-verification": jwt }, raw);

  it("accepts a signed SYNC_UPDATES_AVAILABLE and asks for a sync of the Item", async () => {
    const item = fake.createItem();
    const raw = body(item, { webhook_type: "TRANSACTIONS", webhook_code: "SYNC_UPDATES_AVAILABLE" });
    const iat = Math.floor(Date.now() / 1000) - 10;
    const event = await plaid.verifyWebhook({ "Plaid-Verification": fake.signWebhook(raw, { iat }) }, raw);
    expect(event).toEqual({
      eventId: null,
      type: "TRANSACTIONS/SYNC_UPDATES_AVAILABLE",
      providerItemIds: [item.itemId],
      action: "sync",
      // The replay key: the body's SHA-256 and the JWT's iat; the same signed bytes again have the same key.
      replayKey: `${createHash("sha256").update(raw).digest("hex")}:${iat}`,
      signedAt: new Date(iat * 1000),
    } satisfies WebhookEvent);
    const again = await plaid.verifyWebhook({ "Plaid-Verification": fake.signWebhook(raw, { iat: iat + 1 }) }, raw);
    expect(again.replayKey).not.toBe(event.replayKey);
  });

  it.each([
    [{ webhook_type: "ITEM", webhook_code: "ERROR", error: { error_code: "ITEM_LOGIN_REQUIRED" } }, "reauth_required"],
    [{ webhook_type: "ITEM", webhook_code: "LOGIN_REPAIRED" }, "repaired"],
    [{ webhook_type: "ITEM", webhook_code: "PENDING_EXPIRATION", consent_expiration_time: "2026-01-01" }, "none"],
    [{ webhook_type: "ITEM", webhook_code: "PENDING_DISCONNECT", reason: "INSTITUTION_MIGRATION" }, "none"],
    [{ webhook_type: "TRANSACTIONS", webhook_code: "DEFAULT_UPDATE" }, "none"],
  ])("maps %o to %s", async (fields, action) => {
    const item = fake.createItem();
    const raw = body(item, fields);
    expect((await verify(raw, fake.signWebhook(raw))).action).toBe(action);
  });

  it.each([
    ["a signature by another key", { foreignKey: true }, /bad signature/],
    ["alg HS256", { alg: "HS256" }, /not ES256/],
    ["alg none", { alg: "none" }, /not ES256/],
    ["an iat more than 5 minutes old", { iat: Math.floor(Date.now() / 1000) - 301 }, /more than 5 minutes/],
    ["an iat more than a minute ahead", { iat: Math.floor(Date.now() / 1000) + 90 }, /issued in the future/],
    ["the hash of another body", { bodyHash: "0".repeat(64) }, /does not match/],
    ["an unknown key id", { kid: "no-such-key" }, /unknown key id/],
  ])("rejects %s as INVALID_SIGNATURE", async (_what, forge, message) => {
    const item = fake.createItem();
    const raw = body(item, { webhook_type: "TRANSACTIONS", webhook_code: "SYNC_UPDATES_AVAILABLE" });
    const err = await failure(verify(raw, fake.signWebhook(raw, forge)));
    expect([err.failure, err.code]).toEqual(["invalid_input", "INVALID_SIGNATURE"]);
    expect(err.message).toMatch(message);
  });

  it("accepts an iat up to 5 minutes old and up to a minute ahead (clock skew)", async () => {
    const item = fake.createItem();
    const raw = body(item, { webhook_type: "TRANSACTIONS", webhook_code: "SYNC_UPDATES_AVAILABLE" });
    const now = Math.floor(Date.now() / 1000);
    for (const iat of [now - 295, now + 55])
      expect((await verify(raw, fake.signWebhook(raw, { iat }))).action).toBe("sync");
  });

  it("rejects a body changed after signing, and a request without the header", async () => {
    const item = fake.createItem();
    const raw = body(item, { webhook_type: "TRANSACTIONS", webhook_code: "SYNC_UPDATES_AVAILABLE" });
    const jwt = fake.signWebhook(raw);
    const tampered = Buffer.from(raw.toString().replace("SYNC_UPDATES_AVAILABLE", "SYNC_UPDATES_AVAILABLX"));
    expect((await failure(verify(tampered, jwt))).message).toMatch(/does not match/);
    expect((await failure(plaid.verifyWebhook({}, raw))).code).toBe("INVALID_SIGNATURE");
    for (const garbage of ["a.b", "x.y.z", `${jwt}.more`]) {
      expect((await failure(verify(raw, garbage))).message).toMatch(/not a well-formed JWT/);
    }
  });

  it("caches keys by kid and stops trusting a key Plaid has expired", async () => {
    const fresh = provider();
    const item = fake.createItem();
    const raw = body(item, { webhook_type: "TRANSACTIONS", webhook_code: "SYNC_UPDATES_AVAILABLE" });
    const keyCalls = () => fake.requests.filter((r) => r.path === "/webhook_verification_key/get").length;
    const before = keyCalls();
    await verify(raw, fake.signWebhook(raw), fresh);
    await verify(raw, fake.signWebhook(raw), fresh);
    expect(keyCalls() - before).toBe(1);

    const oldIndex = fake["keys"].length - 1;
    fake.rotateKey();
    await verify(raw, fake.signWebhook(raw), fresh); // a new kid: fetched, and the cached key re-read
    const err = await failure(verify(raw, fake.signWebhook(raw, { keyIndex: oldIndex }), fresh));
    expect(err.message).toMatch(/expired/);
  });

  it("verifies webhooks the fake delivers over HTTP to a receiver", async () => {
    const received: WebhookEvent[] = [];
    const receiver = createServer((req, res) => {
      void readBody(req).then(async (raw) => {
        try {
          received.push(await plaid.verifyWebhook(req.headers as Record<string, string>, raw));
          res.writeHead(200).end();
        } catch {
          res.writeHead(401).end();
        }
      });
    });
    const port = await listen(receiver);
    try {
      const item = fake.createItem({ webhook: `http://127.0.0.1:${port}/webhooks/plaid` });
      expect(
        await fake.deliverWebhook(item, { webhook_type: "TRANSACTIONS", webhook_code: "SYNC_UPDATES_AVAILABLE" }),
      ).toBe(200);
      await fake.resetLogin(item);
      expect(received.map((e) => e.action)).toEqual(["sync", "reauth_required"]);
    } finally {
      await close(receiver);
    }
  });
});
