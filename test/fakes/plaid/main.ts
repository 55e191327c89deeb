/**
 * The Plaid fake as a process of its own, for benchmarks and manual runs:
 *
 *   npx tsx test/fakes/plaid/main.ts --transactions 100000 [--port 0] [--items 1]
 *
 * It prints one JSON line, then serves until SIGINT/SIGTERM:
 *   {"url","clientId","secret","items":[{"publicToken","accessToken","itemId"}]}
 * Every Item has `--transactions` generated rows (so do Items minted later
 * through POST /sandbox/public_token/create). Point Coffer at it with
 * PLAID_BASE_URL=<url>, PLAID_CLIENT_ID=<clientId>, PLAID_SECRET=<secret>.
 */
import { parseArgs } from "node:util";
import { FakePlaid } from "./server.js";

const { values } = parseArgs({
  options: {
    transactions: { type: "string", default: "100000" },
    items: { type: "string", default: "1" },
    port: { type: "string", default: "0" },
  },
});

const fake = new FakePlaid();
fake.defaultTransactions = Number(values.transactions);
await fake.start(Number(values.port));
const items = Array.from({ length: Number(values.items) }, () => {
  const { publicToken, item } = fake.createPublicToken();
  return { publicToken, accessToken: item.accessToken, itemId: item.itemId };
});
process.stdout.write(`${JSON.stringify({ url: fake.url, clientId: fake.clientId, secret: fake.secret, items })}\n`);

const stop = () => void fake.stop().then(() => process.exit(0));
process.on("SIGINT", stop);
process.on("SIGTERM", stop);
