import "./services/shared/protobuf-utf8.ts";
import { create, toBinary, fromBinary } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { ListTransactionsResponseSchema, TransactionSchema } from "./gen/coffer/v1/transactions_pb.ts";
import { wireCodec } from "./services/shared/wire-codec.ts";
const mk = (i: number) => create(TransactionSchema, {
  id: "0192f0a4-6b0e-7c3a-9d1e-" + String(100000000000 + i), shortId: "a1B2c3D4e5", accountId: "Xy12Ab34Cd", accountName: "Everyday Checking",
  userId: "Us12Ab34Cd", userName: "Alex", amount: "12.34", isoCurrencyCode: "USD", date: "2026-11-01", authorizedDate: "2026-10-31",
  name: "Starbucks", provider: "plaid", providerTransactionId: "ptx_" + i, providerName: "STARBUCKS STORE #4821 SEATTLE WA", providerMerchantName: "Starbucks",
  providerCategoryPrimary: "FOOD_AND_DRINK", providerCategoryDetailed: "FOOD_AND_DRINK_COFFEE", pending: false, categorySlug: "food_and_drink_coffee",
  categoryDisplayName: "Coffee", categoryParentSlug: "food_and_drink", categorySource: "system", tags: i % 10 ? [] : ["work"],
  metadata: {}, createdAt: timestampFromMs(Date.now()), updatedAt: timestampFromMs(Date.now()),
});
const msg = create(ListTransactionsResponseSchema, { transactions: Array.from({ length: 100 }, (_, i) => mk(i)), nextCursor: "x".repeat(150), hasMore: true });
const c = wireCodec(ListTransactionsResponseSchema);
const time = (name: string, fn: () => unknown) => { for (let i = 0; i < 500; i++) fn(); const t = performance.now(); for (let i = 0; i < 2000; i++) fn(); console.log(name, ((performance.now() - t) / 2000).toFixed(3), "ms"); };
const bytes = toBinary(ListTransactionsResponseSchema, msg);
time("protobuf-es toBinary", () => toBinary(ListTransactionsResponseSchema, msg));
time("wireCodec encode   ", () => c.encode(msg));
time("protobuf-es fromBinary", () => fromBinary(ListTransactionsResponseSchema, bytes));
time("wireCodec decode     ", () => c.decode(bytes));
