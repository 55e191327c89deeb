import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { InMemoryTransport } from "@modelcontextprotocol/sdk/inMemory.js";
import type { JsonObject, JsonValue } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createMcpServer } from "../../gateways/mcp/server.js";
import { callOptions } from "../../gateways/shared/core-client.js";
import { query } from "../../services/db/sql.js";
import { expectCoreError, withKey } from "../helpers/core-error.js";
import { newAccount, newTransactions, newUser } from "../helpers/ledger.js";
import { recordingLog } from "../helpers/log.js";
import { expectEnvelope, key } from "../helpers/rest.js";
import { startStack, type Stack } from "../helpers/stack.js";
import { databaseChecksum } from "../helpers/state.js";

// Regressions of the hardening issue's reproducers A (dates outside 1900–2999),
// C (control characters in a search) and D (control characters in every stored
// text field): each was a 500 from PostgreSQL; now each is a 400 naming the
// field, decided before the database, and nothing changes.

let s: Stack;
let mcp: Client;
let user: { id: string; shortId: string };
let account: { id: string; shortId: string };
let tx: string;
let commentId: string;
let tagId: string;
let categoryId: string;
let counterpartyId: string;

type Method = "GET" | "POST" | "PUT" | "PATCH" | "DELETE";
const call = (method: Method, url: string, payload?: unknown, k: string | null = s.adminKey) =>
  s.rest.inject({
    method,
    url,
    headers: k === null ? {} : key(k),
    ...(payload === undefined ? {} : { payload: payload as object }),
  });

beforeAll(async () => {
  s = await startStack();
  const em = s.orm.em.fork();
  user = await newUser(em, "Ann");
  account = await newAccount(em, user.id, { name: "Joint" });
  [tx] = await newTransactions(em, account.id, [{ providerName: "TEA BAR", date: "2026-01-10" }]);
  commentId = (await call("POST", `/api/v1/transactions/${tx}/comments`, { body: "first" })).json<{ id: string }>().id;
  tagId = (await call("POST", "/api/v1/tags", { slug: "trip" })).json<{ id: string }>().id;
  categoryId = (await call("POST", "/api/v1/categories", { display_name: "Pets" })).json<{ id: string }>().id;
  counterpartyId = (await call("POST", "/api/v1/counterparties", { name: "Tea Bar" })).json<{ id: string }>().id;

  const server = createMcpServer(s.core, callOptions(s.readKey, "test"), recordingLog());
  const [clientSide, serverSide] = InMemoryTransport.createLinkedPair();
  await server.connect(serverSide);
  mcp = new Client({ name: "coffer-test", version: "0.0.0" });
  await mcp.connect(clientSide);
});
afterAll(async () => {
  await mcp?.close();
  await s?.close();
});

async function mcpError(name: string, args: Record<string, unknown>) {
  const r = await mcp.callTool({ name, arguments: args });
  expect(r.isError).toBe(true);
  return JSON.parse((r.content as { text: string }[])[0].text).error as { code: string; message: string };
}

describe("A. dates are real days in 1900–2999", () => {
  const urls = ["/api/v1/transactions", "/api/v1/transactions/count", "/api/v1/transactions/summary"];
  const rows = urls.flatMap((url) =>
    ["start_date", "end_date"].flatMap((param) =>
      ["0000-01-01", "1899-12-31", "3000-01-01", "2026-02-30"].map((value) => [url, param, value] as const),
    ),
  );

  it.each(rows)("GET %s?%s=%s → 400 INVALID_PARAMETER naming it", async (url, param, value) => {
    expectEnvelope(await call("GET", `${url}?${param}=${value}`), "INVALID_PARAMETER", new RegExp(`^${param} `));
  });

  it("the first and last days of the range are accepted", async () => {
    const res = await call("GET", "/api/v1/transactions/count?start_date=1900-01-01&end_date=2999-12-31");
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({ count: 1 });
  });

  it("MCP query_transactions, count_only and transaction_summary refuse year 0000", async () => {
    for (const [tool, args] of [
      ["query_transactions", { start_date: "0000-01-01" }],
      ["query_transactions", { end_date: "0000-01-01", count_only: true }],
      ["transaction_summary", { start_date: "0000-01-01" }],
    ] as const) {
      expect(await mcpError(tool, args)).toMatchObject({ code: "INVALID_PARAMETER", message: /^(start|end)_date / });
    }
  });

  it("Connect startDate and endDate of year 0000 → INVALID_PARAMETER", async () => {
    const filter = { startDate: "0000-01-01" };
    await expectCoreError(s.core.transactions.listTransactions({ filter }, withKey(s.readKey)), "INVALID_PARAMETER");
    await expectCoreError(s.core.transactions.countTransactions({ filter }, withKey(s.readKey)), "INVALID_PARAMETER");
    await expectCoreError(
      s.core.transactions.summarizeTransactions({ filter: { endDate: "0000-01-01" } }, withKey(s.readKey)),
      "INVALID_PARAMETER",
    );
  });
});

describe("C. control characters in a search count as spaces", () => {
  it("GET /api/v1/counterparties?search=a%00b → 200, searching for 'a b'", async () => {
    const res = await call("GET", "/api/v1/counterparties?search=a%00b");
    expect(res.statusCode).toBe(200);
    expect(res.json<{ counterparties: { name: string }[] }>().counterparties.map((c) => c.name)).toEqual(["Tea Bar"]);
  });

  it("a search of nothing but control characters lists everything, over Connect too", async () => {
    const r = await s.core.counterparties.listCounterparties({ search: "\u0000\u001f" }, withKey(s.readKey));
    expect(r.counterparties.map((c) => c.name)).toEqual(["Tea Bar"]);
  });

  it("GET /api/v1/transactions?search=a%00b → 200", async () => {
    const res = await call("GET", "/api/v1/transactions?search=a%00b");
    expect(res.statusCode).toBe(200);
    expect(res.json<{ transactions: { name: string }[] }>().transactions.map((t) => t.name)).toEqual(["TEA BAR"]);
  });
});

describe("D. stored text refuses NUL and other control characters", () => {
  const NUL = "a\u0000b";
  const cash = (extra: object) => ({
    user_id: user.shortId,
    name: "Cash",
    type: "other",
    iso_currency_code: "USD",
    ...extra,
  });
  // Every text field a write stores: what → [method, url, body, field named in the message, key].
  // Functions, since the ids exist only once beforeAll has run.
  type Case = () => [Method, string, unknown, string, string | null];
  const cases: Record<string, Case> = {
    "comment body (add)": () => ["POST", `/api/v1/transactions/${tx}/comments`, { body: NUL }, "body", s.adminKey],
    "comment body (edit)": () => [
      "PATCH",
      `/api/v1/transactions/${tx}/comments/${commentId}`,
      { body: NUL },
      "body",
      s.adminKey,
    ],
    "metadata value": () => [
      "PATCH",
      `/api/v1/transactions/${tx}/metadata`,
      { note: NUL },
      "metadata.note",
      s.adminKey,
    ],
    "nested metadata value": () => [
      "PUT",
      `/api/v1/transactions/${tx}/metadata`,
      { trip: { days: ["x", NUL] } },
      "metadata.trip.days[1]",
      s.adminKey,
    ],
    "metadata key": () => ["PATCH", `/api/v1/transactions/${tx}/metadata`, { [NUL]: 1 }, "metadata key", s.adminKey],
    "nested metadata key": () => [
      "PATCH",
      `/api/v1/transactions/${tx}/metadata`,
      { trip: { [NUL]: 1 } },
      "a key in metadata.trip",
      s.adminKey,
    ],
    "user name (create)": () => ["POST", "/api/v1/users", { name: NUL }, "name", s.adminKey],
    "user email (create)": () => ["POST", "/api/v1/users", { name: "Bo", email: "b\u0000@x.io" }, "email", s.adminKey],
    "user name (update)": () => ["PATCH", `/api/v1/users/${user.shortId}`, { name: NUL }, "name", s.adminKey],
    "user email (update)": () => [
      "PATCH",
      `/api/v1/users/${user.shortId}`,
      { email: "a\u0000@x.io" },
      "email",
      s.adminKey,
    ],
    "tag display_name (create)": () => ["POST", "/api/v1/tags", { display_name: NUL }, "display_name", s.adminKey],
    "tag display_name (update)": () => [
      "PATCH",
      `/api/v1/tags/${tagId}`,
      { display_name: NUL },
      "display_name",
      s.adminKey,
    ],
    "category display_name (create)": () => [
      "POST",
      "/api/v1/categories",
      { display_name: NUL },
      "display_name",
      s.adminKey,
    ],
    "category display_name (update)": () => [
      "PUT",
      `/api/v1/categories/${categoryId}`,
      { display_name: NUL },
      "display_name",
      s.adminKey,
    ],
    "counterparty name (create)": () => ["POST", "/api/v1/counterparties", { name: NUL }, "name", s.adminKey],
    "counterparty notes (create)": () => [
      "POST",
      "/api/v1/counterparties",
      { name: "Zed", notes: NUL },
      "notes",
      s.adminKey,
    ],
    "counterparty name (update)": () => [
      "PATCH",
      `/api/v1/counterparties/${counterpartyId}`,
      { name: NUL },
      "name",
      s.adminKey,
    ],
    "counterparty notes (update)": () => [
      "PATCH",
      `/api/v1/counterparties/${counterpartyId}`,
      { notes: NUL },
      "notes",
      s.adminKey,
    ],
    "account name (create)": () => ["POST", "/api/v1/accounts", cash({ name: NUL }), "name", s.adminKey],
    "account subtype": () => ["POST", "/api/v1/accounts", cash({ subtype: NUL }), "subtype", s.adminKey],
    "account official_name": () => [
      "POST",
      "/api/v1/accounts",
      cash({ official_name: NUL }),
      "official_name",
      s.adminKey,
    ],
    "account name (update)": () => ["PATCH", `/api/v1/accounts/${account.shortId}`, { name: NUL }, "name", s.adminKey],
    "API key name": () => ["POST", "/api/v1/api-keys", { name: NUL, scope: "read_only" }, "name", s.adminKey],
    "device-code name (no key)": () => ["POST", "/api/v1/auth/device-code", { name: NUL }, "name", null],
    "device-code approval name": () => [
      "POST",
      "/api/v1/auth/device-code/approve",
      { user_code: "BCDF-GHJK", name: NUL },
      "name",
      s.adminKey,
    ],
  };

  it.each(Object.keys(cases))("%s: 400 VALIDATION_ERROR naming the field, nothing stored", async (what) => {
    const [method, url, body, field, k] = cases[what]();
    const before = await databaseChecksum(s.orm.em.fork());
    const error = expectEnvelope(await call(method, url, body, k), "VALIDATION_ERROR");
    expect(error.message.startsWith(`${field} `), error.message).toBe(true);
    expect(await databaseChecksum(s.orm.em.fork())).toBe(before);
  });

  it.each(["\u0001", "\u0008", "\u000b", "\u001b", "\u001f"])("refuses %j in a name as well", async (c) => {
    expectEnvelope(await call("POST", "/api/v1/users", { name: `x${c}y` }), "VALIDATION_ERROR", /^name /);
  });

  it("a line break is refused in a one-line field, tab is kept", async () => {
    expectEnvelope(await call("POST", "/api/v1/tags", { display_name: "Road\ntrip" }), "VALIDATION_ERROR", /one line/);
    const res = await call("POST", "/api/v1/tags", { display_name: "Road\ttrip" });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ display_name: "Road\ttrip" });
  });

  it("comments and notes keep their lines, with CRLF stored as LF", async () => {
    const c = await call("POST", `/api/v1/transactions/${tx}/comments`, { body: "line one\r\nline two\n\tindented" });
    expect(c.statusCode).toBe(201);
    expect(c.json()).toMatchObject({ body: "line one\nline two\n\tindented" });
    const n = await call("PATCH", `/api/v1/counterparties/${counterpartyId}`, { notes: "open\r\nlate" });
    expect(n.json()).toMatchObject({ notes: "open\nlate" });
    const m = await call("PATCH", `/api/v1/transactions/${tx}/metadata`, { memo: "a\r\nb" });
    expect(m.json<{ metadata: Record<string, unknown> }>().metadata).toMatchObject({ memo: "a\nb" });
    const [row] = await query<{ body: string }>(
      s.orm.em.fork(),
      `select body from comments where body like 'line one%'`,
    );
    expect(row.body).toBe("line one\nline two\n\tindented");
  });

  it("the core refuses the same over Connect, for callers that skip the gateway", async () => {
    const f = await expectCoreError(
      s.core.counterparties.createCounterparty({ name: "Ok", notes: "bad\u0000" }, withKey(s.adminKey)),
      "VALIDATION_ERROR",
    );
    expect(f.message).toMatch(/^notes /);
  });
});

describe("E. metadata nests at most 32 levels, in the core as well", () => {
  const nest = (levels: number): JsonObject => {
    let value: JsonValue = "leaf";
    for (let i = 0; i < levels; i++) value = { a: value };
    return value as JsonObject;
  };
  const set = (metadata: JsonObject) =>
    s.core.transactions.setTransactionMetadata({ id: tx, metadata, replace: true }, withKey(s.adminKey));

  it("32 levels are stored", async () => {
    const t = (await set(nest(32))).transaction!;
    expect(JSON.stringify(t.metadata)).toBe(JSON.stringify(nest(32)));
  });

  it("33 levels → VALIDATION_ERROR naming the field, nothing stored", async () => {
    const before = await databaseChecksum(s.orm.em.fork());
    const f = await expectCoreError(set(nest(33)), "VALIDATION_ERROR");
    expect(f.message).toMatch(/^metadata(\.a)+ nests deeper than 32 levels/);
    expect(await databaseChecksum(s.orm.em.fork())).toBe(before);
  });

  it("deeper than protobuf decodes at all (over 100 messages) → INVALID_BODY", async () => {
    await expectCoreError(set(nest(60)), "INVALID_BODY");
  });
});
