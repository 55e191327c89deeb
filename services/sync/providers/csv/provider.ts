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
import { readCsv, type CsvReadOptions, type CsvRow, type CsvRowError, type ParsedCsv } from "./rows.js";
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

/**
 * The last file read and how, so that the sync that follows an enrollment in
 * the same process (the first import) does not parse the file a second time.
 * One entry: a file's rows are large, and only the latest import needs them.
 */
let lastRead: { key: string; parsed: ParsedCsv } | null = null;

const readKey = (text: string, opts: CsvReadOptions) => `${fileHash(text)}:${JSON.stringify(opts)}`;

function readOnce(text: string, opts: CsvReadOptions): ParsedCsv {
  const key = readKey(text, opts);
  if (lastRead?.key !== key) lastRead = { key, parsed: readCsv(text, opts) };
  return lastRead.parsed;
}

function remember(text: string, opts: CsvReadOptions, parsed: ParsedCsv): void {
  lastRead = { key: readKey(text, opts), parsed };
}

/** Lets go of a file's rows once its import has read them all. */
function forget(parsed: ParsedCsv): void {
  if (lastRead?.parsed === parsed) lastRead = null;
}

/** The options a stored connection reads its file with (in the order `read` passes them). */
const settled = (p: ParsedCsv, positiveIsDebit: boolean): CsvReadOptions => ({
  columnMapping: p.mapping,
  dateFormat: p.dateFormat,
  positiveIsDebit,
});

const read = (c: CsvCredentials): ParsedCsv =>
  readOnce(c.csv, { columnMapping: c.column_mapping, dateFormat: c.date_format, positiveIsDebit: c.positive_is_debit });

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
          description: "the file: its text, or its bytes in base64 (at most 20 MB; UTF-8 or Windows-1252)",
        },
        column_mapping: {
          type: "object",
          required: true,
          description:
            "column names for date, amount (or debit and credit) and optionally description, merchant, " +
            "category, id; POST /api/v1/connections/csv/preview suggests one",
        },
        date_format: {
          type: "string",
          required: false,
          description: "YYYY-MM-DD, MM/DD/YYYY, DD/MM/YYYY or DD.MM.YYYY; inferred from the file when left out",
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
    const parsed = readCsv(text, {
      columnMapping: input.column_mapping,
      dateFormat: input.date_format,
      positiveIsDebit: input.positive_is_debit === true,
    });
    // The sync reads the file with the mapping and format settled here, which reads it exactly like this.
    remember(text, settled(parsed, input.positive_is_debit === true), parsed);
    const credentials: CsvCredentials = {
      csv: text,
      column_mapping: parsed.mapping,
      date_format: parsed.dateFormat,
      positive_is_debit: input.positive_is_debit === true,
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
      forget(parsed);
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
    forget(parsed);
  }

  private toTransaction(r: CsvRow, c: CsvCredentials) {
    return {
      providerAccountId: CSV_ACCOUNT_ID,
      providerTransactionId: r.key,
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
