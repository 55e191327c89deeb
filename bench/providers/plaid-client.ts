/**
 * How fast the Plaid client alone reads and normalises a 100,000-transaction
 * history from the Plaid fake (run as a separate process, as Plaid would be):
 * the provider's share of a sync, with no database. The sync benchmark
 * measures the whole ingest; this one says how much of it is the client.
 *
 *   npx tsx bench/providers/plaid-client.ts [--transactions 100000] [--runs 3]
 */
import { spawn } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { parseArgs } from "node:util";
import { PlaidProvider } from "../../services/sync/providers/plaid/index.js";
import { summarize } from "../stats.js";

const { values } = parseArgs({
  options: { transactions: { type: "string", default: "100000" }, runs: { type: "string", default: "3" } },
});
const runs = Number(values.runs);

const fakeMain = fileURLToPath(new URL("../../test/fakes/plaid/main.ts", import.meta.url));
const child = spawn(process.execPath, ["--import", "tsx", fakeMain, "--transactions", values.transactions], {
  stdio: ["ignore", "pipe", "inherit"],
});
const [line] = await createInterface({ input: child.stdout })
  [Symbol.asyncIterator]()
  .next()
  .then((r) => [r.value as string]);
const fake = JSON.parse(line) as { url: string; clientId: string; secret: string; items: { accessToken: string }[] };

try {
  const plaid = new PlaidProvider({ clientId: fake.clientId, secret: fake.secret, baseUrl: fake.url });
  // One untimed run warms the fake's serialised rows and the client's code paths; every run reads the whole history.
  for await (const _ of plaid.sync({ access_token: fake.items[0].accessToken }, null));
  const rates: number[] = [];
  for (let run = 0; run < runs; run++) {
    const t0 = performance.now();
    let rows = 0;
    let pages = 0;
    for await (const page of plaid.sync({ access_token: fake.items[0].accessToken }, null)) {
      rows += page.added.length;
      pages++;
    }
    const seconds = (performance.now() - t0) / 1000;
    rates.push(rows / seconds);
    console.log(`run ${run + 1}: ${rows} transactions in ${pages} pages, ${seconds.toFixed(2)} s`);
  }
  const median = summarize(rates).median;
  console.log(
    `Plaid client (fake Plaid, no database): median ${Math.round(median).toLocaleString("en")} transactions/s`,
  );
} finally {
  child.kill("SIGTERM");
}
