/**
 * CPU cost of encoding and decoding a page of 100 transactions: protobuf-es's
 * reflective toBinary/fromBinary beside the compiled codec the core and the
 * gateways use for pages (services/shared/wire/codec.ts). In process, no I/O.
 * Run: npm run bench:wire-codec
 */
import "../services/shared/protobuf-utf8.js";
import { create, fromBinary, toBinary } from "@bufbuild/protobuf";
import { timestampFromMs } from "@bufbuild/protobuf/wkt";
import { ListTransactionsResponseSchema, TransactionSchema } from "../gen/coffer/v1/transactions_pb.js";
import { wireCodec } from "../services/shared/wire/codec.js";
import { ms, summarize } from "./stats.js";

const ROUNDS = 3000;
const WARMUP = 500;

/** A page as the core presents it: bank-style names, a category, some tags and metadata. */
const page = create(ListTransactionsResponseSchema, {
  transactions: Array.from({ length: 100 }, (_, i) =>
    create(TransactionSchema, {
      id: `0192f0a4-6b0e-7c3a-9d1e-${String(100_000_000_000 + i)}`,
      shortId: "a1B2c3D4",
      accountId: "Xy12Ab34",
      accountName: "Everyday Checking",
      userId: "Us12Ab34",
      userName: "Alex",
      amount: `${i}.${String(i % 100).padStart(2, "0")}`,
      isoCurrencyCode: i % 3 ? "USD" : "EUR",
      date: "2026-11-01",
      authorizedDate: "2026-10-31",
      name: "Starbucks",
      provider: "plaid",
      providerTransactionId: `ptx_${i}`,
      providerName: "STARBUCKS STORE #4821 SEATTLE WA",
      providerMerchantName: "Starbucks",
      providerCategoryPrimary: "FOOD_AND_DRINK",
      providerCategoryDetailed: "FOOD_AND_DRINK_COFFEE",
      categorySlug: "food_and_drink_coffee",
      categoryDisplayName: "Coffee",
      categoryParentSlug: "food_and_drink",
      categorySource: "rule",
      tags: i % 10 ? [] : ["work", "reimbursable"],
      metadata: i % 7 ? {} : { receipt: "r-1234", split: [0.5, 0.5] },
      createdAt: timestampFromMs(1_795_000_000_000 + i),
      updatedAt: timestampFromMs(1_795_000_000_000 + i),
    }),
  ),
  nextCursor: "eyJ2IjoxfQ",
  hasMore: true,
});
const codec = wireCodec(ListTransactionsResponseSchema);
const bytes = toBinary(ListTransactionsResponseSchema, page);

function time(fn: () => unknown): ReturnType<typeof summarize> {
  for (let i = 0; i < WARMUP; i++) fn();
  const samples: number[] = [];
  for (let i = 0; i < ROUNDS; i++) {
    const t = performance.now();
    fn();
    samples.push(performance.now() - t);
  }
  return summarize(samples);
}

const rows: [string, ReturnType<typeof summarize>][] = [
  ["encode, protobuf-es toBinary", time(() => toBinary(ListTransactionsResponseSchema, page))],
  ["encode, compiled codec", time(() => codec.encode(page))],
  ["decode, protobuf-es fromBinary", time(() => fromBinary(ListTransactionsResponseSchema, bytes))],
  ["decode, compiled codec", time(() => codec.decode(bytes))],
];
console.log(`A page of 100 transactions (${bytes.length} bytes), ${ROUNDS} rounds after ${WARMUP} warm-up, in process:`);
for (const [name, s] of rows) console.log(`  ${name.padEnd(32)} median ${ms(s.median)}  p99 ${ms(s.p99)}`);
