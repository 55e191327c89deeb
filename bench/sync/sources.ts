import { spawn, type ChildProcess } from "node:child_process";
import { createInterface } from "node:readline";
import { fileURLToPath } from "node:url";
import { closeOrm, openOrm } from "../../services/db/orm.js";
import { createConnection } from "../../services/sync/connections.js";
import { CredentialCipher } from "../../services/sync/credentials.js";
import { SyncEngine } from "../../services/sync/engine.js";
import { CsvProvider } from "../../services/sync/providers/csv/provider.js";
import { ProviderRegistry, providersFromEnv } from "../../services/sync/registry.js";
import { createUser } from "../../services/users/users.js";
import { mappedCategorySlug } from "../../services/sync/category-map.js";
import { PlaidProvider } from "../../services/sync/providers/plaid/index.js";
import { benchCsv, csvFloorRows, type BenchRow, type FloorRow } from "./rows.js";

/** A source of transactions for the ingest benchmark. */
export interface IngestSource {
  name: string;
  /**
   * Sets up what the timed step needs (outside the timing) on a fresh, migrated
   * database, and returns the step: it ingests every row and resolves to the
   * milliseconds it took.
   */
  prepare(ctx: { url: string; rows: BenchRow[] }): Promise<{ run(): Promise<number>; close(): Promise<void> }>;
  /** The rows it ingests, as the engine writes them: the floor inserts these (read once, before any run). */
  floorRows(ctx: { rows: BenchRow[] }): Promise<FloorRow[]>;
  /** Ends what the source keeps between runs (a fake provider's process). */
  shutdown?(): Promise<void>;
}

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const KEY = "5eed".repeat(16);

/**
 * CSV import as POST /api/v1/connections and its first sync do it: the file
 * is parsed and validated, stored as an import record (csv_imports), then read again by the sync
 * engine and committed page by page (5,000 rows a page), every row going
 * through dedup, category mapping and the sync log.
 */
const csvImport: IngestSource = {
  name: "csv import",
  floorRows: async ({ rows }) => csvFloorRows(rows),
  async prepare({ url, rows }) {
    const orm = await openOrm(url, 4);
    const csv = benchCsv(rows);
    const registry = new ProviderRegistry([new CsvProvider()]);
    const cipher = new CredentialCipher(KEY);
    const engine = new SyncEngine({ orm, databaseUrl: url, cipher, registry, hooks: [], log: quiet });
    const user = await createUser(orm.em.fork(), { name: "Bench" });
    const actor = { type: "system" as const, id: null, keyId: null, name: "bench" };
    return {
      async run() {
        const t0 = performance.now();
        const c = await createConnection(
          orm.em.fork(),
          { registry, cipher, requestSync: () => Promise.reject(new Error("not queued in the bench")) },
          actor,
          {
            provider: "csv",
            userId: user.id,
            credentials: {
              csv,
              column_mapping: { date: "Date", amount: "Amount", description: "Description" },
              account_name: "Bench",
              iso_currency_code: "USD",
            },
          },
          { runFirstSync: "caller" },
        );
        const outcome = await engine.run(c.id, { trigger: "import" });
        const ms = performance.now() - t0;
        if (outcome.status !== "success" || outcome.added !== rows.length) {
          throw new Error(`the import did not add every row: ${JSON.stringify(outcome)}`);
        }
        return ms;
      },
      close: () => closeOrm(orm),
    };
  },
};

/** The Plaid fake, run as a process of its own (as Plaid would be), started once for every run. */
interface FakePlaidProcess {
  child: ChildProcess;
  url: string;
  clientId: string;
  secret: string;
}

let fakePlaid: Promise<FakePlaidProcess> | null = null;

function startFakePlaid(transactions: number): Promise<FakePlaidProcess> {
  const main = fileURLToPath(new URL("../../test/fakes/plaid/main.ts", import.meta.url));
  const child = spawn(
    process.execPath,
    ["--import", "tsx", main, "--transactions", String(transactions), "--items", "0"],
    { stdio: ["ignore", "pipe", "inherit"] },
  );
  // Never outlive the benchmark, even when it fails half way.
  process.once("exit", () => child.kill("SIGTERM"));
  return new Promise((resolve, reject) => {
    child.once("exit", (code) => reject(new Error(`the Plaid fake exited (${code})`)));
    createInterface({ input: child.stdout }).once("line", (line) => {
      const { url, clientId, secret } = JSON.parse(line) as { url: string; clientId: string; secret: string };
      resolve({ child, url, clientId, secret });
    });
  });
}

/** A public token for a new Item of the fake (as Link's onSuccess hands over). */
async function newPublicToken(fake: FakePlaidProcess): Promise<string> {
  const res = await fetch(`${fake.url}/sandbox/public_token/create`, {
    method: "POST",
    headers: { "content-type": "application/json", "PLAID-CLIENT-ID": fake.clientId, "PLAID-SECRET": fake.secret },
    body: JSON.stringify({ institution_id: "ins_109508", initial_products: ["transactions"] }),
  });
  return ((await res.json()) as { public_token: string }).public_token;
}

/**
 * A first sync of a new Plaid connection, as a core runs it: the registry's
 * real Plaid client (built from the same settings PLAID_* give) reads the
 * Item's whole history from the Plaid fake over HTTP, 500 transactions a
 * /transactions/sync page, and the engine commits each page (dedup, category
 * mapping, cursor, sync log). The Item (with as many generated transactions
 * as the benchmark has rows) and the public-token exchange are made outside
 * the timing.
 */
const plaidSync: IngestSource = {
  name: "plaid sync",
  /** An Item's history read through the client (every Item's is made by the same generator, with the same count). */
  async floorRows({ rows }) {
    const fake = await (fakePlaid ??= startFakePlaid(rows.length));
    const plaid = new PlaidProvider({ clientId: fake.clientId, secret: fake.secret, baseUrl: fake.url });
    const { credentials } = await plaid.enroll({ public_token: await newPublicToken(fake) });
    const out: FloorRow[] = [];
    for await (const page of plaid.sync(credentials, null)) {
      for (const t of page.added) {
        out.push({
          ptid: t.providerTransactionId,
          amount: t.amount,
          date: t.date,
          authorizedDate: t.authorizedDate,
          name: t.name,
          merchant: t.merchantName,
          primary: t.categoryPrimary,
          detailed: t.categoryDetailed,
          categorySlug: mappedCategorySlug("plaid", t.categoryPrimary, t.categoryDetailed, () => null),
          pending: t.pending,
        });
      }
    }
    return out;
  },
  async prepare({ url, rows }) {
    const fake = await (fakePlaid ??= startFakePlaid(rows.length));
    const publicToken = await newPublicToken(fake);
    const orm = await openOrm(url, 4);
    const registry = providersFromEnv({
      plaid: { clientId: fake.clientId, secret: fake.secret, baseUrl: fake.url, webhookUrl: `${fake.url}/hooks` },
      teller: null,
      simplefin: { timeoutSeconds: 120 },
    });
    const cipher = new CredentialCipher(KEY);
    const engine = new SyncEngine({ orm, databaseUrl: url, cipher, registry, hooks: [], log: quiet });
    const user = await createUser(orm.em.fork(), { name: "Bench" });
    const actor = { type: "system" as const, id: null, keyId: null, name: "bench" };
    const c = await createConnection(
      orm.em.fork(),
      { registry, cipher, requestSync: () => Promise.reject(new Error("not queued in the bench")) },
      actor,
      { provider: "plaid", userId: user.id, credentials: { public_token: publicToken } },
      { runFirstSync: "caller" },
    );
    return {
      async run() {
        const t0 = performance.now();
        const outcome = await engine.run(c.id, { trigger: "initial" });
        const ms = performance.now() - t0;
        if (outcome.status !== "success" || outcome.added !== rows.length) {
          throw new Error(`the sync did not add every row: ${JSON.stringify(outcome)}`);
        }
        return ms;
      },
      close: () => closeOrm(orm),
    };
  },
  async shutdown() {
    if (!fakePlaid) return;
    const { child } = await fakePlaid;
    fakePlaid = null;
    child.kill("SIGTERM");
  },
};

/** Every source the benchmark measures, in order. */
export const SOURCES: IngestSource[] = [csvImport, plaidSync];
