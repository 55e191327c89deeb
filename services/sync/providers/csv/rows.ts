import { createHash } from "node:crypto";
import { setImmediate as nextTurn } from "node:timers/promises";
import { parse as parseStream, type Options as ParseOptions } from "csv-parse";
import { parse, type CsvError } from "csv-parse/sync";
import { DATE_MAX_YEAR, DATE_MIN_YEAR } from "../../../../common/validation.js";
import { ProviderError } from "../provider.js";
import { detectDelimiter, type Delimiter } from "./dialect.js";
import { inferMapping, resolveMapping, type ColumnIndexes, type ColumnMapping } from "./mapping.js";
import {
  DATE_FORMATS,
  DECIMAL_SEPARATORS,
  ambiguousAmount,
  clip,
  inferDateFormat,
  inferDecimalSeparator,
  isDateOrderAmbiguous,
  localeHint,
  parseAmountCell,
  parseDateCell,
  type DateFormat,
  type DecimalSeparator,
} from "./values.js";
import { negateMoney } from "../../../../common/money.js";

/** How to read a file; what is left out is inferred from the file. */
export interface CsvReadOptions {
  columnMapping?: unknown;
  dateFormat?: unknown;
  /** True when a positive amount in the file is money out (Coffer's own sign); false (default) when it is money in. */
  positiveIsDebit?: boolean;
  /** "." or ","; inferred from the amounts when left out. */
  decimalSeparator?: unknown;
  /** Read only the header and this many records after it (enough to settle how to read the rest). */
  sampleRecords?: number;
}

/** A choice the file alone cannot settle: the field that settles it, its values, and why it is needed. */
export interface CsvAmbiguity {
  field: "date_format" | "decimal_separator";
  options: string[];
  message: string;
}

/** One transaction row, read and normalised (Coffer's sign: positive = money out). */
export interface CsvRow {
  /** The file line the row starts on (the header is line 1). */
  line: number;
  date: string;
  amount: string;
  description: string;
  merchant: string | null;
  category: string | null;
  /** The bank's id when the export has one, else a fingerprint of the row (see rowKeys). */
  key: string;
}

export interface CsvRowError {
  line: number;
  reason: string;
}

export interface ParsedCsv {
  delimiter: Delimiter;
  headers: string[];
  mapping: ColumnMapping;
  dateFormat: DateFormat;
  decimalSeparator: DecimalSeparator;
  /** What had to be guessed (date order, decimal separator): read with the guess, but the caller should ask. */
  ambiguities: CsvAmbiguity[];
  rows: CsvRow[];
  errors: CsvRowError[];
}

/** The longest bank id kept (the sync stores at most 300 characters of an id, and "id:" goes in front). */
const MAX_BANK_ID = 290;

const invalid = (code: string, message: string) => new ProviderError("invalid_input", code, message);

interface RawRecord {
  line: number;
  cells: string[];
}

/** Line breaks inside a record's quoted fields: a record that holds them spans that many more lines. */
function lineBreaksIn(cells: string[]): number {
  let n = 0;
  for (const c of cells) {
    if (!c.includes("\n") && !c.includes("\r")) continue;
    n += c.match(/\r\n|\r|\n/g)!.length;
  }
  return n;
}

/**
 * The line endings a file uses. Files pasted together from several systems
 * mix them, and then each of CRLF, LF and CR ends a record; a file that uses
 * one kind is read with that one alone, which csv-parse does in half the time.
 */
function lineEndings(text: string): string | string[] {
  if (!text.includes("\r")) return "\n";
  if (!/\r(?!\n)|(?<!\r)\n/.test(text)) return "\r\n";
  if (!text.includes("\n")) return "\r";
  return ["\r\n", "\n", "\r"];
}

/** A record csv-parse skipped: before which record, up to which line, and why. */
interface Skip {
  before: number;
  lines: number;
  reason: string;
  code: string;
}

/** csv-parse's options for a file; skipped records are reported to `skips`. */
function parseOptions(text: string, delimiter: Delimiter, skips: Skip[]): ParseOptions {
  return {
    delimiter,
    record_delimiter: lineEndings(text),
    relax_column_count: true,
    relax_quotes: true,
    skip_empty_lines: false,
    skip_records_with_error: true,
    on_skip: (err: CsvError | undefined) => {
      if (!err) return;
      const e = err as CsvError & { lines?: number; records?: number };
      skips.push({ before: e.records ?? 0, lines: e.lines ?? 0, reason: describeParseError(err), code: err.code });
    },
  };
}

/**
 * Numbers records by the line each starts on, and turns csv-parse's skips
 * into bad lines. Lines are counted here rather than asked of csv-parse per
 * record, which costs more than the parsing itself.
 */
function lineCounter(skips: Skip[], errors: CsvRowError[]) {
  let line = 1;
  let s = 0;
  const skipUpTo = (r: number) => {
    for (; s < skips.length && skips[s].before <= r; s++) {
      // A quote that never closes swallows every line after it: the file cannot be read past it, so it is refused.
      if (skips[s].code === "CSV_QUOTE_NOT_CLOSED") {
        throw invalid(
          "CSV_UNCLOSED_QUOTE",
          `Line ${line} opens a quoted field that is never closed, so the file cannot be read from there on. ` +
            `Close the quote (a quote inside a quoted field is written twice: "")`,
        );
      }
      errors.push({ line, reason: skips[s].reason });
      line = Math.max(line, skips[s].lines) + 1;
    }
  };
  return {
    /** The `r`-th record (0-based), or null for an empty line. */
    record(r: number, cells: string[]): RawRecord | null {
      skipUpTo(r);
      const start = line;
      line += 1 + lineBreaksIn(cells);
      return cells.length === 1 && cells[0].trim() === "" ? null : { line: start, cells };
    },
    end: () => skipUpTo(Infinity),
  };
}

/**
 * Splits the text into records with the line each starts on. A record
 * csv-parse cannot read (broken quoting) is an error of the line it starts on,
 * and the others are still read.
 */
function records(text: string, delimiter: Delimiter, errors: CsvRowError[], limit?: number): RawRecord[] {
  const skips: Skip[] = [];
  const parsed: string[][] = parse(text, {
    ...parseOptions(text, delimiter, skips),
    ...(limit === undefined ? {} : { to: limit }),
  });
  const lines = lineCounter(skips, errors);
  const out: RawRecord[] = [];
  for (let r = 0; r < parsed.length; r++) {
    const rec = lines.record(r, parsed[r]);
    if (rec) out.push(rec);
  }
  lines.end();
  return out;
}

/** Characters handed to the parser at a time (a few hundred lines): each is parsed in a few milliseconds. */
const STREAM_CHUNK_CHARS = 16 * 1024;

/**
 * `records` without holding the event loop: the text goes to csv-parse's
 * stream API 16 KiB at a time, and between two chunks the loop gets a turn
 * (timers and I/O run, so other calls and health checks are answered
 * meanwhile). Yields each chunk's records together: one await per chunk,
 * not per record, keeps the reading as cheap as `records`.
 */
async function* streamRecords(text: string, delimiter: Delimiter, errors: CsvRowError[]): AsyncGenerator<RawRecord[]> {
  const skips: Skip[] = [];
  const parser = parseStream(parseOptions(text, delimiter, skips));
  const parsed: string[][] = [];
  // Set by the parser's error event (a closure TypeScript cannot follow, hence an object).
  const failed: { error: Error | null } = { error: null };
  parser.on("data", (cells: string[]) => parsed.push(cells));
  parser.on("error", (e: Error) => (failed.error ??= e));
  const ended = new Promise<void>((resolve) => parser.once("end", resolve).once("error", () => resolve()));
  const lines = lineCounter(skips, errors);
  let r = 0;
  const take = () => {
    const out: RawRecord[] = [];
    for (const cells of parsed.splice(0)) {
      const rec = lines.record(r++, cells);
      if (rec) out.push(rec);
    }
    return out;
  };
  try {
    for (let i = 0; i < text.length; i += STREAM_CHUNK_CHARS) {
      parser.write(text.slice(i, i + STREAM_CHUNK_CHARS));
      // The chunk's records arrive (data events) before the loop's next turn ends this wait.
      await nextTurn();
      if (failed.error) throw failed.error;
      yield take();
    }
    parser.end();
    await ended;
    if (failed.error) throw failed.error;
    const rest = take();
    lines.end();
    yield rest;
  } finally {
    parser.destroy();
  }
}

function describeParseError(err: CsvError): string {
  switch (err.code) {
    case "CSV_QUOTE_NOT_CLOSED":
      return "a quoted field is never closed";
    case "CSV_INVALID_CLOSING_QUOTE":
      return "text follows a closing quote";
    default:
      return "the line cannot be read as CSV";
  }
}

/** Header names that occur more than once (compared as mapping compares them), each named once. */
function duplicateHeaders(headers: string[]): string[] {
  const seen = new Map<string, number>();
  for (const h of headers) {
    const k = h.trim().toLowerCase().replace(/\s+/g, " ");
    if (k) seen.set(k, (seen.get(k) ?? 0) + 1);
  }
  return headers.filter(
    (h, i) => seen.get(h.trim().toLowerCase().replace(/\s+/g, " "))! > 1 && headers.indexOf(h) === i,
  );
}

/** The mapping, date format, decimal separator and sign handling a file is read with: as given, else as inferred. */
function settle(headers: string[], body: RawRecord[], delimiter: Delimiter, opts: CsvReadOptions) {
  let mapping: ColumnMapping;
  let indexes: ColumnIndexes;
  if (opts.columnMapping !== undefined && opts.columnMapping !== null) {
    ({ mapping, indexes } = resolveMapping(opts.columnMapping, headers));
  } else {
    const inferred = inferMapping(headers);
    if (!inferred) {
      const hasDate = headers.some((h) => /date|datum|fecha|buchungstag/i.test(h));
      throw hasDate
        ? invalid("CSV_NO_AMOUNT_COLUMN", "The CSV has no amount column it recognises: set column_mapping.amount")
        : invalid("CSV_NO_DATE_COLUMN", "The CSV has no date column it recognises: set column_mapping.date");
    }
    ({ mapping, indexes } = resolveMapping(inferred, headers));
  }
  const cells = (i: number | undefined) => (i === undefined ? [] : body.map((r) => r.cells[i] ?? ""));
  const ambiguities: CsvAmbiguity[] = [];
  let dateFormat: DateFormat;
  if (given(opts.dateFormat)) {
    if (!(DATE_FORMATS as readonly unknown[]).includes(opts.dateFormat)) {
      throw invalid("CSV_DATE_FORMAT", `date_format must be one of ${DATE_FORMATS.join(", ")}`);
    }
    dateFormat = opts.dateFormat as DateFormat;
  } else {
    const dates = cells(indexes.date);
    const inferred = inferDateFormat(dates);
    if (!inferred) {
      throw invalid(
        "CSV_NO_DATE_COLUMN",
        `The column "${mapping.date}" holds no dates in a known format (${DATE_FORMATS.join(", ")})`,
      );
    }
    dateFormat = inferred;
    if (inferred === "MM/DD/YYYY" && isDateOrderAmbiguous(dates)) {
      const example = dates.find((d) => parseDateCell(d, "MM/DD/YYYY") !== parseDateCell(d, "DD/MM/YYYY"))!.trim();
      ambiguities.push({
        field: "date_format",
        options: ["MM/DD/YYYY", "DD/MM/YYYY"],
        message:
          `No date in "${mapping.date}" has a day over 12, so "${clip(example)}" could be ` +
          `${parseDateCell(example, "MM/DD/YYYY")} (MM/DD/YYYY) or ${parseDateCell(example, "DD/MM/YYYY")} ` +
          `(DD/MM/YYYY): set date_format`,
      });
    }
  }
  const amountCells = [...cells(indexes.amount), ...cells(indexes.debit), ...cells(indexes.credit)];
  let decimalSeparator: DecimalSeparator;
  if (given(opts.decimalSeparator)) {
    if (!(DECIMAL_SEPARATORS as readonly unknown[]).includes(opts.decimalSeparator)) {
      throw invalid("CSV_DECIMAL_SEPARATOR", `decimal_separator must be "." or ","`);
    }
    decimalSeparator = opts.decimalSeparator as DecimalSeparator;
  } else {
    // A date order that is itself a guess hints at nothing.
    const hint = localeHint(delimiter, ambiguities.length ? "YYYY-MM-DD" : dateFormat);
    const inferred = inferDecimalSeparator(amountCells, hint);
    decimalSeparator = inferred ?? ".";
    if (inferred === null) {
      const example = ambiguousAmount(amountCells)!.trim();
      ambiguities.push({
        field: "decimal_separator",
        options: [".", ","],
        message:
          `No amount shows which separator is the decimal one, so "${clip(example)}" could be ` +
          `${readAs(example, ".")} (decimal_separator ".") or ` +
          `${readAs(example, ",")} (decimal_separator ","): set decimal_separator`,
      });
    }
  }
  return { mapping, indexes, dateFormat, decimalSeparator, ambiguities };
}

/** An amount cell read with one decimal separator, for a message that shows both readings. */
function readAs(cell: string, decimal: DecimalSeparator): string {
  const r = parseAmountCell(cell, decimal);
  return "amount" in r ? r.amount : "unreadable";
}

const given = (v: unknown) => v !== undefined && v !== null && v !== "";

/** The header row, checked: no two columns with one name. */
function headerOf(first: RawRecord | undefined): string[] {
  if (!first) throw invalid("CSV_EMPTY", "The CSV is empty");
  const headers = first.cells.map((h) => h.trim());
  const twice = duplicateHeaders(headers);
  if (twice.length) {
    throw invalid(
      "CSV_DUPLICATE_HEADER",
      `The CSV has more than one column named ${twice.map((h) => `"${h}"`).join(", ")}: rename them so each ` +
        `column has its own name`,
    );
  }
  return headers;
}

/** What reading a row needs, once the file's reading is settled. */
interface RowReading {
  headers: string[];
  delimiter: Delimiter;
  indexes: ColumnIndexes;
  dateFormat: DateFormat;
  decimalSeparator: DecimalSeparator;
  positiveIsDebit: boolean;
}

/** One record as a transaction row (its key still to assign), or why it is a bad line. */
function rowOf(r: RawRecord, x: RowReading): CsvRow | CsvRowError {
  const { headers, indexes } = x;
  const cell = (i: number | undefined) => (i === undefined ? "" : (r.cells[i] ?? "").trim());
  // Fields past the header's are data with no column; empty ones (a trailing delimiter) lose nothing.
  if (r.cells.length > headers.length && r.cells.slice(headers.length).some((c) => c.trim() !== "")) {
    let used = r.cells.length;
    while (r.cells[used - 1].trim() === "") used--;
    return {
      line: r.line,
      reason:
        `the line has ${used} fields but the header has ${headers.length} ` +
        `(an unquoted "${x.delimiter === "\t" ? "tab" : x.delimiter}" inside a field?)`,
    };
  }
  const rawDate = cell(indexes.date);
  const date = parseDateCell(rawDate, x.dateFormat);
  if (!date) return { line: r.line, reason: `"${clip(rawDate)}" is not a date written ${x.dateFormat}` };
  // The ledger's own limits, said here with the cell rather than by the sync with an id the person never saw.
  // parseDateCell has checked the day; only the ledger's range of years is left (no Date per row).
  const year = Number(date.slice(0, 4));
  if (year < DATE_MIN_YEAR || year > DATE_MAX_YEAR) {
    return { line: r.line, reason: `"${clip(rawDate)}" is outside the years ${DATE_MIN_YEAR} to ${DATE_MAX_YEAR}` };
  }
  const bankId = cell(indexes.id);
  if (bankId.length > MAX_BANK_ID) {
    return { line: r.line, reason: `the id "${clip(bankId)}" is longer than ${MAX_BANK_ID} characters` };
  }
  const amount = rowAmount(r, indexes, x.decimalSeparator, x.positiveIsDebit, (rr, i) =>
    i === undefined ? "" : (rr.cells[i] ?? "").trim(),
  );
  if ("error" in amount) return { line: r.line, reason: amount.error };
  return {
    line: r.line,
    date,
    amount: amount.amount,
    description: cell(indexes.description).replace(/\s+/g, " "),
    merchant: cell(indexes.merchant) || null,
    category: cell(indexes.category) || null,
    key: bankId,
  };
}

const isRow = (x: CsvRow | CsvRowError): x is CsvRow => "date" in x;

/**
 * Reads a CSV: the first record is the header row, every later one a
 * transaction. A row that cannot be read (bad date, bad amount, broken
 * quoting, more fields than the header) is reported with its line and the
 * others are still read. Throws (invalid_input) only for what makes the whole
 * file unusable: no rows, no date or amount column, a mapping that names
 * missing columns, two columns with one name, a quote that never closes.
 */
export function readCsv(text: string, opts: CsvReadOptions = {}): ParsedCsv {
  const delimiter = detectDelimiter(text);
  const errors: CsvRowError[] = [];
  const limit = opts.sampleRecords === undefined ? undefined : opts.sampleRecords + 1;
  const all = records(text, delimiter, errors, limit);
  const headers = headerOf(all[0]);
  const body = all.slice(1);
  if (body.length === 0 && errors.length === 0) throw invalid("CSV_EMPTY", "The CSV has a header row but no rows");
  const { mapping, indexes, dateFormat, decimalSeparator, ambiguities } = settle(headers, body, delimiter, opts);
  const reading = {
    headers,
    delimiter,
    indexes,
    dateFormat,
    decimalSeparator,
    positiveIsDebit: opts.positiveIsDebit === true,
  };
  const rows: CsvRow[] = [];
  for (const r of body) {
    const x = rowOf(r, reading);
    if (isRow(x)) rows.push(x);
    else errors.push(x);
  }
  errors.sort((a, b) => a.line - b.line);
  const assignKey = keyAssigner();
  rows.forEach(assignKey);
  return { delimiter, headers, mapping, dateFormat, decimalSeparator, ambiguities, rows, errors };
}

/** How a stored import reads its file: everything settled when it was stored. */
export interface SettledReading {
  columnMapping: unknown;
  dateFormat: string;
  decimalSeparator: string;
  positiveIsDebit: boolean;
}

/** A row of the file, or a bad line, in the order of the file. */
export type CsvItem = { row: CsvRow } | { error: CsvRowError };

/**
 * The rows and bad lines of a file whose reading is settled, in file order,
 * a chunk of the file at a time, without holding the event loop
 * (streamRecords). Throws (invalid_input) what readCsv throws for a file
 * that cannot be read at all, when it is met.
 */
export async function* streamCsv(text: string, settled: SettledReading): AsyncGenerator<CsvItem[]> {
  const delimiter = detectDelimiter(text);
  const errors: CsvRowError[] = [];
  let reading: RowReading | null = null;
  let bodySeen = false;
  const assignKey = keyAssigner();
  const badLines = () => errors.splice(0).map((error): CsvItem => ({ error }));
  for await (const batch of streamRecords(text, delimiter, errors)) {
    const out: CsvItem[] = [];
    // Bad lines csv-parse skipped come before the record that follows them, in line order with it.
    const pending = badLines();
    for (const rec of batch) {
      if (!reading) {
        const headers = headerOf(rec);
        const { indexes, dateFormat, decimalSeparator } = settle(headers, [], delimiter, {
          columnMapping: settled.columnMapping,
          dateFormat: settled.dateFormat,
          decimalSeparator: settled.decimalSeparator,
        });
        reading = {
          headers,
          delimiter,
          indexes,
          dateFormat,
          decimalSeparator,
          positiveIsDebit: settled.positiveIsDebit,
        };
        continue;
      }
      bodySeen = true;
      while (pending.length && itemLine(pending[0]) < rec.line) out.push(pending.shift()!);
      const x = rowOf(rec, reading);
      if (isRow(x)) {
        assignKey(x);
        out.push({ row: x });
      } else {
        out.push({ error: x });
      }
    }
    out.push(...pending);
    if (out.length) yield out;
  }
  if (!reading) headerOf(undefined);
  if (!bodySeen && errors.length === 0) throw invalid("CSV_EMPTY", "The CSV has a header row but no rows");
  const rest = badLines();
  if (rest.length) yield rest;
}

const itemLine = (x: CsvItem) => ("row" in x ? x.row.line : x.error.line);

/** The row's amount in Coffer's sign (positive = money out). */
function rowAmount(
  r: RawRecord,
  ix: ColumnIndexes,
  decimal: DecimalSeparator,
  positiveIsDebit: boolean,
  cell: (r: RawRecord, i: number | undefined) => string,
): { amount: string } | { error: string } {
  if (ix.amount !== undefined) {
    const a = parseAmountCell(cell(r, ix.amount), decimal);
    if ("error" in a) return a;
    // Most bank exports write money out as negative; Coffer's sign is the opposite.
    return { amount: positiveIsDebit ? a.amount : negateMoney(a.amount) };
  }
  const debit = cell(r, ix.debit);
  const credit = cell(r, ix.credit);
  const d = debit ? parseAmountCell(debit, decimal) : null;
  const c = credit ? parseAmountCell(credit, decimal) : null;
  if (d && "error" in d) return d;
  if (c && "error" in c) return c;
  const out = d && d.amount !== "0.00" ? d.amount : null;
  const inn = c && c.amount !== "0.00" ? c.amount : null;
  if (out && inn) return { error: "the row has both a debit and a credit amount" };
  if (out) return { amount: out.replace(/^-/, "") };
  if (inn) return { amount: negateMoney(inn.replace(/^-/, "")) };
  if (d || c) return { amount: "0.00" };
  return { error: "the row has neither a debit nor a credit amount" };
}

/**
 * Gives each row, in file order, its provider transaction id. A bank id, when
 * the export has one, is the id. Otherwise the id is a fingerprint of the
 * date, amount and description plus an occurrence index: the n-th identical
 * row of a day gets index n, so two genuinely identical purchases stay two
 * rows, and the same file imported again yields the same ids (and so changes
 * nothing).
 */
function keyAssigner(): (row: CsvRow) => void {
  const seen = new Map<string, number>();
  return (row) => {
    if (row.key) {
      row.key = `id:${row.key}`;
      return;
    }
    const base = `${row.date}\u001f${row.amount}\u001f${row.description.toLowerCase()}`;
    const n = seen.get(base) ?? 0;
    seen.set(base, n + 1);
    row.key = `fp:${createHash("sha256").update(`${base}\u001f${n}`).digest("base64url").slice(0, 24)}`;
  };
}
