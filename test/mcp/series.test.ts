import type { AddressInfo } from "node:net";
import { Client } from "@modelcontextprotocol/sdk/client/index.js";
import { StreamableHTTPClientTransport } from "@modelcontextprotocol/sdk/client/streamableHttp.js";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { newAccount, newUser } from "../helpers/ledger.js";
import { daysFromToday, insertCharges, monthDays, seriesOf } from "../helpers/series.js";
import { startStack, type Stack } from "../helpers/stack.js";

// The series tools through a real MCP client over Streamable HTTP.

let s: Stack;
let admin: Client;
let reader: Client;
let spotify: string[];

async function connect(url: URL, key: string): Promise<Client> {
  const client = new Client({ name: "test", version: "1.0.0" });
  await client.connect(new StreamableHTTPClientTransport(url, { requestInit: { headers: { "X-API-Key": key } } }));
  return client;
}

beforeAll(async () => {
  s = await startStack();
  await s.mcp.listen({ port: 0, host: "127.0.0.1" });
  const url = new URL(`http://127.0.0.1:${(s.mcp.server.address() as AddressInfo).port}/mcp`);
  const em = s.orm.em.fork();
  const account = (await newAccount(em, (await newUser(em)).id)).id;
  spotify = await insertCharges(
    em,
    account,
    monthDays(-8, -1, 9).map((date) => ({
      date,
      amount: "11.99",
      providerName: "SPOTIFY USA",
      providerMerchantName: "Spotify",
    })),
  );
  [admin, reader] = await Promise.all([connect(url, s.adminKey), connect(url, s.readKey)]);
});
afterAll(async () => {
  await Promise.all([admin, reader].map((c) => c?.close()));
  await s?.close();
});

type ToolResult = { isError?: boolean; structuredContent?: Record<string, unknown>; content: { text: string }[] };
const call = async (client: Client, name: string, args: Record<string, unknown> = {}) =>
  (await client.callTool({ name, arguments: args })) as ToolResult;
const ok = async (client: Client, name: string, args: Record<string, unknown> = {}) => {
  const r = await call(client, name, args);
  expect(r.isError, r.content[0]?.text).toBeFalsy();
  return r.structuredContent as Record<string, any>;
};
const errorCode = (r: ToolResult) => {
  expect(r.isError).toBe(true);
  return (JSON.parse(r.content[0].text) as { error: { code: string } }).error.code;
};

describe("MCP series tools", () => {
  it("lists the tools, reads marked read-only", async () => {
    const tools = (await reader.listTools()).tools.filter((t) => /series|upcoming/.test(t.name));
    expect(tools.map((t) => [t.name, t.annotations?.readOnlyHint])).toEqual([
      ["list_series", true],
      ["get_series", true],
      ["upcoming_charges", true],
      ["detect_series", true],
      ["assign_series", false],
      ["update_series", false],
    ]);
  });

  it("detect_series is a dry run with reasons; assign_series creates a series by name", async () => {
    const detected = await ok(reader, "detect_series");
    const { proposals } = detected;
    // POST /api/v1/series/detect's answer, proposal for proposal (a dry run on both surfaces).
    const restDetect = await s.rest.inject({
      method: "POST",
      url: "/api/v1/series/detect",
      headers: { "x-api-key": s.readKey },
    });
    expect(detected).toEqual(restDetect.json());
    expect(proposals).toEqual([
      expect.objectContaining({
        name: "Spotify",
        cadence: "monthly",
        expected_amount: 11.99,
        confidence: 1,
        transaction_ids: spotify,
        series_id: null,
        unlinked_count: 8,
        reason: expect.stringMatching(/^8 charges, monthly on day 9, 11\.99 USD, last /),
      }),
    ]);
    expect(await ok(reader, "list_series")).toEqual({ series: [] });
    expect(errorCode(await call(reader, "assign_series", { transaction_ids: spotify, series_name: "Music" }))).toBe(
      "INSUFFICIENT_SCOPE",
    );
    const r = await ok(admin, "assign_series", {
      transaction_ids: spotify,
      series_name: "Music",
      create_if_missing: true,
    });
    expect(r).toMatchObject({ created: true, assigned: spotify, skipped: [] });
    expect(r.series).toMatchObject({ name: "Music", source: "manual", transaction_count: 8, expected_amount: 11.99 });
    expect(new Set(await seriesOf(s.orm.em.fork(), spotify))).toEqual(new Set([r.series.short_id]));
    const restSeries = await s.rest.inject({
      method: "GET",
      url: `/api/v1/series/${r.series.id}`,
      headers: { "x-api-key": s.readKey },
    });
    expect(r.series).toEqual(restSeries.json());
    expect((await ok(reader, "detect_series")).proposals).toEqual([]);
  });

  it("list_series, get_series with recent transactions, update_series", async () => {
    const [music] = (await ok(reader, "list_series", { status: "active" })).series;
    // The REST series: `id` the UUID, `short_id` beside it (docs/contract.md, "Identifiers").
    expect(music).toMatchObject({ name: "Music", status: "active", counterparty_name: null, counterparty_id: null });
    expect(music.id).toMatch(/^[0-9a-f]{8}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{4}-[0-9a-f]{12}$/);
    expect(music.short_id).toMatch(/^[0-9A-Za-z]{8}$/);
    const got = await ok(reader, "get_series", { id: music.short_id, recent: 3 });
    expect(got.series).toEqual(music);
    expect(await ok(reader, "get_series", { id: music.id, recent: 3 })).toEqual(got);
    const restSeries = await s.rest.inject({
      method: "GET",
      url: `/api/v1/series/${music.id}`,
      headers: { "x-api-key": s.readKey },
    });
    expect(got.series).toEqual(restSeries.json());
    // The recent transactions are the REST transactions of the series, newest first.
    expect(got.recent_transactions.map((t: { short_id: string }) => t.short_id)).toEqual(
      [...spotify].reverse().slice(0, 3),
    );
    const restPage = await s.rest.inject({
      method: "GET",
      url: `/api/v1/transactions?series_id=${music.short_id}&limit=3`,
      headers: { "x-api-key": s.readKey },
    });
    expect(got.recent_transactions).toEqual(restPage.json().transactions);
    expect(got.recent_transactions[0]).toMatchObject({
      short_id: spotify[spotify.length - 1],
      date: monthDays(-1, -1, 9)[0],
      amount: 11.99,
      iso_currency_code: "USD",
      name: "Spotify",
      account_name: "Checking",
      series_id: music.short_id,
      series_name: "Music",
    });
    const updated = await ok(admin, "update_series", {
      id: music.id,
      type: "subscription",
      cadence: "monthly",
      amount_tolerance: "0.50",
      next_expected_date: daysFromToday(4),
    });
    const restUpdated = await s.rest.inject({
      method: "GET",
      url: `/api/v1/series/${music.short_id}`,
      headers: { "x-api-key": s.readKey },
    });
    expect(updated.series).toEqual(restUpdated.json());
    expect(updated.series).toMatchObject({
      type: "subscription",
      cadence: "monthly",
      amount_tolerance: 0.5,
      next_expected_date: daysFromToday(4),
    });
    const upcoming = await ok(reader, "upcoming_charges", { days: 10 });
    expect(upcoming.charges).toEqual([
      {
        series_id: music.short_id,
        series_name: "Music",
        type: "subscription",
        date: daysFromToday(4),
        amount: 11.99,
        iso_currency_code: "USD",
      },
    ]);
    const restUpcoming = await s.rest.inject({
      method: "GET",
      url: "/api/v1/series/upcoming?days=10",
      headers: { "x-api-key": s.readKey },
    });
    expect(upcoming).toEqual(restUpcoming.json());
    expect(upcoming.totals).toEqual([
      { iso_currency_code: "USD", money_out: 11.99, money_in: 0, net: 11.99, count: 1 },
    ]);
  });

  it("refuses bad arguments with INVALID_PARAMETER and core refusals with their code", async () => {
    expect(errorCode(await call(reader, "list_series", { status: "gone" }))).toBe("INVALID_PARAMETER");
    expect(errorCode(await call(admin, "update_series", { id: "zzzzzzzz", name: "x" }))).toBe("NOT_FOUND");
    const [music] = (await ok(reader, "list_series")).series;
    expect(errorCode(await call(admin, "update_series", { id: music.id, amount_tolerance: -1 }))).toBe(
      "VALIDATION_ERROR",
    );
    expect(errorCode(await call(admin, "assign_series", { transaction_ids: spotify }))).toBe("VALIDATION_ERROR");
  });

  it("query_transactions filters by series and shows it", async () => {
    const [music] = (await ok(reader, "list_series")).series;
    const r = await ok(reader, "query_transactions", {
      series_id: music.id,
      fields: "short_id,series_name,series_id",
    });
    expect(r.transactions).toHaveLength(8);
    expect(r.transactions[0]).toEqual({ short_id: spotify[7], series_name: "Music", series_id: music.short_id });
    expect(await ok(reader, "query_transactions", { in_series: false, count_only: true })).toEqual({ count: 0 });
  });
});
