import { create } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { VERSION } from "../../common/version.js";
import { SummarizeTransactionsResponseSchema } from "../../gen/coffer/v1/transactions_pb.js";
import { buildRestApp } from "../../gateways/rest/app.js";
import { querystringDocOf } from "../../gateways/rest/route.js";
import { transactionReadRoutes } from "../../gateways/rest/routes/transactions-read.js";
import type { CoreClients } from "../../gateways/shared/core-client.js";
import {
  transactionFilterShape,
  transactionListShape,
  transactionSummaryShape,
} from "../../gateways/shared/transaction-filter.js";
import { expectEnvelope } from "../helpers/rest.js";

/** A core that only records what the REST gateway asks for. */
const seen: Record<string, any>[] = [];
const core = {
  transactions: {
    async listTransactions(req: Record<string, any>) {
      seen.push(req);
      return { transactions: [], nextCursor: "", hasMore: false };
    },
    async countTransactions(req: Record<string, any>) {
      seen.push(req);
      return { count: 0n };
    },
    async summarizeTransactions(req: Record<string, any>) {
      seen.push(req);
      return create(SummarizeTransactionsResponseSchema, { groupBy: "category" });
    },
  },
} as unknown as CoreClients;

let app: Awaited<ReturnType<typeof buildRestApp>>;
beforeAll(async () => {
  app = await buildRestApp({ core, version: VERSION, logger: false, routes: transactionReadRoutes });
});
afterAll(async () => {
  await app?.close();
});

const many = (name: string, n: number) => Array.from({ length: n }, (_, i) => `${name}=t${i}`).join("&");

async function sent(url: string) {
  seen.length = 0;
  const res = await app.inject({ method: "GET", url });
  expect(res.statusCode, res.body).toBe(200);
  expect(seen).toHaveLength(1);
  return seen[0];
}

describe("REST transaction filters from the shared zod definition", () => {
  it("the query schemas are zod's JSON Schema of the shared shapes, strict, without $schema", () => {
    const schemaOf = (url: string) => transactionReadRoutes.find((r) => r.url === url)!.doc!.querystring;
    const filters = transactionFilterShape.rest;
    expect(schemaOf("/api/v1/transactions")).toEqual(querystringDocOf({ ...filters, ...transactionListShape }));
    expect(schemaOf("/api/v1/transactions/count")).toEqual(querystringDocOf(filters));
    expect(schemaOf("/api/v1/transactions/summary")).toEqual(
      querystringDocOf({ ...filters, ...transactionSummaryShape }),
    );
    const list = schemaOf("/api/v1/transactions") as Record<string, any>;
    expect(list.$schema).toBeUndefined();
    expect(list.additionalProperties).toBe(false);
    expect(list.properties.min_amount).toMatchObject({ type: "string", pattern: "^-?\\d{1,10}(\\.\\d{1,2})?$" });
    expect(list.properties.limit).toMatchObject({ type: "integer", minimum: 1, maximum: 500 });
  });

  it("REST and MCP take the same filter parameters", () => {
    expect(Object.keys(transactionFilterShape.rest)).toEqual(Object.keys(transactionFilterShape.mcp));
    expect(Object.keys(z.toJSONSchema(z.object(transactionFilterShape.rest)).properties!)).toEqual([
      "start_date",
      "end_date",
      "account_id",
      "user_id",
      "category_slug",
      "min_amount",
      "max_amount",
      "pending",
      "search",
      "search_mode",
      "tags",
      "any_tag",
      "series_id",
      "in_series",
    ]);
  });

  it("query text is coerced: booleans, integers; amounts stay exact strings", async () => {
    const req = await sent("/api/v1/transactions?pending=false&limit=20&min_amount=0.10&max_amount=-0&sort_by=amount");
    expect(req).toMatchObject({ limit: 20, sortBy: "amount", cursor: "" });
    expect(req.filter).toMatchObject({ pending: false, minAmount: "0.10", maxAmount: "-0", tags: [], anyTag: [] });
    expect((await sent("/api/v1/transactions/count?pending=true")).filter.pending).toBe(true);
    expect((await sent("/api/v1/transactions")).filter.pending).toBeUndefined();
  });

  it("tag lists: one value, comma-separated, repeated, or both", async () => {
    expect((await sent("/api/v1/transactions?tags=trip")).filter.tags).toEqual(["trip"]);
    expect((await sent("/api/v1/transactions?tags=trip,%20work")).filter.tags).toEqual(["trip, work"]);
    expect((await sent("/api/v1/transactions/count?tags=trip&tags=work")).filter.tags).toEqual(["trip", "work"]);
    expect((await sent("/api/v1/transactions/summary?any_tag=a,b&any_tag=c&group_by=month")).filter.anyTag).toEqual([
      "a,b",
      "c",
    ]);
    expect((await sent(`/api/v1/transactions?${many("tags", 50)}`)).filter.tags).toHaveLength(50);
  });

  it.each([
    ["limit=1.5", /limit/],
    ["limit=", /limit/],
    ["pending=yes", /pending/],
    ["pending=1", /pending/],
    ["min_amount=1e2", /min_amount/],
    ["min_amount=0x10", /min_amount/],
    ["max_amount=1,5", /max_amount/],
    ["tags=trip,", /tags/],
    ["tags=trip&tags=Work", /tags/],
    [many("tags", 51), /tags/],
    [`account_id=${"a".repeat(65)}`, /account_id/],
    [`cursor=${"a".repeat(8193)}`, /cursor/],
    ["group_by=month", /unknown query parameter group_by/],
  ])("?%.40s → 400 INVALID_PARAMETER before the core is asked", async (qs, message) => {
    seen.length = 0;
    expectEnvelope(
      await app.inject({ method: "GET", url: `/api/v1/transactions?${qs}` }),
      "INVALID_PARAMETER",
      message,
    );
    expect(seen).toHaveLength(0);
  });
});
