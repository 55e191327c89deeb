/**
 * What the gateways' strict JSON body reading (gateways/shared/json-body.ts:
 * fatal UTF-8 decoding, the nesting scan, the finite-number walk) costs over
 * fastify's own parser (lenient decoding, then the same secure JSON.parse),
 * per body, for bodies of three sizes. Run: npx tsx bench/json-body.ts
 */
import { fastify } from "fastify";
import { readJsonBody } from "../gateways/shared/json-body.js";
import { measure, ms, summarize } from "./stats.js";

const app = fastify();
const secureParse = app.getDefaultJsonParser("error", "error");
/** fastify's parser as the gateways call it: synchronous, through its callback. */
function fastifyParse(text: string): unknown {
  let out: unknown;
  void secureParse({} as never, text, (err, value) => {
    if (err) throw err;
    out = value;
  });
  return out;
}

const bodies: [string, Buffer][] = [
  ["a comment (60 B)", Buffer.from(JSON.stringify({ body: "Split with Ann; receipt in the shared folder 🧾" }))],
  [
    "batch-categorize, 500 ids (~7 KB)",
    Buffer.from(
      JSON.stringify({ transaction_ids: Array.from({ length: 500 }, (_, i) => `tx${i}abcdef`), category_slug: "x" }),
    ),
  ],
  [
    "metadata of ~1 MiB, 4 levels",
    Buffer.from(
      JSON.stringify({
        items: Array.from({ length: 16_000 }, (_, i) => ({
          n: i,
          name: `line ${i} ünïcode`,
          tags: ["a", "b"],
          p: 1.5,
        })),
      }),
    ),
  ],
];

for (const [what, bytes] of bodies) {
  const n = bytes.length > 100_000 ? 200 : 5000;
  const lenient = summarize(await measure(async () => fastifyParse(bytes.toString("utf8")), n, n / 10));
  const strict = summarize(await measure(async () => readJsonBody(bytes, fastifyParse), n, n / 10));
  process.stdout.write(
    `${what} (${bytes.length} bytes): fastify ${ms(lenient.median)}, strict ${ms(strict.median)} ` +
      `(median of ${n}; p99 ${ms(lenient.p99)} vs ${ms(strict.p99)})\n`,
  );
}
await app.close();
