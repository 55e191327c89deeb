import { createHash } from "node:crypto";
import { isCurrencyCode } from "../../../../common/currency.js";
import { checkText } from "../../../../common/text.js";
import { csvImportById, csvImportOptions, type CsvImportOptions } from "../../../db/tables/csv-imports.js";
import {
  ProviderError,
  type Credentials,
  type Enrollment,
  type LinkSession,
  type Provider,
  type ProviderAccount,
  type ProviderCallContext,
  type ProviderInfo,
  type SyncPage,
} from "../provider.js";
import { readCsv, streamCsv, type CsvRow, type CsvRowError } from "./rows.js";
import { decodeCsvInput } from "./text.js";

/** Rows per page: each page is one database transaction in the sync engine. */
export const CSV_PAGE_ROWS = 5000;

/** The one account a CSV connection fills. */
export const CSV_ACCOUNT_ID = "csv";

const invalid = (code: string, message: string) => new ProviderError("invalid_input", code, message);

/**
 * A CSV connection keeps no credentials: what the engine hands the provider
 * is the id of the connection's import (a csv_imports row), which holds the
 * file and how to read it.
 */
interface CsvImportRef {
  import_id: string;
}

/** The import a stored connection reads, and what it reads it with. */
export interface CsvImportSource {
  file: string;
  fileSha256: string;
  mapping: Record<string, string>;
  options: CsvImportOptions;
}

function accountName(raw: unknown): string {
  const r = checkText(typeof raw === "string" ? raw : "", "account_name", { max: 200 });
  if (!r.ok) throw invalid("CSV_ACCOUNT_NAME", r.message);
  return r.value;
}

function currency(raw: unknown): string {
  const code = typeof raw === "string" ? raw.trim().toUpperCase() : "";
  if (!isCurrencyCode(code)) throw invalid("CSV_CURRENCY", "iso_currency_code must be an ISO 4217 currency code");
  return code;
}

/** The key a CSV connection is found by: its account name, compared without regard to case and spacing. */
export const csvItemId = (name: string) => name.trim().replace(/\s+/g, " ").toLowerCase();

const importIdOf = (c: Credentials): string => {
  const id = (c as Partial<CsvImportRef>).import_id;
  if (typeof id !== "string") throw new ProviderError("invalid_input", "CSV_NO_IMPORT", "This connection has no file");
  return id;
};

/** The engine gives every call of a provider that keeps files its database session. */
const dbOf = (ctx: ProviderCallContext | undefined) => {
  if (!ctx) throw new Error("the CSV provider reads its imports through the call's context");
  return ctx.em;
};

/** The SHA-256 of a file's text (base64url): what an import record keeps. */
export const csvFileSha256 = (text: string) => createHash("sha256").update(text).digest("base64url");

/**
 * The records an enrollment reads to settle how the file is read (mapping,
 * date format, decimal separator): the inference looks at no more than this,
 * and reading the whole file would keep the caller waiting for an import
 * that the sync does anyway.
 */
export const ENROLL_SAMPLE_RECORDS = 5000;

/**
 * Where an import stands: the file (the first 22 characters of its hash) and
 * how many of its rows are committed.
 */
const cursorOf = (sha256: string, next: number) => `csv1:${sha256.slice(0, 22)}:${next}`;

function startOf(cursor: string | null, sha256: string): number {
  const m = cursor ? /^csv1:([A-Za-z0-9_-]+):(\d+)$/.exec(cursor) : null;
  return m && m[1] === sha256.slice(0, 22) ? Number(m[2]) : 0;
}

const rowRef = (e: CsvRowError) => ({ row: `line ${e.line}`, reason: e.reason });

/**
 * CSV import, in process: a connection fills one account from the files
 * imported into it, each an import record (csv_imports); a sync reads the
 * connection's newest import by id, in pages of CSV_PAGE_ROWS rows, parsing
 * as it goes without holding the event loop. The cursor records the file's
 * hash and the rows committed, so an import stopped half way (a crash)
 * continues where it stopped; a new file starts from its first row.
 */
export class CsvProvider implements Provider {
  readonly name = "csv" as const;

  info(): ProviderInfo {
    return {
      name: "csv",
      configured: true,
      needsLinkSession: false,
      capabilities: ["transactions", "file_import"],
      credentialsSchema: {
        csv: {
          type: "string",
          required: true,
          description:
            "the file: its text, or its bytes in base64 (at most 20 MB; UTF-8, UTF-16 with its byte order mark, " +
            "or Windows-1252)",
        },
        column_mapping: {
          type: "object",
          required: false,
          description:
            "column names for date, amount (or debit and credit) and optionally description, merchant, " +
            "category, id; inferred from the headers when left out (POST /api/v1/connections/csv/preview shows how)",
        },
        date_format: {
          type: "string",
          required: false,
          description: "YYYY-MM-DD, MM/DD/YYYY, DD/MM/YYYY or DD.MM.YYYY; inferred from the file when left out",
        },
        decimal_separator: {
          type: "string",
          required: false,
          description:
            '"." or ","; inferred from the amounts when left out. Required when the file cannot tell (every ' +
            "amount like 1.500, no other hint): the preview lists it under ambiguities",
        },
        positive_is_debit: {
          type: "boolean",
          required: false,
          description: "true when a positive amount in the file is money out; default false (positive = money in)",
        },
        account_name: {
          type: "string",
          required: true,
          description: "the account the rows go into; importing again under the same name adds to it",
        },
        iso_currency_code: { type: "string", required: true, description: "the account's currency, e.g. USD" },
      },
    };
  }

  async createLinkSession(): Promise<LinkSession | null> {
    return null;
  }

  async enroll(input: Credentials): Promise<Enrollment> {
    const name = accountName(input.account_name);
    const code = currency(input.iso_currency_code);
    if (typeof input.csv !== "string") throw invalid("CSV_EMPTY", "csv must be the file's text or base64");
    if (input.positive_is_debit !== undefined && typeof input.positive_is_debit !== "boolean") {
      throw invalid("CSV_SIGN", "positive_is_debit must be true or false");
    }
    const text = decodeCsvInput(input.csv);
    const positiveIsDebit = input.positive_is_debit === true;
    // A sample settles how to read the file and refuses what cannot be read at all; the sync reads the rest.
    const sample = readCsv(text, {
      columnMapping: input.column_mapping,
      dateFormat: input.date_format,
      decimalSeparator: input.decimal_separator,
      positiveIsDebit,
      sampleRecords: ENROLL_SAMPLE_RECORDS,
    });
    if (sample.ambiguities.length) {
      throw invalid("CSV_AMBIGUOUS", `${sample.ambiguities.map((x) => x.message).join(". ")}.`);
    }
    return {
      providerItemId: csvItemId(name),
      institutionId: null,
      institutionName: name,
      credentials: {},
      fileImport: {
        text,
        sha256: csvFileSha256(text),
        mapping: { ...sample.mapping },
        options: {
          date_format: sample.dateFormat,
          decimal_separator: sample.decimalSeparator,
          positive_is_debit: positiveIsDebit,
          account_name: name,
          iso_currency_code: code,
        },
      },
    };
  }

  async accounts(credentials: Credentials, ctx?: ProviderCallContext): Promise<ProviderAccount[]> {
    const options = await csvImportOptions(dbOf(ctx), importIdOf(credentials));
    if (!options) throw new ProviderError("invalid_input", "CSV_NO_IMPORT", "This connection's file is gone");
    return [
      {
        providerAccountId: CSV_ACCOUNT_ID,
        name: options.account_name,
        officialName: null,
        type: "depository",
        subtype: null,
        mask: null,
        isoCurrencyCode: options.iso_currency_code,
        balanceCurrent: null,
        balanceAvailable: null,
        balanceLimit: null,
      },
    ];
  }

  async *sync(credentials: Credentials, cursor: string | null, ctx?: ProviderCallContext): AsyncIterable<SyncPage> {
    const row = await csvImportById(dbOf(ctx), importIdOf(credentials));
    if (!row?.file) {
      throw new ProviderError(
        "invalid_input",
        "CSV_REPLACED",
        "This import's file was replaced by a newer one; the connection syncs the newest",
      );
    }
    yield* csvPages({ file: row.file, fileSha256: row.fileSha256, mapping: row.mapping, options: row.options }, cursor);
  }

  /** Nothing to end at a provider: the files are the whole connection. */
  async remove(): Promise<void> {}
}

/**
 * The decimal separator of a file stored before it was kept: inferred from a
 * sample, as an enrollment infers it.
 */
function decimalSeparatorOf(source: CsvImportSource): string {
  if (source.options.decimal_separator) return source.options.decimal_separator;
  return readCsv(source.file, {
    columnMapping: source.mapping,
    dateFormat: source.options.date_format,
    positiveIsDebit: source.options.positive_is_debit,
    sampleRecords: ENROLL_SAMPLE_RECORDS,
  }).decimalSeparator;
}

const toTransaction = (r: CsvRow, currencyCode: string) => ({
  providerAccountId: CSV_ACCOUNT_ID,
  providerTransactionId: r.key,
  sourceRef: `line ${r.line}`,
  amount: r.amount,
  isoCurrencyCode: currencyCode,
  date: r.date,
  authorizedDate: null,
  name: r.description || "(no description)",
  merchantName: r.merchant,
  categoryPrimary: r.category,
  categoryDetailed: null,
  pending: false,
  pendingTransactionId: null,
});

/**
 * An import's pages from `cursor` on: CSV_PAGE_ROWS rows each, with the bad
 * lines between the previous page's last row and its own (the last page
 * also takes the bad lines after its last row). A file with no good row at
 * all is one page that reports every bad line. The file is parsed as the
 * pages are asked for (streamCsv), so a 20 MB file never holds the event
 * loop for more than a moment.
 */
export async function* csvPages(source: CsvImportSource, cursor: string | null): AsyncGenerator<SyncPage> {
  const { options } = source;
  const start = startOf(cursor, source.fileSha256);
  const page = (rows: CsvRow[], errors: CsvRowError[], next: number): SyncPage => ({
    added: rows.map((r) => toTransaction(r, options.iso_currency_code)),
    modified: [],
    removed: [],
    windows: [],
    skipped: errors.map(rowRef),
    nextCursor: cursorOf(source.fileSha256, next),
  });
  let seen = 0;
  let rows: CsvRow[] = [];
  let errors: CsvRowError[] = [];
  // A full page goes once the next row shows it is not the last (the last takes the bad lines after it).
  let full: { rows: CsvRow[]; errors: CsvRowError[] } | null = null;
  const items = streamCsv(source.file, {
    columnMapping: source.mapping,
    dateFormat: options.date_format,
    decimalSeparator: decimalSeparatorOf(source),
    positiveIsDebit: options.positive_is_debit,
  });
  for await (const batch of items) {
    for (const item of batch) {
      if ("error" in item) {
        errors.push(item.error);
        continue;
      }
      seen++;
      if (seen <= start) {
        // Committed by an earlier sync, with the bad lines before it.
        errors = [];
        continue;
      }
      if (full) {
        yield page(full.rows, full.errors, seen - 1);
        full = null;
      }
      rows.push(item.row);
      if (rows.length === CSV_PAGE_ROWS) {
        full = { rows, errors };
        rows = [];
        errors = [];
      }
    }
  }
  if (full) yield page(full.rows, [...full.errors, ...errors], seen);
  else if (rows.length > 0 || seen === 0) yield page(rows, errors, seen);
}
