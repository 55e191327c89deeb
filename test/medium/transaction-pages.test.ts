import { fromBinary, toBinary } from "@bufbuild/protobuf";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { ListTransactionPageResponseSchema } from "../../gen/coffer/internal/v1/pages_pb.js";
import { ListTransactionsResponseSchema, TransactionSchema } from "../../gen/coffer/v1/transactions_pb.js";
import { listTransactions } from "../../gateways/shared/core-client.js";
import { query } from "../../services/db/sql.js";
import { wireCodec } from "../../services/shared/wire/codec.js";
import { expectCoreError, withKey } from "../helpers/core-error.js";
import { newAccount, newTransactions, newUser } from "../helpers/ledger.js";
import { startStack, type Stack } from "../helpers/stack.js";

/**
 * The gateways list transactions through coffer.internal.v1.TransactionPageService
 * (each transaction encoded by the compiled codec). It must answer exactly what
 * coffer.v1.TransactionService/ListTransactions answers, under the same rules.
 */
let s: Stack;
beforeAll(async () => {
  s = await startStack();
  const em = s.orm.em.fork();
  const user = await newUser(em, "Pat");
  const account = await newAccount(em, user.id, { name: "Checking" });
  await newTransactions(
    em,
    account.id,
    Array.from({ length: 7 }, (_, i) => ({
      providerName: `SHOP ${i} 🧾 Zürich`,
      providerMerchantName: i % 2 ? `Shop ${i}` : undefined,
      date: `2026-03-0${1 + (i % 3)}`,
      amount: `${i % 2 ? "-" : ""}${i}.0${i}`,
      pending: i === 3,
    })),
  );
  await query(s.orm.em.fork(), `update transactions set metadata = '{"note": "split", "n": 2.5, "list": [true, null, {"x": "y"}]}' where provider_name like 'SHOP 2%'`);
  await query(s.orm.em.fork(), `update transactions set deleted_at = now() where provider_name like 'SHOP 6%'`);
});
afterAll(async () => {
  await s?.close();
});

const request = (cursor = "") => ({ limit: 3, cursor, sortBy: "", sortOrder: "", filter: { tags: [], anyTag: [] } });

describe("the gateways' transaction page method", () => {
  it("answers page for page what ListTransactions answers", async () => {
    let cursor = "";
    let pages = 0;
    do {
      const expected = await s.core.transactions.listTransactions(request(cursor), withKey(s.readKey));
      const got = await listTransactions(s.core, request(cursor), withKey(s.readKey));
      expect(got).toEqual({ transactions: expected.transactions, nextCursor: expected.nextCursor, hasMore: expected.hasMore });
      cursor = expected.nextCursor;
      pages++;
    } while (cursor !== "");
    expect(pages).toBe(2);
  });

  it("is wire-identical to ListTransactionsResponse", async () => {
    const page = await s.core.transactionPages.listTransactionPage({ list: request() }, withKey(s.readKey));
    expect(page.transactions.length).toBe(3);
    const asPublic = fromBinary(ListTransactionsResponseSchema, toBinary(ListTransactionPageResponseSchema, page));
    expect(asPublic.transactions).toEqual(page.transactions.map((t) => wireCodec(TransactionSchema).decode(t)));
    expect(asPublic.transactions.find((t) => t.providerName.startsWith("SHOP 2"))?.metadata).toEqual({ note: "split", n: 2.5, list: [true, null, { x: "y" }] });
  });

  it("needs a key and checks the request like ListTransactions", async () => {
    await expectCoreError(s.core.transactionPages.listTransactionPage({ list: request() }), "MISSING_CREDENTIALS");
    await expectCoreError(s.core.transactionPages.listTransactionPage({ list: { ...request(), limit: 501 } }, withKey(s.readKey)), "INVALID_PARAMETER");
    await expectCoreError(s.core.transactionPages.listTransactionPage({ list: request("not-a-cursor") }, withKey(s.readKey)), "INVALID_CURSOR");
    // No request body at all is the default request: the first page of 50.
    expect((await s.core.transactionPages.listTransactionPage({}, withKey(s.readKey))).transactions.length).toBe(6);
  });
});
