import { createHash, timingSafeEqual } from "node:crypto";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { query } from "../../services/db/sql.js";
import { CsvProvider } from "../../services/sync/providers/csv/provider.js";
import { ProviderError, type WebhookEvent } from "../../services/sync/providers/provider.js";
import { ProviderRegistry } from "../../services/sync/registry.js";
import { newUser } from "../helpers/ledger.js";
import { syncJobsOf, PENDING_SYNC_JOB } from "../helpers/job-queue.js";
import { expectEnvelope, key } from "../helpers/rest.js";
import { ScriptedProvider, tx } from "../helpers/scripted-provider.js";
import { startStack, type Stack } from "../helpers/stack.js";
import { waitFor } from "../helpers/wait.js";

// Inbound webhooks: the gateway hands the core the exact bytes, the provider's client verifies
// them (here: a SHA-256 of the raw body in a header, standing in for Plaid's JWT or Teller's HMAC),
// every delivery is stored, and only verified ones act.

const plaid = new ScriptedProvider("plaid");
const digest = (body: Buffer) => createHash("sha256").update(body).digest("hex");
plaid.webhook = async (headers, body): Promise<WebhookEvent> => {
  const given = Buffer.from(headers["x-test-signature"] ?? "", "utf8");
  const want = Buffer.from(digest(body), "utf8");
  if (given.length !== want.length || !timingSafeEqual(given, want)) {
    throw new ProviderError("invalid_input", "INVALID_SIGNATURE", "The webhook signature does not match its body");
  }
  const payload = JSON.parse(body.toString("utf8")) as { id?: string; item: string; code: string };
  // Legacy codes are acknowledged and ignored, as Plaid's DEFAULT_UPDATE is.
  const actions: Record<string, WebhookEvent["action"]> = {
    LOGIN: "reauth_required",
    REPAIRED: "repaired",
    DEFAULT_UPDATE: "none",
  };
  const action = actions[payload.code] ?? "sync";
  return { eventId: payload.id ?? null, type: `TRANSACTIONS/${payload.code}`, providerItemIds: [payload.item], action };
};

let s: Stack;
let connectionId: string;
beforeAll(async () => {
  s = await startStack(
    {},
    {
      sync: { registry: new ProviderRegistry([plaid, new CsvProvider()]), scheduler: { pollingIntervalSeconds: 0.5 } },
    },
  );
  const ann = await newUser(s.orm.em.fork(), "Ann");
  plaid.push({ added: [tx("w1")] });
  const res = await s.rest.inject({
    method: "POST",
    url: "/api/v1/connections",
    headers: key(s.adminKey),
    payload: { provider: "plaid", user_id: ann.shortId, credentials: { token: "t", item: "item-hook" } },
  });
  connectionId = res.json().id;
  await waitFor(async () => (await syncs()).length === 1, "the first sync");
});
afterAll(async () => {
  await s?.close();
});

/** Waits until no sync of the connection is queued or running. */
const settled = () =>
  waitFor(async () => {
    const [r] = await query<{ n: number }>(
      s.orm.em.fork(),
      `select (select count(*) from pgboss.job where ${PENDING_SYNC_JOB})::int
         + (select count(*) from sync_logs where status = 'running')::int as n`,
    );
    return r.n === 0;
  }, "the syncs to settle");

const syncs = () =>
  query<{ trigger: string }>(
    s.orm.em.fork(),
    `select trigger from sync_logs where connection_id = ? and status <> 'running' order by started_at`,
    [connectionId],
  );

/** Spacing the JSON as a provider might: any re-serialisation would change the bytes and break the signature. */
const body = (o: object) => Buffer.from(JSON.stringify(o, null, 3).replace(/\n/g, "\r\n") + "\n");

const deliver = (raw: Buffer, signature: string, provider = "plaid", contentType = "application/json") =>
  s.rest.inject({
    method: "POST",
    url: `/webhooks/${provider}`,
    headers: { "content-type": contentType, "x-test-signature": signature },
    payload: raw,
  });

const events = async (status?: string) =>
  (
    await s.rest.inject({
      method: "GET",
      url: `/api/v1/webhook-events${status ? `?status=${status}` : ""}`,
      headers: key(s.readKey),
    })
  ).json();

describe("POST /webhooks/{provider}", () => {
  it("verifies the signature over the raw bytes, stores the event, and queues a sync of its connection", async () => {
    plaid.push({ added: [tx("w2")] });
    const raw = body({ id: "evt-1", item: "item-hook", code: "SYNC_UPDATES_AVAILABLE" });
    const jobs = (await syncJobsOf(s.databaseUrl, connectionId)).length;
    const res = await deliver(raw, digest(raw));
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ status: "accepted", id: expect.any(String) });
    // The job is queued by the time the webhook is answered.
    expect((await syncJobsOf(s.databaseUrl, connectionId)).slice(jobs).map((j) => j.trigger)).toEqual(["webhook"]);
    await waitFor(async () => (await syncs()).some((l) => l.trigger === "webhook"), "the webhook's sync");
    const [ev] = (await events("accepted")).webhook_events;
    expect(ev).toMatchObject({
      provider: "plaid",
      event_id: "evt-1",
      event_type: "TRANSACTIONS/SYNC_UPDATES_AVAILABLE",
      status: "accepted",
      action: "sync",
      payload: { id: "evt-1", item: "item-hook", code: "SYNC_UPDATES_AVAILABLE" },
      replay_count: 0,
      replayed_at: null,
    });
    expect(ev.connection_ids).toHaveLength(1);
  });

  it("takes any content type: the body is never parsed by the gateway", async () => {
    const raw = body({ item: "item-hook", code: "DEFAULT_UPDATE" });
    expect((await deliver(raw, digest(raw), "plaid", "text/plain; charset=utf-8")).statusCode).toBe(200);
  });

  it("answers a bad signature with 401 INVALID_SIGNATURE, stores it as rejected, and queues nothing", async () => {
    await settled();
    const before = await syncJobsOf(s.databaseUrl, connectionId);
    const raw = body({ id: "evt-forged", item: "item-hook", code: "SYNC_UPDATES_AVAILABLE" });
    expectEnvelope(await deliver(raw, digest(Buffer.from("something else"))), "INVALID_SIGNATURE", /does not match/);
    const [ev] = (await events("rejected")).webhook_events;
    expect(ev).toMatchObject({ status: "rejected", reason: expect.stringMatching(/^INVALID_SIGNATURE/), action: null });
    // A webhook queues its sync before it answers: no new job now means none will come.
    expect(await syncJobsOf(s.databaseUrl, connectionId)).toHaveLength(before.length);
  });

  it("stores a second delivery of the same event as a duplicate and does not act on it again", async () => {
    const raw = body({ id: "evt-dup", item: "item-hook", code: "SYNC_UPDATES_AVAILABLE" });
    expect((await deliver(raw, digest(raw))).json().status).toBe("accepted");
    expect((await deliver(raw, digest(raw))).json().status).toBe("duplicate");
  });

  it("marks the connection pending_reauth when the login broke, and active again when repaired", async () => {
    await settled();
    const broke = body({ item: "item-hook", code: "LOGIN" });
    await deliver(broke, digest(broke));
    const conn = async () =>
      (
        await s.rest.inject({ method: "GET", url: `/api/v1/connections/${connectionId}`, headers: key(s.readKey) })
      ).json();
    expect(await conn()).toMatchObject({ status: "pending_reauth", error_code: "REAUTH_REQUIRED" });
    const fixed = body({ item: "item-hook", code: "REPAIRED" });
    await deliver(fixed, digest(fixed));
    expect(await conn()).toMatchObject({ status: "active", error_code: null, error_message: null });
  });

  it("records an event for a login no connection has as ignored", async () => {
    const raw = body({ item: "item-unknown", code: "SYNC_UPDATES_AVAILABLE" });
    expect((await deliver(raw, digest(raw))).json().status).toBe("ignored");
  });

  it("answers 404 for a provider that sends no webhooks or does not exist", async () => {
    const raw = Buffer.from("{}");
    expectEnvelope(await deliver(raw, digest(raw), "csv"), "NOT_FOUND", /sends no webhooks/);
    expectEnvelope(await deliver(raw, digest(raw), "mint"), "NOT_FOUND");
  });
});

describe("webhook events", () => {
  it("GET /webhook-events pages newest first and filters by provider and status", async () => {
    const page = (
      await s.rest.inject({ method: "GET", url: "/api/v1/webhook-events?limit=2", headers: key(s.readKey) })
    ).json();
    expect(page.webhook_events).toHaveLength(2);
    expect(page.has_more).toBe(true);
    const next = (
      await s.rest.inject({
        method: "GET",
        url: `/api/v1/webhook-events?limit=2&cursor=${page.next_cursor}`,
        headers: key(s.readKey),
      })
    ).json();
    const ids = [...page.webhook_events, ...next.webhook_events].map((e: { id: string }) => e.id);
    expect(new Set(ids).size).toBe(ids.length);
    expect((await events("duplicate")).webhook_events.every((e: { status: string }) => e.status === "duplicate")).toBe(
      true,
    );
    expectEnvelope(
      await s.rest.inject({ method: "GET", url: "/api/v1/webhook-events?status=odd", headers: key(s.readKey) }),
      "INVALID_PARAMETER",
    );
  });

  it("POST /webhook-events/{id}/replay acts again on a verified event, and refuses a rejected one", async () => {
    const [accepted] = (await events("accepted")).webhook_events;
    const before = (await syncs()).length;
    const res = await s.rest.inject({
      method: "POST",
      url: `/api/v1/webhook-events/${accepted.short_id}/replay`,
      headers: key(s.adminKey),
    });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toMatchObject({ id: accepted.id, replay_count: 1, replayed_at: expect.stringMatching(/Z$/) });
    if (accepted.action === "sync") await waitFor(async () => (await syncs()).length > before, "the replayed sync");
    const [rejected] = (await events("rejected")).webhook_events;
    expectEnvelope(
      await s.rest.inject({
        method: "POST",
        url: `/api/v1/webhook-events/${rejected.id}/replay`,
        headers: key(s.adminKey),
      }),
      "CONFLICT",
    );
    expectEnvelope(
      await s.rest.inject({
        method: "POST",
        url: `/api/v1/webhook-events/${accepted.id}/replay`,
        headers: key(s.readKey),
      }),
      "INSUFFICIENT_SCOPE",
    );
  });
});
