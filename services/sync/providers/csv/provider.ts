import { createHash } from "node:crypto";
import { isCurrencyCode } from "../../../../common/currency.js";
import { checkText } from "../../../../common/text.js";
import {
  ProviderError,
  type Credentials,
  type Enrollment,
  type LinkSession,
  type Provider,
  type ProviderAccount,
  type ProviderInfo,
  type SyncPage,
} from "../provider.js";
import { readCsv, type CsvRow, type CsvRowError, type ParsedCsv } from "./rows.js";
import { decodeCsvInput } from "./text.js";

/** Rows per page: each page is one database transaction in the sync engine. */
export const CSV_PAGE_ROWS = 5000;

/** The one account a CSV connection fills. */
export const CSV_ACCOUNT_ID = "csv";

const invalid = (code: string, message: string) => new ProviderError("invalid_input", code, message);

/** What a CSV connection stores (encrypted, like every provider's credentials): the file and how to read it. */
interface CsvCredentials {
  csv: string;
  column_mapping: unknown;
  date_format: string;
  /** Absent on connections stored before it was kept. */
  decimal_separator?: string;
  positive_is_debit: boolean;
  account_name: string;
  iso_currency_code: string;
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

const stored = (c: Credentials) => c as unknown as CsvCredentials;

const fileHash = (text: string) => createHash("sha256").update(text).digest("base64url").slice(0, 22);

/** How a stored connection reads its file: with the options its enrollment settled. */
const read = (c: CsvCredentials): ParsedCsv =>
  readCsv(c.csv, {
    columnMapping: c.column_mapping,
    dateFormat: c.date_format,
    // Connections stored before the separator was kept infer it, as they did then.
    decimalSeparator: c.decimal_separator,
    positiveIsDebit: c.positive_is_debit,
  });

/**
 * The records an enrollment reads to settle how the file is read (mapping,
 * date format, decimal separator): the inference looks at no more than this,
 * and reading the whole file would keep the caller waiting for an import
 * that the sync does anyway.
 */
export const ENROLL_SAMPLE_RECORDS = 5000;

/** Where an import stands: the file (by hash) and how many of its rows are committed. */
const cursorOf = (hash: string, next: number) => `csv1:${hash}:${next}`;

function startOf(cursor: string | null, hash: string): number {
  const m = cursor ? /^csv1:([A-Za-z0-9_-]+):(\d+)$/.exec(cursor) : null;
  return m && m[1] === hash ? Number(m[2]) : 0;
}

const rowRef = (e: CsvRowError) => ({ row: `line ${e.line}`, reason: e.reason });

/**
 * CSV import, in process: a connection holds one file for one account, and
 * a sync reads it in pages of CSV_PAGE_ROWS rows. The cursor records the
 * file's hash and the rows committed, so an import stopped half way (a
 * crash) continues where it stopped; a new file starts from its first row.
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
    const credentials: CsvCredentials = {
      csv: text,
      column_mapping: sample.mapping,
      date_format: sample.dateFormat,
      decimal_separator: sample.decimalSeparator,
      positive_is_debit: positiveIsDebit,
      account_name: name,
      iso_currency_code: code,
    };
    return {
      providerItemId: csvItemId(name),
      institutionId: null,
      institutionName: name,
      credentials: credentials as unknown as Credentials,
    };
  }

  async accounts(credentials: Credentials): Promise<ProviderAccount[]> {
    const c = stored(credentials);
    return [
      {
        providerAccountId: CSV_ACCOUNT_ID,
        name: c.account_name,
        officialName: null,
        type: "depository",
        subtype: null,
        mask: null,
        isoCurrencyCode: c.iso_currency_code,
        balanceCurrent: null,
        balanceAvailable: null,
        balanceLimit: null,
      },
    ];
  }

  async *sync(credentials: Credentials, cursor: string | null): AsyncIterable<SyncPage> {
    const c = stored(credentials);
    const parsed = read(c);
    const hash = fileHash(c.csv);
    const start = startOf(cursor, hash);
    const { rows, errors } = parsed;
    if (rows.length === 0) {
      // Every line was bad: one page reports them all.
      yield {
        added: [],
        modified: [],
        removed: [],
        windows: [],
        skipped: errors.map(rowRef),
        nextCursor: cursorOf(hash, 0),
      };
      return;
    }
    for (let from = start; from < rows.length; from += CSV_PAGE_ROWS) {
      const to = Math.min(rows.length, from + CSV_PAGE_ROWS);
      // A page reports the bad lines between the previous page's last row and its own.
      const after = from === 0 ? 0 : rows[from - 1].line;
      const upTo = to === rows.length ? Infinity : rows[to - 1].line;
      yield {
        added: rows.slice(from, to).map((r) => this.toTransaction(r, c)),
        modified: [],
        removed: [],
        windows: [],
        skipped: errors.filter((e) => e.line > after && e.line <= upTo).map(rowRef),
        nextCursor: cursorOf(hash, to),
      };
    }
  }

  private toTransaction(r: CsvRow, c: CsvCredentials) {
    return {
      providerAccountId: CSV_ACCOUNT_ID,
      providerTransactionId: r.key,
      sourceRef: `line ${r.line}`,
      amount: r.amount,
      isoCurrencyCode: c.iso_currency_code,
      date: r.date,
      authorizedDate: null,
      name: r.description || "(no description)",
      merchantName: r.merchant,
      categoryPrimary: r.category,
      categoryDetailed: null,
      pending: false,
      pendingTransactionId: null,
    };
  }

  /** Nothing to end at a provider: the file is the whole connection. */
  async remove(): Promise<void> {}
}
