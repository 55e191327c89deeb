import type { ConnectionStatus } from "../db/entities/index.js";
import type { Em } from "../db/orm.js";
import {
  countSealedCsvConnections,
  lockSealedCsvConnections,
  updateConnectionCredentials,
} from "../db/tables/connections.js";
import {
  endCsvImportSync,
  insertCsvImport,
  latestCsvImportIdOf,
  markCsvImportRunning,
  retireCsvImportsOf,
  type CsvImportOptions,
} from "../db/tables/csv-imports.js";
import { CofferError } from "../errors/coffer-error.js";
import { CredentialsUnreadable, type CredentialCipher } from "./credentials.js";
import { csvFileSha256 } from "./providers/csv/provider.js";
import { keepsFiles, type Credentials, type FileImport, type Provider } from "./providers/provider.js";
import { sealedCredentials } from "./stored-credentials.js";

/**
 * A connection's input at rest, as its provider keeps it: sealed credentials
 * (Plaid, Teller, SimpleFIN), or files as import records (CSV: csv_imports,
 * docs/sync.md "CSV import records"), which are not secret and need no key.
 */

/** Stores a file as the connection's newest import; older imports give up their files. */
export async function storeFileImport(tx: Em, connectionId: string, f: FileImport): Promise<string> {
  const id = crypto.randomUUID();
  await insertCsvImport(tx, {
    id,
    connectionId,
    file: f.text,
    fileBytes: Buffer.byteLength(f.text, "utf8"),
    fileSha256: f.sha256,
    mapping: f.mapping,
    options: f.options,
  });
  await retireCsvImportsOf(tx, connectionId, id);
  return id;
}

/** What a connection's provider calls are given, and the import a sync of it runs (null: none). */
export async function connectionInput(
  em: Em,
  cipher: CredentialCipher,
  connectionId: string,
  provider: Provider,
): Promise<{ credentials: Credentials; importId: string | null }> {
  if (!keepsFiles(provider)) {
    return { credentials: cipher.open(connectionId, await sealedCredentials(em, connectionId)), importId: null };
  }
  let importId = await latestCsvImportIdOf(em, connectionId);
  if (!importId) {
    // A file stored before csv_imports that the core could not move when it started (it had no key).
    if (!cipher.hasKey) throw keyNeededForOldFile();
    await em.transactional((tx) => moveSealedCsvFiles(tx, cipher));
    importId = await latestCsvImportIdOf(em, connectionId);
    // Not moved: opening the credentials says why (they do not open with this key, or there are none).
    if (!importId) cipher.open(connectionId, await sealedCredentials(em, connectionId));
    if (!importId) throw new CofferError("CONFLICT", "This connection has no file; import one");
  }
  return { credentials: { import_id: importId }, importId };
}

const keyNeededForOldFile = () =>
  new CofferError(
    "ENCRYPTION_KEY_MISSING",
    "This CSV connection's file was stored encrypted by an older Coffer, and COFFER_ENCRYPTION_KEY is not set: " +
      "start the core once with its key (it moves the file out of the credentials), or import the file again",
  );

/** A sync of the import began. */
export async function fileImportStarted(em: Em, importId: string | null): Promise<void> {
  if (importId) await markCsvImportRunning(em, importId);
}

/** A sync of the import ended: how, and what it committed. */
export async function fileImportEnded(
  em: Em,
  importId: string | null,
  outcome: "success" | "error" | "interrupted",
  counts: { added: number; modified: number; unchanged: number; skipped: number },
  error: { code: string; message: string } | null,
): Promise<void> {
  if (!importId) return;
  await endCsvImportSync(em, importId, {
    status: outcome === "success" ? "done" : outcome === "error" ? "failed" : "pending",
    rows: counts.added + counts.modified + counts.unchanged + counts.skipped,
    added: counts.added,
    skipped: counts.skipped,
    error: outcome === "error" ? error : null,
  });
}

/** What a CSV connection stored sealed before csv_imports. */
interface SealedCsvFile {
  csv: string;
  column_mapping: Record<string, string>;
  date_format: string;
  decimal_separator?: string;
  positive_is_debit: boolean;
  account_name: string;
  iso_currency_code: string;
}

/**
 * Moves the files CSV connections stored in their sealed credentials (before
 * csv_imports) into import records, and wipes those credentials; run in a
 * transaction. A connection whose import had finished (a cursor, no error)
 * gets a `done` import, any other a `pending` one that its next sync runs.
 * Rows another core is moving are skipped, and so are files that do not open
 * with this key (left as they are). Returns how many were moved.
 */
export async function moveSealedCsvFiles(tx: Em, cipher: CredentialCipher): Promise<number> {
  const rows = await lockSealedCsvConnections(tx);
  let moved = 0;
  for (const r of rows) {
    let c: SealedCsvFile;
    try {
      c = cipher.open(r.id, r.credentials) as unknown as SealedCsvFile;
    } catch (e) {
      if (e instanceof CredentialsUnreadable) continue;
      throw e;
    }
    const options: CsvImportOptions = {
      date_format: c.date_format,
      positive_is_debit: c.positive_is_debit,
      account_name: c.account_name,
      iso_currency_code: c.iso_currency_code,
      ...(c.decimal_separator ? { decimal_separator: c.decimal_separator } : {}),
    };
    await insertCsvImport(tx, {
      id: crypto.randomUUID(),
      connectionId: r.id,
      file: c.csv,
      fileBytes: Buffer.byteLength(c.csv, "utf8"),
      fileSha256: csvFileSha256(c.csv),
      mapping: c.column_mapping,
      options,
      status: importedBefore(r) ? "done" : "pending",
    });
    await updateConnectionCredentials(tx, r.id, null);
    moved++;
  }
  return moved;
}

const importedBefore = (r: { cursor: string | null; status: ConnectionStatus }) =>
  r.cursor !== null && r.status === "active";

/**
 * At the core's start: moves the files older CSV connections keep sealed
 * (moveSealedCsvFiles) when the core has the key; without it, says how many
 * wait for a start with the key. A file that does not open with this key is
 * left as it is (its connection's sync says CREDENTIALS_UNREADABLE).
 */
export async function moveSealedCsvFilesAtStart(
  em: Em,
  cipher: CredentialCipher,
  log: { info(obj: object, msg: string): void; warn(obj: object, msg: string): void },
): Promise<void> {
  const waiting = await countSealedCsvConnections(em);
  if (waiting === 0) return;
  if (!cipher.hasKey) {
    log.warn(
      { connections: waiting },
      "CSV connections hold files sealed by an older Coffer; without COFFER_ENCRYPTION_KEY they cannot be moved " +
        "to csv_imports, and their syncs fail until the core starts with the key or the file is imported again",
    );
    return;
  }
  try {
    const moved = await em.transactional((tx) => moveSealedCsvFiles(tx, cipher));
    if (moved > 0) log.info({ connections: moved }, "moved CSV files out of sealed credentials into csv_imports");
  } catch (e) {
    log.warn(
      { err: e instanceof Error ? e.message : String(e) },
      "could not move CSV files out of sealed credentials; their connections' syncs will say why",
    );
  }
}
