import { createHash } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ProviderError } from "../../services/sync/providers/provider.js";
import { TellerProvider, type TellerOptions } from "../../services/sync/providers/teller/index.js";
import { daysAgo } from "../fakes/http.js";
import { makeTestPki, type TestPki } from "../fakes/teller/pki.js";
import { FakeTeller, SANDBOX_INSTITUTION, type FakeEnrollment } from "../fakes/teller/server.js";
import { LedgerStub, collect, drain } from "../helpers/provider-pages.js";

let pki: TestPki;
let fake: FakeTeller;
let teller: TellerProvider;
const providers: TellerProvider[] = [];

function provider(extra: Partial<TellerOptions> = {}): TellerProvider {
  const p = new TellerProvider({
    applicationId: "app_test_coffer",
    cert: pki.clientCertPath,
    key: pki.clientKey,
    ca: pki.caCert,
    baseUrl: fake.url,
    webhookSecrets: fake.webhookSecrets,
    timeoutMs: 2_000,
    ...extra,
  });
  providers.push(p);
  return p;
}

const creds = (e: FakeEnrollment) => ({ access_token: e.token, enrollment_id: e.id });
const today = () => daysAgo(0);

async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProviderError);
  return err as ProviderError;
}

beforeAll(async () => {
  pki = makeTestPki();
  fake = await new FakeTeller(pki).start();
  teller = provider();
});

afterAll(async () => {
  for (const p of providers) p.close();
  await fake.stop();
  pki.remove();
});

describe("Teller over mTLS", () => {
  it("reads the client certificate and key as a path or as PEM text", async () => {
    const enrollment = fake.createEnrollment(1);
    const fromPem = provider({ cert: pki.clientCert, key: pki.clientKeyPath });
    expect(await fromPem.accounts(creds(enrollment))).toHaveLength(3);
  });

  it("says misconfigured when Teller answers 400 to a request without a client certificate", async () => {
    const enrollment = fake.createEnrollment(1);
    const bare = provider({ cert: undefined, key: undefined });
    const err = await failure(bare.accounts(creds(enrollment)));
    expect([err.failure, err.code]).toEqual(["misconfigured", "PROVIDER_MISCONFIGURED"]);
    expect(err.message).toBe(
      "Teller bad_request: Missing certificate: Retry request using your Teller client certificate.",
    );
  });

  it("says misconfigured when Teller answers 400 to a certificate from another CA", async () => {
    const enrollment = fake.createEnrollment(1);
    const stranger = provider({ cert: pki.strangerCert, key: pki.strangerKey });
    const err = await failure(stranger.accounts(creds(enrollment)));
    expect([err.failure, err.code]).toEqual(["misconfigured", "PROVIDER_MISCONFIGURED"]);
    expect(err.message).toMatch(/Missing certificate/);
  });

  it("refuses, at construction, a certificate that is not PEM or a key that is not its own", () => {
    expect(() => provider({ cert: "/no/such/file.pem" })).toThrow(/TELLER_CERT is neither PEM text nor a PEM file/);
    expect(() => provider({ key: pki.strangerKey })).toThrow(/not a certificate and its private key/);
    expect(() => provider({ key: undefined })).toThrow(/TELLER_KEY is needed with the other/);
    expect(() => provider({ baseUrl: "http://127.0.0.1:1" })).toThrow(/must be an https URL/);
  });

  it("says unavailable when the server's certificate is not trusted", async () => {
    const enrollment = fake.createEnrollment(1);
    const trusting = provider({ ca: undefined });
    const err = await failure(trusting.accounts(creds(enrollment)));
    expect(err.failure).toBe("unavailable");
  });
});

describe("Teller enrollment and accounts", () => {
  it("needs no link session: Teller Connect runs in the browser", async () => {
    expect(await teller.createLinkSession()).toBeNull();
    expect(teller.info()).toMatchObject({ name: "teller", needsLinkSession: false, configured: true });
  });

  it("checks Teller Connect's access token and names the institution from the accounts", async () => {
    const enrollment = fake.createEnrollment(1);
    const result = await teller.enroll({
      access_token: enrollment.token,
      enrollment_id: enrollment.id,
      institution_name: "x",
    });
    expect(result).toEqual({
      providerItemId: enrollment.id,
      institutionId: SANDBOX_INSTITUTION.id,
      institutionName: SANDBOX_INSTITUTION.name,
      credentials: { access_token: enrollment.token, enrollment_id: enrollment.id },
    });
  });

  it("refuses an unknown token and a token of another enrollment as invalid input", async () => {
    const enrollment = fake.createEnrollment(1);
    const unknown = await failure(teller.enroll({ access_token: "test_token_nope", enrollment_id: enrollment.id }));
    expect([unknown.failure, unknown.code]).toEqual(["invalid_input", "INVALID_CREDENTIALS"]);
    const other = await failure(teller.enroll({ access_token: enrollment.token, enrollment_id: "enr_someone_else" }));
    expect(other.message).toMatch(/another enrollment/);
  });

  it("lists accounts with live balances, skipping the balances call an institution does not offer", async () => {
    const enrollment = fake.createEnrollment(1);
    const before = fake.requests.length;
    const accounts = await teller.accounts(creds(enrollment));
    expect(accounts.map((a) => [a.name, a.type, a.subtype, a.balanceCurrent, a.balanceAvailable])).toEqual([
      ["Checking", "depository", "checking", "28575.02", "28575.02"],
      ["Savings", "depository", "savings", null, null],
      ["Platinum Card", "credit", "credit_card", "1042.47", null],
    ]);
    expect(accounts[0].mask).toBe(enrollment.accounts[0].last_four);
    const paths = fake.requests.slice(before).map((r) => r.path);
    expect(paths.filter((p) => p.endsWith("/balances"))).toHaveLength(2);
  });
});

describe("Teller transactions", () => {
  it("reads the whole history by from_id pages and signs amounts by account type", async () => {
    const enrollment = fake.createEnrollment(5);
    const [checking, , card] = enrollment.accounts;
    const paged = provider({ pageSize: 2 });
    const before = fake.requests.length;
    const pages = await collect(paged.sync(creds(enrollment), null));

    expect(pages.map((p) => p.added.length)).toEqual([6, 6, 6]);
    expect(pages.map((p) => p.nextCursor)).toEqual(["", "", today()]);
    expect(pages[0].windows).toEqual([{ providerAccountId: checking.id, from: "1900-01-01", to: "2999-12-31" }]);
    const calls = fake.requests.slice(before).filter((r) => r.path === `/accounts/${checking.id}/transactions`);
    expect(calls.map((c) => [c.query.get("count"), c.query.get("from_id"), c.query.get("start_date")])).toEqual([
      ["2", null, null],
      ["2", checking.txns[1].id, null],
      ["2", checking.txns[3].id, null],
      ["2", checking.txns[5].id, null],
    ]);

    // Depository: Teller's -12.34 (money out) is Coffer's 12.34; credit: a purchase of 12.34 stays 12.34.
    const debit = checking.txns.find((t) => t.status === "posted")!;
    expect(pages[0].added.find((t) => t.providerTransactionId === debit.id)!.amount).toBe(debit.amount.slice(1));
    const charge = card.txns.find((t) => t.status === "posted")!;
    expect(pages[2].added.find((t) => t.providerTransactionId === charge.id)!.amount).toBe(charge.amount);
    const pending = pages[0].added.find((t) => t.pending)!;
    expect(pending).toMatchObject({ amount: "4.50", categoryPrimary: null, merchantName: null, date: today() });
  });

  it("keeps a card refund and a deposit as money in (negative)", async () => {
    const enrollment = fake.createEnrollment(0);
    const [checking, , card] = enrollment.accounts;
    const deposit = fake.addTransaction(checking, { amount: "2500.00", description: "PAYROLL" });
    const refund = fake.addTransaction(card, { amount: "-86.46", description: "REFUND" });
    const rows = (await collect(teller.sync(creds(enrollment), null))).flatMap((p) => p.added);
    expect(rows.find((t) => t.providerTransactionId === deposit.id)!.amount).toBe("-2500.00");
    expect(rows.find((t) => t.providerTransactionId === refund.id)!.amount).toBe("-86.46");
  });

  it("re-reads from 10 days before the cursor; a pending row posts in place or vanishes for a new id", async () => {
    const enrollment = fake.createEnrollment(3);
    const [checking, , card] = enrollment.accounts;
    const store = new LedgerStub();
    await drain(teller.sync(creds(enrollment), null), store);
    const pendingChecking = checking.txns.find((t) => t.status === "pending")!;
    const pendingCard = card.txns.find((t) => t.status === "pending")!;

    fake.post(checking, pendingChecking.id, { date: daysAgo(0), amount: "-4.75" });
    const replacement = fake.postUnderNewId(card, pendingCard.id, { amount: "5.25" });
    const cursor = daysAgo(3);
    const before = fake.requests.length;
    const { error } = await drain(teller.sync(creds(enrollment), cursor), store);
    expect(error).toBeNull();

    const starts = fake.requests
      .slice(before)
      .filter((r) => r.path.endsWith("/transactions"))
      .map((r) => r.query.get("start_date"));
    expect(new Set(starts)).toEqual(new Set([daysAgo(13)]));
    expect(store.cursor).toBe(today());
    expect(store.byId(pendingChecking.id)).toMatchObject({ pending: false, amount: "4.75" });
    expect(store.byId(pendingCard.id)).toBeUndefined();
    expect(store.byId(replacement.id)).toMatchObject({ pending: false, amount: "5.25" });
    const expected = enrollment.accounts.flatMap((a) => fake.liveIds(a)).sort();
    expect(store.ids()).toEqual(expected);
  });

  it("skips a closed account (410 account.closed) and syncs the others", async () => {
    const enrollment = fake.createEnrollment(2);
    const [checking, savings] = enrollment.accounts;
    fake.closeAccount(savings);
    const pages = await collect(teller.sync(creds(enrollment), null));
    const skipped = pages.flatMap((p) => p.skipped);
    expect(skipped).toEqual([{ row: `account ${savings.id}`, reason: "account closed" }]);
    expect(pages.flatMap((p) => p.windows).map((w) => w.providerAccountId)).not.toContain(savings.id);
    expect(pages.flatMap((p) => p.added).some((t) => t.providerAccountId === checking.id)).toBe(true);

    // A 410 on the transactions call itself (closed between the two calls) is skipped the same way.
    const other = fake.createEnrollment(1);
    fake.faults.add(`/accounts/${other.accounts[0].id}/transactions`, {
      kind: "status",
      status: 410,
      code: "account.closed",
    });
    const again = await collect(teller.sync(creds(other), null));
    expect(again.flatMap((p) => p.skipped).map((s) => s.reason)).toEqual(["account closed"]);
  });
});

describe("Teller failures", () => {
  it("says reauth_required for a disconnected enrollment, and the same token works after repair", async () => {
    const enrollment = fake.createEnrollment(1);
    fake.disconnect(enrollment, "user_action.mfa_required");
    const err = await failure(collect(teller.sync(creds(enrollment), null)));
    expect([err.failure, err.code]).toEqual(["reauth_required", "ITEM_LOGIN_REQUIRED"]);
    expect(err.message).toContain("enrollment.disconnected.user_action.mfa_required");
    fake.repair(enrollment);
    expect((await collect(teller.sync(creds(enrollment), null))).at(-1)!.nextCursor).toBe(today());
  });

  it("says rate_limited on 429 and unavailable on a 502, then succeeds", async () => {
    const enrollment = fake.createEnrollment(1);
    fake.faults.add("/accounts", { kind: "status", status: 429 });
    const limited = await failure(teller.accounts(creds(enrollment)));
    expect([limited.failure, limited.code]).toEqual(["rate_limited", "RATE_LIMITED"]);
    fake.faults.add(`/accounts/${enrollment.accounts[0].id}/transactions`, { kind: "status", status: 502 });
    const down = await failure(collect(teller.sync(creds(enrollment), null)));
    expect([down.failure, down.code]).toEqual(["unavailable", "PROVIDER_UNAVAILABLE"]);
    expect((await collect(teller.sync(creds(enrollment), null))).flatMap((p) => p.added)).toHaveLength(6);
  });

  it("retries a transactions call that timed out, and says unavailable when every try times out", async () => {
    const enrollment = fake.createEnrollment(1);
    const path = `/accounts/${enrollment.accounts[0].id}/transactions`;
    const patient = provider({ timeoutMs: 200, retry: { tries: 2, firstDelayMs: 10, maxWaitMs: 0 } });
    fake.faults.add(path, { kind: "slow", ms: 500 });
    const before = fake.requests.length;
    const pages = await collect(patient.sync(creds(enrollment), null));
    expect(pages.flatMap((p) => p.added)).toHaveLength(6);
    expect(fake.requests.slice(before).filter((r) => r.path === path)).toHaveLength(2);

    fake.faults.add(path, { kind: "slow", ms: 500 }, 2);
    const err = await failure(collect(patient.sync(creds(enrollment), null)));
    expect([err.failure, err.message]).toEqual(["unavailable", "Teller: the request timed out"]);
  });

  it("says unavailable, claiming no window, when from_id paging does not advance", async () => {
    const enrollment = fake.createEnrollment(4);
    fake.ignoreFromId = true;
    try {
      const store = new LedgerStub();
      const { pages, error } = await drain(provider({ pageSize: 2 }).sync(creds(enrollment), null), store);
      expect(pages).toEqual([]);
      expect((error as ProviderError).message).toBe("Teller: transactions paging did not advance");
    } finally {
      fake.ignoreFromId = false;
    }
  });

  it("says unavailable on malformed JSON", async () => {
    const enrollment = fake.createEnrollment(1);
    fake.faults.add("/accounts", { kind: "malformed" });
    const err = await failure(teller.accounts(creds(enrollment)));
    expect([err.failure, err.message]).toEqual(["unavailable", "Teller: malformed JSON from GET /accounts"]);
  });

  it("removes the enrollment with DELETE /accounts; the token is then revoked; removing again is fine", async () => {
    const enrollment = fake.createEnrollment(1);
    await teller.remove(creds(enrollment));
    expect(fake.requests.at(-1)).toMatchObject({ method: "DELETE", path: "/accounts" });
    const err = await failure(teller.accounts(creds(enrollment)));
    expect([err.failure, err.code]).toEqual(["revoked", "ACCESS_REVOKED"]);
    await expect(teller.remove(creds(enrollment))).resolves.toBeUndefined();
  });
});

describe("Teller webhook verification", () => {
  const verify = (body: string, signature: string | undefined, p = teller) =>
    p.verifyWebhook(signature === undefined ? {} : { "Teller-Signature": signature }, Buffer.from(body));

  it.each([
    ["enrollment.disconnected", { enrollment_id: "enr_1", reason: "disconnected.account_locked" }, "reauth_required"],
    ["transactions.processed", { enrollment_id: "enr_1", transactions: [] }, "sync"],
    [
      "account.number_verification.processed",
      { enrollment_id: "enr_1", account_id: "acc_1", status: "completed" },
      "none",
    ],
    ["webhook.test", {}, "none"],
  ])("accepts a signed %s and answers %o → %s", async (type, payload, action) => {
    const body = fake.webhookBody(type, payload);
    const event = await verify(body, fake.signWebhook(body));
    expect(event).toMatchObject({ type, action, eventId: expect.stringMatching(/^wh_/) });
    expect(event.providerItemIds).toEqual(type === "webhook.test" ? [] : ["enr_1"]);
  });

  it("names a delivery by its signature's timestamp and the body's hash (its replay key)", async () => {
    const body = fake.webhookBody("transactions.processed", { enrollment_id: "enr_1", transactions: [] });
    const t = Math.floor(Date.now() / 1000) - 5;
    const event = await verify(body, fake.signWebhook(body, { t }));
    expect(event).toMatchObject({
      replayKey: `${t}:${createHash("sha256").update(body).digest("hex")}`,
      signedAt: new Date(t * 1000),
    });
    expect((await verify(body, fake.signWebhook(body, { t: t + 1 }))).replayKey).not.toBe(event.replayKey);
  });

  it("accepts either secret while one is being rotated", async () => {
    const body = fake.webhookBody("webhook.test", {});
    const rotating = provider({ webhookSecrets: ["whsec_old", "whsec_new"] });
    const signature = fake.signWebhook(body, { secrets: ["whsec_new", "whsec_newer"] });
    expect((await verify(body, signature, rotating)).type).toBe("webhook.test");
  });

  it.each([
    [
      "a stale t",
      (b: string) => fake.signWebhook(b, { t: Math.floor(Date.now() / 1000) - 181 }),
      /more than 3 minutes/,
    ],
    ["another secret", (b: string) => fake.signWebhook(b, { secrets: ["whsec_wrong"] }), /bad signature/],
    ["a changed body", (b: string) => fake.signWebhook(b.replace("enr_1", "enr_2")), /bad signature/],
    ["no v1", () => `t=${Math.floor(Date.now() / 1000)}`, /no v1/],
    ["no header", () => undefined, /no Teller-Signature/],
  ])("rejects %s as INVALID_SIGNATURE", async (_what, sign, message) => {
    const body = fake.webhookBody("transactions.processed", { enrollment_id: "enr_1", transactions: [] });
    const err = await failure(verify(body, sign(body)));
    expect([err.failure, err.code]).toEqual(["invalid_input", "INVALID_SIGNATURE"]);
    expect(err.message).toMatch(message);
  });

  it("rejects every webhook when no secret is configured", async () => {
    const body = fake.webhookBody("webhook.test", {});
    const err = await failure(verify(body, fake.signWebhook(body), provider({ webhookSecrets: [] })));
    expect(err.message).toMatch(/TELLER_WEBHOOK_SECRETS/);
  });
});
