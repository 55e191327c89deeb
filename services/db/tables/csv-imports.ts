import type { Em } from "../orm.js";
import { query } from "../sql.js";

export type CsvImportStatus = "pending" | "running" | "done" | "failed";

/** How an import reads its file, settled when it was stored (mapping apart). */
export interface CsvImportOptions {
  date_format: string;
  /** "." or ","; absent only on files stored before it was kept (the sync then infers it). */
  decimal_separator?: string;
  positive_is_debit: boolean;
  account_name: string;
  iso_currency_code: string;
}

/** A new import: the decoded file and how to read it. */
export interface CsvImportDraft {
  id: string;
  connectionId: string;
  file: string;
  fileBytes: number;
  fileSha256: string;
  mapping: Record<string, string>;
  options: CsvImportOptions;
  status?: CsvImportStatus;
}

/** An import as the sync reads it. `file` is null once a newer import of the connection replaced it. */
export interface CsvImportRow {
  id: string;
  connectionId: string;
  file: string | null;
  fileSha256: string;
  mapping: Record<string, string>;
  options: CsvImportOptions;
  status: CsvImportStatus;
}

/** Where an import stands (no file). */
export interface CsvImportState {
  id: string;
  status: CsvImportStatus;
  rowCount: number;
  addedCount: number;
  skippedCount: number;
  errorCode: string | null;
  errorMessage: string | null;
}

/** Stores an import. The file is a bind parameter: it is megabytes. */
export async function insertCsvImport(em: Em, d: CsvImportDraft): Promise<void> {
  await query(
    em,
    `insert into csv_imports (id, connection_id, file, file_bytes, file_sha256, mapping, options, status,
       finished_at)
     values (?, ?, ?, ?, ?, ?::jsonb, ?::jsonb, ?, case when ? in ('done', 'failed') then now() end)`,
    [
      d.id,
      d.connectionId,
      d.file,
      d.fileBytes,
      d.fileSha256,
      JSON.stringify(d.mapping),
      JSON.stringify(d.options),
      d.status ?? "pending",
      d.status ?? "pending",
    ],
  );
}

/**
 * The connection's imports other than `keep` give up their files; one not
 * finished ends `failed` (a newer file replaced it before its import ended).
 */
export async function retireCsvImportsOf(em: Em, connectionId: string, keep: string): Promise<void> {
  await query(
    em,
    `update csv_imports set file = null, updated_at = now(),
       status = case when status in ('pending', 'running') then 'failed' else status end,
       error_code = case when status in ('pending', 'running') then 'CSV_REPLACED' else error_code end,
       error_message = case when status in ('pending', 'running')
         then 'A newer file for this account was imported before this one finished' else error_message end,
       finished_at = coalesce(finished_at, now())
     where connection_id = ? and id <> ? and (file is not null or status in ('pending', 'running'))`,
    [connectionId, keep],
  );
}

/** The import a sync of the connection runs: its newest. */
export async function latestCsvImportIdOf(em: Em, connectionId: string): Promise<string | undefined> {
  const [row] = await query<{ id: string }>(
    em,
    `select id from csv_imports where connection_id = ? order by created_at desc, id desc limit 1`,
    [connectionId],
  );
  return row?.id;
}

/** An import with its file. */
export async function csvImportById(em: Em, id: string): Promise<CsvImportRow | undefined> {
  const [row] = await query<CsvImportRow>(
    em,
    `select id, connection_id as "connectionId", file, file_sha256 as "fileSha256", mapping, options, status
     from csv_imports where id = ?`,
    [id],
  );
  return row;
}

/** An import's reading options, without its file (the account a sync fills is named there). */
export async function csvImportOptions(em: Em, id: string): Promise<CsvImportOptions | undefined> {
  const [row] = await query<{ options: CsvImportOptions }>(em, `select options from csv_imports where id = ?`, [id]);
  return row?.options;
}

export async function csvImportState(em: Em, id: string): Promise<CsvImportState | undefined> {
  const [row] = await query<CsvImportState>(
    em,
    `select id, status, row_count as "rowCount", added_count as "addedCount", skipped_count as "skippedCount",
       error_code as "errorCode", error_message as "errorMessage"
     from csv_imports where id = ?`,
    [id],
  );
  return row;
}

/** A sync of the import began (a replaced import stays as it is). */
export async function markCsvImportRunning(em: Em, id: string): Promise<void> {
  await query(
    em,
    `update csv_imports set status = 'running', error_code = null, error_message = null, finished_at = null,
       updated_at = now()
     where id = ? and file is not null`,
    [id],
  );
}

/**
 * A sync of the import ended: its counts are added to the import's, and it is
 * `done`, `failed` (with the error), or `pending` again (stopped between
 * pages; the next sync continues it). An import replaced meanwhile keeps
 * its `failed`, with the counts added.
 */
export async function endCsvImportSync(
  em: Em,
  id: string,
  e: {
    status: "done" | "failed" | "pending";
    rows: number;
    added: number;
    skipped: number;
    error: { code: string; message: string } | null;
  },
): Promise<void> {
  await query(
    em,
    `update csv_imports set
       row_count = row_count + ?, added_count = added_count + ?, skipped_count = skipped_count + ?,
       status = case when status = 'running' then ? else status end,
       error_code = case when status = 'running' then ? else error_code end,
       error_message = case when status = 'running' then ? else error_message end,
       finished_at = case when status = 'running' then (case when ? = 'pending' then null else now() end)
         else finished_at end,
       updated_at = now()
     where id = ?`,
    [e.rows, e.added, e.skipped, e.status, e.error?.code ?? null, e.error?.message ?? null, e.status, id],
  );
}

/** A disconnect forgets the connection's files (their records go with them). */
export async function deleteCsvImportsOf(em: Em, connectionId: string): Promise<void> {
  await query(em, `delete from csv_imports where connection_id = ?`, [connectionId]);
}
