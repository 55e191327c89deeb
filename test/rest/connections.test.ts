import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { query } from "../../services/db/sql.js";
import { CsvProvider } from "../../services/sync/providers/csv/provider.js";
import { ProviderError } from "../../services/sync/providers/provider.js";
import { ProviderRegistry } from "../../services/sync/registry.js";
import { newUser } from "../helpers/ledger.js";
import { expectEnvelope, key } from "../helpers/rest.js";
import { account, ScriptedProvider, tx } from "../helpers/scripted-provider.js";
import { startStack, type Stack } from "../helpers/stack.js";
import { waitFor } from "../helpers/wait.js";

// The provider and connection endpoints over REST, in front of a real core whose registry holds
// a scripted provider as "plaid", one without configuration as "teller", one that takes no link
// session as "simplefin", and the real CSV provider. The scheduler runs: syncs happen as jobs.

const plaid = new ScriptedProvider("plaid");
const teller = new ScriptedProvider("teller", { configured: false });
const simplefin = new ScriptedProvider("simplefin", { linkSession: false });

let s: Stack;
let ann: { id: string; shortId: string };
beforeAll(async () => {
  s = await startStack(
    {},
    {
      sync: {
        registry: new ProviderRegistry([plaid, teller, simplefin, new CsvProvider()]),
        scheduler: { pollingIntervalSeconds: 0.5, retryDelaySeconds: 1 },
      },
    },
  );
  ann = await newUser(s.orm.em.fork(), "Ann");
});
afterAll(async () => {
  await s?.close();
});

const req = (method: "GET" | "POST" | "DELETE", url: string, payload?: object, apiKey = s.adminKey) =>
  s.rest.inject({ method, url, headers: key(apiKey), ...(payload ? { payload } : {}) });

const SPEC_FIELDS = [
  "id",
  "short_id",
  "institution_name",
  "institution_id",
  "provider",
  "status",
  "last_synced_at",
  "error_code",
  "error_message",
  "user_id",
  "user_name",
  "created_at",
  "updated_at",
  // Rows the newest sync that skipped any could not store (docs/sync.md, "Faults").
  "warnings",
  "warning_rows",
  "warnings_sync_log_id",
];

let items = 0;
async function connect(credentials: object = {}) {
  const res = await req("POST", "/api/v1/connections", {
    provider: "plaid",
    user_id: ann.shortId,
    credentials: { token: "public-1", item: `item-${++items}`, ...credentials },
  });
  expect(res.statusCode).toBe(201);
  return res.json();
}

const syncLogsOf = (connectionId: string) =>
  query<{ status: string; trigger: string; added: number }>(
    s.orm.em.fork(),
    `select status, trigger, added from sync_logs where connection_id = ? and status <> 'running' order by started_at`,
    [connectionId],
  );

describe("providers", () => {
  it("GET /providers lists every provider entry: name, configured, link flag, capabilities, schema", async () => {
    const res = await req("GET", "/api/v1/providers", undefined, s.readKey);
    expect(res.statusCode).toBe(200);
    const { providers } = res.json();
    expect(providers.map((p: { name: string }) => p.name)).toEqual(["plaid", "teller", "simplefin", "csv"]);
    expect(providers[1]).toMatchObject({ name: "teller", configured: false });
    const csv = providers[3];
    expect(Object.keys(csv)).toEqual([
      "name",
      "configured",
      "needs_link_session",
      "capabilities",
      "credentials_schema",
    ]);
    expect(csv).toMatchObject({
      configured: true,
      needs_link_session: false,
      capabilities: ["transactions", "file_import"],
    });
    expect(csv.credentials_schema.account_name).toEqual({
      type: "string",
      required: true,
      description: expect.any(String),
    });
    expect(csv.credentials_schema.date_format.required).toBe(false);
  });

  it("GET /providers/{name} answers one entry, and 404 for a name that is no provider", async () => {
    expect((await req("GET", "/api/v1/providers/plaid")).json()).toMatchObject({
      name: "plaid",
      needs_link_session: true,
    });
    expectEnvelope(await req("GET", "/api/v1/providers/mint"), "NOT_FOUND", /Provider "mint" not found/);
  });

  it("POST /providers/{name}/link-session: 200 with a token, 204 when none is needed", async () => {
    const res = await req("POST", "/api/v1/providers/plaid/link-session", { user_id: ann.shortId });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ link_token: `link-new-${ann.id}`, expiration: "2030-01-01T00:00:00.000Z" });
    const none = await req("POST", "/api/v1/providers/csv/link-session", { user_id: ann.shortId });
    expect(none.statusCode).toBe(204);
    expect(none.body).toBe("");
  });

  it("POST /providers/{name}/link-session: not configured 400, upstream failure 502, unknown user 404", async () => {
    expectEnvelope(
      await req("POST", "/api/v1/providers/teller/link-session", { user_id: ann.shortId }),
      "PROVIDER_NOT_CONFIGURED",
      /teller is not configured/,
    );
    plaid.failNext = {
      method: "link",
      error: new ProviderError("unavailable", "PROVIDER_UNAVAILABLE", "Plaid answered 500"),
    };
    expectEnvelope(
      await req("POST", "/api/v1/providers/plaid/link-session", { user_id: ann.shortId }),
      "PROVIDER_ERROR",
      "plaid: Plaid answered 500",
    );
    expectEnvelope(await req("POST", "/api/v1/providers/plaid/link-session", { user_id: "nobody00" }), "NOT_FOUND");
    expectEnvelope(await req("POST", "/api/v1/providers/plaid/link-session", {}), "INVALID_PARAMETER", /user_id/);
    expectEnvelope(
      await req("POST", "/api/v1/providers/plaid/link-session", { user_id: ann.shortId }, s.readKey),
      "INSUFFICIENT_SCOPE",
    );
  });
});

describe("POST /api/v1/connections", () => {
  it.each([
    [{ provider: "plaid", credentials: {} }, "credentials.token is required"],
    [{ provider: "plaid", credentials: { token: 7 } }, "credentials.token must be a string"],
    [{ provider: "plaid", credentials: { token: "t", days: "ten" } }, "credentials.days must be an integer"],
    [{ provider: "plaid", credentials: { token: "t", pin: "1234" } }, "credentials.pin is not a plaid credential"],
    [{ provider: "plaid", credentials: { token: "bad" } }, "the token is unknown"],
  ])("refuses bad credentials with 400 VALIDATION_ERROR naming the field: %o", async (body, message) => {
    const res = await req("POST", "/api/v1/connections", { user_id: ann.shortId, ...body });
    expectEnvelope(res, "VALIDATION_ERROR", new RegExp(message.replace(/[.]/g, "\\.")));
  });

  it("answers 404 for an unknown provider and 400 for one without configuration", async () => {
    const body = { user_id: ann.shortId, credentials: { token: "t" } };
    expectEnvelope(await req("POST", "/api/v1/connections", { ...body, provider: "mint" }), "NOT_FOUND");
    expectEnvelope(
      await req("POST", "/api/v1/connections", { ...body, provider: "teller" }),
      "PROVIDER_NOT_CONFIGURED",
    );
  });

  it("creates the connection (201), never returns its credentials, and runs its first sync as a job", async () => {
    plaid.accountList = [account("acc-1")];
    plaid.push({ added: [tx("first-1"), tx("first-2")] });
    const c = await connect({ token: "public-secret-token" });
    expect(Object.keys(c)).toEqual([...SPEC_FIELDS, "paused"]);
    expect(c).toMatchObject({
      provider: "plaid",
      status: "active",
      institution_name: "First Platypus Bank",
      institution_id: "ins_1",
      user_id: ann.shortId,
      user_name: "Ann",
      last_synced_at: null,
      error_code: null,
      error_message: null,
      paused: false,
    });
    expect(JSON.stringify(c)).not.toMatch(/secret|access-/);
    const logs = await waitFor(async () => (await syncLogsOf(c.id)).find((l) => l.status === "success"), "first sync");
    expect(logs).toMatchObject({ trigger: "initial", added: 2 });
    const after = (await req("GET", `/api/v1/connections/${c.short_id}`)).json();
    expect(after.last_synced_at).toMatch(/Z$/);
    expect(JSON.stringify(after)).not.toMatch(/secret|access-|credentials/);
    const [row] = await query<{ credentials: Buffer }>(
      s.orm.em.fork(),
      `select credentials from connections where id = ?`,
      [c.id],
    );
    expect(row.credentials.toString("latin1")).not.toMatch(/public-secret-token|access-/);
  });
});

describe("GET /api/v1/connections", () => {
  it("is a bare array of every connection with exactly the listing's fields", async () => {
    await connect();
    const res = await req("GET", "/api/v1/connections", undefined, s.readKey);
    expect(res.statusCode).toBe(200);
    const list = res.json();
    expect(Array.isArray(list)).toBe(true);
    expect(list.length).toBeGreaterThanOrEqual(1);
    for (const c of list) expect(Object.keys(c)).toEqual(SPEC_FIELDS);
  });

  it("GET /connections/{id} takes the UUID or the short id; anything else is 404", async () => {
    const c = await connect();
    expect((await req("GET", `/api/v1/connections/${c.id}`)).json().short_id).toBe(c.short_id);
    expect((await req("GET", `/api/v1/connections/${c.short_id}`)).json().id).toBe(c.id);
    expectEnvelope(await req("GET", "/api/v1/connections/not-an-id"), "NOT_FOUND");
    expectEnvelope(await req("GET", "/api/v1/connections/zzzzzzzz"), "NOT_FOUND");
  });
});

describe("actions on a connection", () => {
  it("POST /sync answers 202 and the sync runs", async () => {
    const c = await connect();
    await waitFor(async () => (await syncLogsOf(c.id)).length === 1, "first sync");
    const res = await req("POST", `/api/v1/connections/${c.short_id}/sync`);
    expect(res.statusCode).toBe(202);
    expect(res.json()).toMatchObject({
      status: "queued",
      already_pending: false,
      sync: { state: "waiting", retries: 0 },
      connection: { id: c.id, warnings: 0, warning_rows: [], warnings_sync_log_id: null },
    });
    await waitFor(async () => (await syncLogsOf(c.id)).some((l) => l.trigger === "manual"), "manual sync");
    expectEnvelope(
      await req("POST", `/api/v1/connections/${c.short_id}/sync`, undefined, s.readKey),
      "INSUFFICIENT_SCOPE",
    );
  });

  it("POST /paused pauses and resumes", async () => {
    const c = await connect();
    const paused = await req("POST", `/api/v1/connections/${c.id}/paused`, { paused: true });
    expect(paused.json()).toMatchObject({ id: c.id, paused: true });
    expect((await req("GET", `/api/v1/connections/${c.id}`)).json().paused).toBe(true);
    expect((await req("POST", `/api/v1/connections/${c.id}/paused`, { paused: false })).json().paused).toBe(false);
    expectEnvelope(
      await req("POST", `/api/v1/connections/${c.id}/paused`, { paused: "yes" }),
      "INVALID_PARAMETER",
      /paused/,
    );
  });

  it("POST /reauth returns an update-mode link session, or takes new credentials where none exists", async () => {
    const c = await connect();
    const res = await req("POST", `/api/v1/connections/${c.id}/reauth`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ connection: { id: c.id }, link_token: `link-update-${ann.id}` });

    const sf = await req("POST", "/api/v1/connections", {
      provider: "simplefin",
      user_id: ann.shortId,
      credentials: { token: "setup-1", item: "sf-item" },
    });
    expect(sf.statusCode).toBe(201);
    await query(
      s.orm.em.fork(),
      `update connections set status = 'pending_reauth', error_code = 'X', error_message = 'Y' where id = ?`,
      [sf.json().id],
    );
    expectEnvelope(
      await req("POST", `/api/v1/connections/${sf.json().id}/reauth`),
      "VALIDATION_ERROR",
      /new credentials/,
    );
    const again = await req("POST", `/api/v1/connections/${sf.json().id}/reauth`, {
      credentials: { token: "setup-2" },
    });
    expect(again.json()).toMatchObject({
      connection: { status: "active", error_code: null, error_message: null },
      link_token: null,
      expiration: null,
    });
  });

  it("DELETE disconnects: the login is ended, credentials wiped, accounts and transactions kept unlinked", async () => {
    plaid.accountList = [account("acc-del")];
    plaid.push({ added: [tx("del-1", { providerAccountId: "acc-del" })] });
    const c = await connect({ item: "item-delete" });
    await waitFor(async () => (await syncLogsOf(c.id)).some((l) => l.status === "success"), "first sync");
    const accounts = await query<{ id: string }>(s.orm.em.fork(), `select id from accounts where connection_id = ?`, [
      c.id,
    ]);
    expect(accounts).toHaveLength(1);
    expect((await req("GET", `/api/v1/accounts/${accounts[0].id}`)).json()).toMatchObject({
      connection_id: c.short_id,
      provider: "plaid",
      user_id: ann.shortId,
    });
    const removedBefore = plaid.removed.length;

    const res = await req("DELETE", `/api/v1/connections/${c.short_id}`);
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: c.id, status: "disconnected" });
    expect(plaid.removed.length).toBe(removedBefore + 1);
    const [row] = await query<{ credentials: Buffer | null }>(
      s.orm.em.fork(),
      `select credentials from connections where id = ?`,
      [c.id],
    );
    expect(row.credentials).toBeNull();
    const kept = (await req("GET", `/api/v1/accounts/${accounts[0].id}`)).json();
    expect(kept.connection_id).toBeNull();
    const txs = await req("GET", `/api/v1/transactions?account_id=${accounts[0].id}`);
    expect(txs.json().transactions).toHaveLength(1);
    // Still listed, as disconnected; disconnecting again changes nothing; it cannot be synced.
    expect((await req("GET", "/api/v1/connections")).json().find((x: { id: string }) => x.id === c.id).status).toBe(
      "disconnected",
    );
    expect((await req("DELETE", `/api/v1/connections/${c.id}`)).json().status).toBe("disconnected");
    expect(plaid.removed.length).toBe(removedBefore + 1);
    expectEnvelope(await req("POST", `/api/v1/connections/${c.id}/sync`), "CONFLICT");
  });

  it("DELETE is refused (502) and changes nothing while the provider is down", async () => {
    const c = await connect();
    plaid.failNext = { method: "remove", error: new ProviderError("unavailable", "PROVIDER_UNAVAILABLE", "timed out") };
    expectEnvelope(await req("DELETE", `/api/v1/connections/${c.id}`), "PROVIDER_ERROR", /timed out/);
    expect((await req("GET", `/api/v1/connections/${c.id}`)).json().status).not.toBe("disconnected");
  });
});

describe("the schedule", () => {
  it("is a per-minute pg-boss cron job, registered by the core", async () => {
    const rows = await query<{ name: string; cron: string }>(s.orm.em.fork(), `select name, cron from pgboss.schedule`);
    expect(rows).toContainEqual({ name: "coffer-sync-due", cron: "* * * * *" });
  });
});

describe("GET /api/v1/sync/logs", () => {
  it("pages newest first with the shared cursor, filters by connection, and refuses a bad cursor", async () => {
    const c = await connect();
    await waitFor(async () => (await syncLogsOf(c.id)).length === 1, "first sync");
    for (let i = 0; i < 2; i++) {
      await req("POST", `/api/v1/connections/${c.id}/sync`);
      await waitFor(async () => (await syncLogsOf(c.id)).length === i + 2, "another sync");
    }
    const first = (
      await req("GET", `/api/v1/sync/logs?connection_id=${c.short_id}&limit=2`, undefined, s.readKey)
    ).json();
    expect(first.sync_logs).toHaveLength(2);
    expect(first.has_more).toBe(true);
    expect(first.sync_logs[0]).toMatchObject({
      connection_id: c.short_id,
      provider: "plaid",
      status: "success",
      trigger: "manual",
      added: 0,
      modified: 0,
      removed: 0,
      duration_ms: expect.any(Number),
      error_code: null,
      error_message: null,
    });
    const second = (
      await req("GET", `/api/v1/sync/logs?connection_id=${c.short_id}&limit=2&cursor=${first.next_cursor}`)
    ).json();
    expect(second.sync_logs.map((l: { trigger: string }) => l.trigger)).toEqual(["initial"]);
    expect(second).toMatchObject({ has_more: false, next_cursor: "" });
    const all = new Set([...first.sync_logs, ...second.sync_logs].map((l: { id: string }) => l.id));
    expect(all.size).toBe(3);
    expectEnvelope(
      await req("GET", `/api/v1/sync/logs?limit=2&cursor=${first.next_cursor}`),
      "INVALID_CURSOR",
      /different filters/,
    );
    expectEnvelope(await req("GET", "/api/v1/sync/logs?cursor=bogus"), "INVALID_CURSOR");
    expectEnvelope(await req("GET", "/api/v1/sync/logs?limit=501"), "INVALID_PARAMETER");
  });
});

describe("a core without COFFER_ENCRYPTION_KEY", () => {
  it("lists providers but refuses credentials with 500 ENCRYPTION_KEY_MISSING before any provider call", async () => {
    const keyless = new ScriptedProvider("plaid");
    const bare = await startStack(
      { encryptionKey: undefined },
      { sync: { registry: new ProviderRegistry([keyless, new CsvProvider()]) } },
    );
    try {
      const user = await newUser(bare.orm.em.fork(), "Bo");
      const listed = await bare.rest.inject({ method: "GET", url: "/api/v1/providers", headers: key(bare.readKey) });
      expect(listed.statusCode).toBe(200);
      let enrolled = false;
      keyless.enroll = async () => {
        enrolled = true;
        throw new Error("must not be called");
      };
      const res = await bare.rest.inject({
        method: "POST",
        url: "/api/v1/connections",
        headers: key(bare.adminKey),
        payload: { provider: "plaid", user_id: user.shortId, credentials: { token: "t" } },
      });
      expectEnvelope(res, "ENCRYPTION_KEY_MISSING", /COFFER_ENCRYPTION_KEY is not set/);
      expect(enrolled).toBe(false);
    } finally {
      await bare.close();
    }
  });
});
