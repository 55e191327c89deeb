import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { readEnv } from "../../common/env.js";
import { CofferError } from "../../services/errors/coffer-error.js";
import { ProviderError } from "../../services/sync/providers/provider.js";
import { providersFromEnv } from "../../services/sync/registry.js";
import { FakePlaid } from "../fakes/plaid/server.js";
import { FakeSimplefin } from "../fakes/simplefin/server.js";
import { makeTestPki, type TestPki } from "../fakes/teller/pki.js";
import { FakeTeller } from "../fakes/teller/server.js";

// The registry built from the environment alone, as the core and the CLI build it: each variable
// reaches its client, and each client then talks to its local fake.

let pki: TestPki;
let plaid: FakePlaid;
let teller: FakeTeller;
let simplefin: FakeSimplefin;

beforeAll(async () => {
  pki = makeTestPki();
  plaid = await new FakePlaid().start();
  teller = await new FakeTeller(pki).start();
  simplefin = await new FakeSimplefin().start();
});
afterAll(async () => {
  await Promise.all([plaid.stop(), teller.stop(), simplefin.stop()]);
  pki.remove();
});

const fromEnv = (env: Record<string, string>) => {
  const e = readEnv(env);
  return providersFromEnv({ plaid: e.plaid, teller: e.teller, simplefin: e.simplefin });
};

const tellerEnv = () => ({
  TELLER_APPLICATION_ID: "app_test_coffer",
  TELLER_BASE_URL: teller.url,
  TELLER_CERT: pki.clientCertPath,
  TELLER_KEY: pki.clientKey,
  TELLER_CA: pki.caCertPath,
  TELLER_WEBHOOK_SECRETS: teller.webhookSecrets.join(","),
});

describe("providers from the environment", () => {
  it("lists all four; Plaid and Teller without settings are not configured and refuse every call", async () => {
    const registry = fromEnv({});
    expect(registry.all().map((p) => [p.name, p.info().configured])).toEqual([
      ["plaid", false],
      ["teller", false],
      ["simplefin", true],
      ["csv", true],
    ]);
    expect(Object.keys(registry.get("plaid").info().credentialsSchema)).toEqual(["public_token"]);
    expect(() => registry.configured("teller")).toThrow(/Provider teller is not configured/);
    const plaidLink = await registry
      .get("plaid")
      .createLinkSession({ clientUserId: "u" })
      .catch((e: unknown) => e);
    expect(plaidLink).toBeInstanceOf(CofferError);
    expect((plaidLink as CofferError).code).toBe("PROVIDER_NOT_CONFIGURED");
    // Webhooks to them reach the "not configured" answer, not "sends no webhooks".
    expect("verifyWebhook" in registry.get("plaid")).toBe(true);
    expect("verifyWebhook" in registry.get("csv")).toBe(false);
  });

  it("builds Plaid from PLAID_CLIENT_ID, PLAID_SECRET, PLAID_BASE_URL and PLAID_WEBHOOK_URL", async () => {
    const registry = fromEnv({
      PLAID_CLIENT_ID: plaid.clientId,
      PLAID_SECRET: plaid.secret,
      PLAID_BASE_URL: plaid.url,
      PLAID_WEBHOOK_URL: "https://coffer.example/webhooks/plaid",
    });
    const p = registry.configured("plaid");
    const session = await p.createLinkSession({ clientUserId: "user-1" });
    expect(session?.linkToken).toMatch(/^link-sandbox-/);
    expect(plaid.requests.at(-1)).toMatchObject({
      path: "/link/token/create",
      body: { webhook: "https://coffer.example/webhooks/plaid", user: { client_user_id: "user-1" } },
    });
    const { publicToken, item } = plaid.createPublicToken();
    expect(await p.enroll({ public_token: publicToken })).toMatchObject({ providerItemId: item.itemId });
  });

  it("refuses Plaid with the wrong secret as misconfigured", async () => {
    const registry = fromEnv({ PLAID_CLIENT_ID: plaid.clientId, PLAID_SECRET: "wrong", PLAID_BASE_URL: plaid.url });
    const err = await registry
      .get("plaid")
      .createLinkSession({ clientUserId: "u" })
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).failure).toBe("misconfigured");
  });

  it("builds Teller with the client certificate and TELLER_CA, over mTLS to the fake", async () => {
    const registry = fromEnv(tellerEnv());
    const enrollment = teller.createEnrollment(2);
    const accounts = await registry
      .configured("teller")
      .accounts({ access_token: enrollment.token, enrollment_id: enrollment.id });
    expect(accounts.map((a) => a.name)).toEqual(["Checking", "Savings", "Platinum Card"]);
    // The secrets reach the webhook check.
    const body = teller.webhookBody("transactions.processed", { enrollment_id: enrollment.id });
    const event = await registry.get("teller").verifyWebhook!(
      { "teller-signature": teller.signWebhook(body) },
      Buffer.from(body),
    );
    expect(event).toMatchObject({ action: "sync", providerItemIds: [enrollment.id] });
  });

  it("takes TELLER_CA as PEM text too; without it the fake's certificate is not trusted", async () => {
    const enrollment = teller.createEnrollment(1);
    const creds = { access_token: enrollment.token, enrollment_id: enrollment.id };
    const inline = fromEnv({ ...tellerEnv(), TELLER_CA: pki.caCert.replace(/\n/g, "\\n") });
    expect(await inline.configured("teller").accounts(creds)).toHaveLength(3);
    const { TELLER_CA: _ca, ...untrusted } = tellerEnv();
    const err = await fromEnv(untrusted)
      .configured("teller")
      .accounts(creds)
      .catch((e: unknown) => e);
    expect(err).toBeInstanceOf(ProviderError);
    expect((err as ProviderError).failure).toBe("unavailable");
  });

  it("builds SimpleFIN with SIMPLEFIN_TIMEOUT_SECONDS", async () => {
    const registry = fromEnv({ SIMPLEFIN_TIMEOUT_SECONDS: "1" });
    const sf = registry.configured("simplefin");
    const enrolled = await sf.enroll({ setup_token: simplefin.createSetupToken() });
    expect(enrolled.credentials.access_url).toMatch(/^http:\/\/.+@127\.0\.0\.1/);
    simplefin.faults.add("/simplefin/accounts", { kind: "slow", ms: 2_500 });
    const t0 = Date.now();
    const err = await sf.accounts(enrolled.credentials).catch((e: unknown) => e);
    expect((err as ProviderError).code).toBe("PROVIDER_UNAVAILABLE");
    expect(Date.now() - t0).toBeLessThan(2_400);
  });
});
