import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { VERSION } from "../../common/version.js";
import { buildRestApp } from "../../gateways/rest/app.js";
import { coreClients, coreTransport } from "../../gateways/shared/core-client.js";
import { awaitWrites } from "../../gateways/shared/write-deadline.js";
import { newUser } from "../helpers/ledger.js";
import { expectEnvelope, key } from "../helpers/rest.js";
import { startStack, type Stack } from "../helpers/stack.js";

// The gateway deadline ends reads; a write is awaited, so a 504 never hides work that committed.

let s: Stack;
let rest: Awaited<ReturnType<typeof buildRestApp>>;
beforeAll(async () => {
  s = await startStack();
  // A read deadline of 1 ms: no call to the core answers that fast.
  const core = coreClients(awaitWrites(coreTransport(s.coreUrl, 1), 1, 60_000));
  rest = await buildRestApp({ core, version: VERSION, logger: false, checkResponses: true });
});
afterAll(async () => {
  await rest?.close();
  await s?.close();
});

describe("gateway deadlines", () => {
  it("cuts a read off at COFFER_CORE_TIMEOUT_MS with 504", async () => {
    const res = await rest.inject({ method: "GET", url: "/api/v1/tags", headers: key(s.adminKey) });
    expectEnvelope(res, "UPSTREAM_TIMEOUT");
  });

  it("awaits a write past that deadline and answers with what it made", async () => {
    const res = await rest.inject({
      method: "POST",
      url: "/api/v1/tags",
      headers: key(s.adminKey),
      payload: { display_name: "Awaited" },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ display_name: "Awaited" });
  });

  it("answers a CSV import with its connection, not a 504, however long the file", async () => {
    const ann = await newUser(s.orm.em.fork(), "Ann");
    const csv = `Date,Description,Amount\n${"2026-01-05,Coffee,-4.50\n".repeat(200_000)}`;
    const res = await rest.inject({
      method: "POST",
      url: "/api/v1/connections",
      headers: key(s.adminKey),
      payload: {
        provider: "csv",
        user_id: ann.shortId,
        credentials: { csv, account_name: "Big", iso_currency_code: "USD" },
      },
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({
      provider: "csv",
      institution_name: "Big",
      status: "active",
      last_synced_at: null,
    });
  });
});
