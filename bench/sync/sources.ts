import { closeOrm, openOrm } from "../../services/db/orm.js";
import { createConnection } from "../../services/sync/connections.js";
import { CredentialCipher } from "../../services/sync/credentials.js";
import { SyncEngine } from "../../services/sync/engine.js";
import { CsvProvider } from "../../services/sync/providers/csv/provider.js";
import { ProviderRegistry } from "../../services/sync/registry.js";
import { createUser } from "../../services/users/users.js";
import { benchCsv, type BenchRow } from "./rows.js";

/** A source of transactions for the ingest benchmark. */
export interface IngestSource {
  name: string;
  /**
   * Sets up what the timed step needs (outside the timing) on a fresh, migrated
   * database, and returns the step: it ingests every row and resolves to the
   * milliseconds it took.
   */
  prepare(ctx: { url: string; rows: BenchRow[] }): Promise<{ run(): Promise<number>; close(): Promise<void> }>;
}

const quiet = { info: () => undefined, warn: () => undefined, error: () => undefined };
const KEY = "5eed".repeat(16);

/**
 * CSV import as POST /api/v1/connections and its first sync do it: the file
 * is parsed and validated, stored encrypted, then read again by the sync
 * engine and committed page by page (5,000 rows a page), every row going
 * through dedup, category mapping and the sync log.
 */
const csvImport: IngestSource = {
  name: "csv import",
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

/** Every source the benchmark measures, in order. */
export const SOURCES: IngestSource[] = [csvImport];
