import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ProviderError } from "../../services/sync/providers/provider.js";
import { SimplefinProvider, type SimplefinOptions } from "../../services/sync/providers/simplefin/index.js";
import { daysAgo } from "../fakes/http.js";
import { CAP_WARNING, FakeSimplefin } from "../fakes/simplefin/server.js";
import { LedgerStub, collect, drain } from "../helpers/provider-pages.js";

let fake: FakeSimplefin;
let simplefin: SimplefinProvider;
let credentials: { access_url: string };

const provider = (extra: SimplefinOptions = {}) => new SimplefinProvider({ timeoutMs: 2_000, ...extra });
const today = () => daysAgo(0);
const dayOf = (unix: string | null) => new Date(Number(unix) * 1000).toISOString().slice(0, 10);

async function failure(promise: Promise<unknown>): Promise<ProviderError> {
  const err = await promise.then(
    () => null,
    (e: unknown) => e,
  );
  expect(err).toBeInstanceOf(ProviderError);
  return err as ProviderError;
}

beforeAll(async () => {
  fake = await new FakeSimplefin().start();
  simplefin = provider();
  credentials = (await simplefin.enroll({ setup_token: fake.createSetupToken() })).credentials as typeof credentials;
});

afterAll(async () => {
  await fake.stop();
});

describe("SimpleFIN setup tokens", () => {
  it("claims a pasted token (trailing newline and all) for an access URL and names the institutions", async () => {
    const enrollment = await simplefin.enroll({ setup_token: fake.createSetupToken({ trailingNewline: true }) });
    expect(enrollment.credentials.access_url).toMatch(new RegExp(`^http://\\w+:\\w+@127\\.0\\.0\\.1:\\d+/simplefin$`));
    expect(enrollment.institutionName).toBe("First Demo Bank, Second Credit Union");
    expect(enrollment.institutionId).toBeNull();
    expect(enrollment.providerItemId).toMatch(/^[0-9a-f]{32}$/);
    expect(enrollment.providerItemId).not.toContain(new URL(enrollment.credentials.access_url as string).username);
  });

  it("refuses a token claimed before, saying it may be compromised", async () => {
    const token = fake.createSetupToken();
    await simplefin.enroll({ setup_token: token });
    const err = await failure(simplefin.enroll({ setup_token: token }));
    expect([err.failure, err.code]).toEqual(["invalid_input", "INVALID_CREDENTIALS"]);
    expect(err.message).toMatch(/may be compromised/);
  });

  it.each([
    ["not base64", "%%%"],
    ["not a URL", Buffer.from("hello").toString("base64")],
    ["plain http to another host", Buffer.from("http://bridge.example/claim/abc").toString("base64")],
  ])("refuses a setup token that is %s", async (_what, token) => {
    const err = await failure(simplefin.enroll({ setup_token: token }));
    expect(err.failure).toBe("invalid_input");
  });

  it("needs no link session and no server configuration", async () => {
    expect(await simplefin.createLinkSession()).toBeNull();
    expect(simplefin.info()).toMatchObject({ configured: true, needsLinkSession: false });
  });
});

describe("SimpleFIN accounts", () => {
  it("lists balances (available = balance when left out) and leaves out a custom currency", async () => {
    const before = fake.requests.length;
    const accounts = await simplefin.accounts(credentials);
    expect(accounts.map((a) => [a.providerAccountId, a.isoCurrencyCode, a.balanceCurrent, a.balanceAvailable])).toEqual(
      [
        ["ACT-checking", "USD", "1520.34", "1520.34"],
        ["ACT-savings", "USD", "1200.00", "1100.00"],
        ["ACT-card", "USD", "-33293.43", "-33293.43"],
      ],
    );
    expect(fake.requests[before].get("balances-only")).toBe("1");
  });

  it("reads a v1-only server the same way", async () => {
    fake.v1Only = true;
    try {
      expect((await simplefin.accounts(credentials)).map((a) => a.name)).toEqual(["Checking", "Savings", "Visa"]);
    } finally {
      fake.v1Only = false;
    }
  });
});

describe("SimpleFIN sync", () => {
  it("reads a year in start-date windows of at most 90 days, with pending rows, into one page", async () => {
    const before = fake.requests.length;
    const pages = await collect(simplefin.sync(credentials, null));
    const queries = fake.requests.slice(before);
    expect(queries.map((q) => [dayOf(q.get("start-date")), dayOf(q.get("end-date"))])).toEqual([
      [daysAgo(365), daysAgo(275)],
      [daysAgo(275), daysAgo(185)],
      [daysAgo(185), daysAgo(95)],
      [daysAgo(95), daysAgo(5)],
      [daysAgo(5), daysAgo(-1)],
    ]);
    expect(queries.every((q) => q.get("pending") === "1" && q.get("version") === "2")).toBe(true);

    expect(pages).toHaveLength(1);
    const [page] = pages;
    expect(page.nextCursor).toBe(today());
    const amount = (account: string, id: string) =>
      page.added.find((t) => t.providerAccountId === account && t.providerTransactionId === id)?.amount;
    // Coffer = −(SimpleFIN): a deposit of "1200" is money in, a purchase of "-33293.43" money out.
    expect(amount("ACT-checking", "TRN-shared-1")).toBe("-1200.00");
    expect(amount("ACT-card", "TRN-shared-1")).toBe("33293.43");
    expect(amount("ACT-checking", "TRN-c3")).toBe("0.00");
    expect(amount("ACT-card", "TRN-v2")).toBe("-50.00");
    expect(page.added.find((t) => t.providerTransactionId === "TRN-c4")).toMatchObject({
      pending: true,
      date: daysAgo(1),
      authorizedDate: daysAgo(1),
      amount: "12.00",
    });
    expect(page.added.find((t) => t.providerTransactionId === "TRN-c2")).toMatchObject({
      categoryPrimary: "groceries",
    });
    expect(page.added.find((t) => t.providerTransactionId === "TRN-v2")).toMatchObject({
      merchantName: "Shop",
      name: "REFUND",
    });
    expect(page.skipped).toEqual([
      { row: "account ACT-points", reason: "custom currency https://rewards.example/points is not supported" },
    ]);
    expect(page.windows).toEqual(
      ["ACT-checking", "ACT-savings", "ACT-card"].map((id) => ({
        providerAccountId: id,
        from: daysAgo(365),
        to: today(),
      })),
    );
  });

  it("re-reads 10 days before the cursor; a pending row replaced under a new id goes away", async () => {
    const pending = fake.addTransaction("ACT-savings", {
      posted: 0,
      pending: true,
      amount: "-7.00",
      description: "FEE PENDING",
    });
    const store = new LedgerStub();
    await drain(simplefin.sync(credentials, null), store);
    expect(store.byId(pending.id)).toMatchObject({ pending: true, date: today(), amount: "7.00" });

    const posted = fake.postUnderNewId("ACT-savings", pending.id, { posted: Math.floor(Date.now() / 1000) - 60 });
    const before = fake.requests.length;
    await drain(simplefin.sync(credentials, daysAgo(2)), store);
    const queries = fake.requests.slice(before);
    expect(queries.map((q) => [dayOf(q.get("start-date")), dayOf(q.get("end-date"))])).toEqual([
      [daysAgo(12), daysAgo(-1)],
    ]);
    expect(store.byId(pending.id)).toBeUndefined();
    expect(store.byId(posted.id)).toMatchObject({ pending: false, amount: "7.00", date: today(), name: "FEE" });
    expect(store.byId("TRN-c4")).toMatchObject({ pending: true });
  });

  it("keeps what came when a login is needed (v2 con.auth), holds the cursor, says reauth_required", async () => {
    fake.needsReauth("CON-second");
    try {
      const store = new LedgerStub();
      store.cursor = daysAgo(30);
      const { pages, error } = await drain(simplefin.sync(credentials, daysAgo(30)), store);
      expect(pages).toHaveLength(1);
      expect(pages[0].nextCursor).toBe(daysAgo(30));
      expect(new Set(pages[0].added.map((t) => t.providerAccountId))).toEqual(new Set(["ACT-checking", "ACT-savings"]));
      expect(pages[0].windows.map((w) => w.providerAccountId)).toEqual(["ACT-checking", "ACT-savings"]);
      expect(pages[0].skipped).toEqual([
        { row: "account set", reason: "SimpleFIN con.auth: You must reauthenticate with Second Credit Union." },
      ]);
      expect(error).toBeInstanceOf(ProviderError);
      expect([(error as ProviderError).failure, (error as ProviderError).code]).toEqual([
        "reauth_required",
        "ITEM_LOGIN_REQUIRED",
      ]);
    } finally {
      fake.needsReauth("CON-second", false);
    }
  });

  it("reads a v1 'You must reauthenticate.' the same way, claiming no window at all", async () => {
    fake.needsReauth("CON-first");
    fake.v1Only = true;
    try {
      const { pages, error } = await drain(simplefin.sync(credentials, daysAgo(30)), new LedgerStub());
      expect(pages[0].added.map((t) => t.providerAccountId)).toContain("ACT-card");
      expect(pages[0].windows).toEqual([]);
      expect((error as ProviderError).failure).toBe("reauth_required");
      expect((error as ProviderError).message).toBe("SimpleFIN: You must reauthenticate.");
    } finally {
      fake.needsReauth("CON-first", false);
      fake.v1Only = false;
    }
  });

  it("reports an account the bridge could not read (act.failed), claims no window, holds the cursor", async () => {
    fake.failAccount("ACT-savings");
    try {
      const { pages, error } = await drain(simplefin.sync(credentials, daysAgo(30)), new LedgerStub());
      expect(error).toBeNull();
      expect(pages[0].skipped.map((s) => s.row)).toEqual(["account ACT-points", "account ACT-savings"]);
      expect(pages[0].skipped[1].reason).toMatch(/^SimpleFIN act\.failed: /);
      expect(pages[0].windows.map((w) => w.providerAccountId)).toEqual(["ACT-checking", "ACT-card"]);
      expect(pages[0].nextCursor).toBe(daysAgo(30));
    } finally {
      fake.failAccount("ACT-savings", false);
    }
  });

  it("asks no window over 90 days, so the cap warning never applies; a warning claims no window", async () => {
    const long = provider({ historyDays: 1000 });
    const before = fake.requests.length;
    const [page] = await collect(long.sync(credentials, null));
    const spans = fake.requests.slice(before).map((q) => Number(q.get("end-date")) - Number(q.get("start-date")));
    expect(Math.max(...spans)).toBeLessThanOrEqual(90 * 86_400);
    expect(page.skipped.map((s) => s.reason)).not.toContain(`SimpleFIN gen.api: ${CAP_WARNING}`);

    fake.quota = { warnAt: 0, blockAt: 1_000 };
    try {
      const [warned] = await collect(simplefin.sync(credentials, daysAgo(5)));
      expect(warned.skipped.at(-1)!.reason).toMatch(/^SimpleFIN gen\.api: You are near your daily request limit/);
      expect(warned.windows).toEqual([]);
      expect(warned.nextCursor).toBe(today());
    } finally {
      fake.quota = { warnAt: 1_000, blockAt: 2_000 };
    }
  });
});

describe("SimpleFIN failures", () => {
  it("says unavailable on a 5xx, a timeout and malformed JSON", async () => {
    fake.faults.add("/simplefin/accounts", { kind: "status", status: 500 });
    expect((await failure(simplefin.accounts(credentials))).message).toBe("SimpleFIN: HTTP 500");
    fake.faults.add("/simplefin/accounts", { kind: "slow", ms: 600 });
    const slow = await failure(collect(provider({ timeoutMs: 150 }).sync(credentials, null)));
    expect([slow.failure, slow.message]).toEqual(["unavailable", "SimpleFIN: the request timed out"]);
    fake.faults.add("/simplefin/accounts", { kind: "malformed" });
    const garbled = await failure(simplefin.accounts(credentials));
    expect([garbled.failure, garbled.message]).toEqual(["unavailable", "SimpleFIN: malformed JSON from /accounts"]);
    expect(await simplefin.accounts(credentials)).toHaveLength(3);
  });

  it("says revoked (PAYMENT_REQUIRED) on a 402", async () => {
    fake.lapse();
    try {
      const err = await failure(simplefin.accounts(credentials));
      expect([err.failure, err.code]).toEqual(["revoked", "PAYMENT_REQUIRED"]);
    } finally {
      fake.lapse(false);
    }
  });

  it("says reauth_required on a 403: a revoked access URL, or one disabled for too many requests", async () => {
    const own = await new FakeSimplefin().start();
    try {
      const p = provider();
      const one = (await p.enroll({ setup_token: own.createSetupToken() })).credentials;
      const two = (await p.enroll({ setup_token: own.createSetupToken() })).credentials;
      own.quota = { warnAt: 1_000, blockAt: own.requests.length + 1 };
      await p.accounts(two);
      const blocked = await failure(p.accounts(two));
      expect([blocked.failure, blocked.code]).toEqual(["reauth_required", "ITEM_LOGIN_REQUIRED"]);
      own.quota = { warnAt: 1_000, blockAt: 1_000 };
      own.resetQuota();
      expect(await p.accounts(one)).toHaveLength(3);
      own.revokeAll();
      const revoked = await failure(collect(p.sync(one, null)));
      expect([revoked.failure, revoked.code]).toEqual(["reauth_required", "ITEM_LOGIN_REQUIRED"]);
      expect(revoked.message).not.toContain(new URL(one.access_url as string).password);
    } finally {
      await own.stop();
    }
  });
});
