import { describe, expect, it } from "vitest";
import {
  CSV_PAGE_ROWS,
  CsvProvider,
  csvPages,
  type CsvImportSource,
} from "../../../services/sync/providers/csv/provider.js";
import type { Enrollment, SyncPage } from "../../../services/sync/providers/provider.js";
import { readCsv, streamCsv, type CsvItem } from "../../../services/sync/providers/csv/rows.js";

const rows = (n: number, bad: number[] = []) =>
  [
    "Date,Description,Amount",
    ...Array.from({ length: n }, (_, i) => (bad.includes(i) ? `2026-01-01,bad ${i},x` : `2026-01-01,Row ${i},-1.00`)),
  ].join("\n");

/** The import record an enrollment stores, as the provider reads it back. */
const source = (e: Enrollment): CsvImportSource => ({
  file: e.fileImport!.text,
  fileSha256: e.fileImport!.sha256,
  mapping: e.fileImport!.mapping,
  options: e.fileImport!.options,
});

async function pages(e: Enrollment, cursor: string | null) {
  const out: SyncPage[] = [];
  for await (const page of csvPages(source(e), cursor)) out.push(page);
  return out;
}

describe("the CSV provider", () => {
  const p = new CsvProvider();
  const enroll = (csv: string, name = "Checking") =>
    p.enroll({
      csv,
      column_mapping: { date: "Date", amount: "Amount", description: "Description" },
      account_name: ` ${name} `,
      iso_currency_code: "eur",
    });

  it("enrolls a file as an import record (no secret), keyed by the account's name in any case", async () => {
    const e = await enroll(rows(3));
    expect(e).toMatchObject({
      providerItemId: "checking",
      institutionName: "Checking",
      institutionId: null,
      credentials: {},
      fileImport: {
        text: rows(3),
        mapping: { date: "Date", amount: "Amount", description: "Description" },
        options: {
          date_format: "YYYY-MM-DD",
          decimal_separator: ".",
          positive_is_debit: false,
          account_name: "Checking",
          iso_currency_code: "EUR",
        },
      },
    });
    expect(e.fileImport!.sha256).toMatch(/^[A-Za-z0-9_-]{43}$/);
    await expect(enroll(rows(1), "  ")).rejects.toMatchObject({ failure: "invalid_input", code: "CSV_ACCOUNT_NAME" });
  });

  it("pages the file, reports each bad line in the page it falls in, and continues from a cursor", async () => {
    const n = CSV_PAGE_ROWS * 2 + 10;
    const e = await enroll(rows(n, [1, CSV_PAGE_ROWS + 5]));
    const all = await pages(e, null);
    expect(all.map((x) => x.added.length)).toEqual([CSV_PAGE_ROWS, CSV_PAGE_ROWS, 8]);
    expect(all.map((x) => x.skipped.map((s) => s.row))).toEqual([["line 3"], [`line ${CSV_PAGE_ROWS + 7}`], []]);
    // After a crash the next sync resumes after the last committed page.
    const rest = await pages(e, all[0].nextCursor);
    expect(rest.map((x) => x.added[0].providerTransactionId)).toEqual(
      all.slice(1).map((x) => x.added[0].providerTransactionId),
    );
    expect(await pages(e, all[2].nextCursor)).toEqual([]);
  });

  it("gives the bad lines after a full page's last row to the next page, and trailing ones to the last", async () => {
    const lines = ["Date,Description,Amount"];
    for (let i = 0; i < CSV_PAGE_ROWS * 2; i++) {
      lines.push(`2026-01-01,Row ${i},-1.00`);
      if (i === CSV_PAGE_ROWS - 1 || i === CSV_PAGE_ROWS * 2 - 1) lines.push(`2026-01-01,bad ${i},x`);
    }
    const e = await enroll(lines.join("\n"));
    const all = await pages(e, null);
    expect(all.map((x) => x.added.length)).toEqual([CSV_PAGE_ROWS, CSV_PAGE_ROWS]);
    expect(all.map((x) => x.skipped.map((s) => s.row))).toEqual([
      [],
      [`line ${CSV_PAGE_ROWS + 2}`, `line ${CSV_PAGE_ROWS * 2 + 3}`],
    ]);
    expect(all.map((x) => x.nextCursor.replace(/^csv1:[^:]+:/, ""))).toEqual([
      String(CSV_PAGE_ROWS),
      String(CSV_PAGE_ROWS * 2),
    ]);
  });

  it("reports a file with no good row as one page of its bad lines", async () => {
    const e = await enroll("Date,Description,Amount\n2026-01-01,a,-1\n");
    const bad = { ...source(e), file: "Date,Description,Amount\n2026-01-01,a,x\n2026-13-01,b,1\n" };
    const out: SyncPage[] = [];
    for await (const page of csvPages(bad, null)) out.push(page);
    expect(out).toHaveLength(1);
    expect(out[0]).toMatchObject({ added: [], skipped: [{ row: "line 2" }, { row: "line 3" }] });
  });

  it("reads a new file from its first row, whatever the cursor of the last one said", async () => {
    const first = await enroll(rows(10));
    const [done] = await pages(first, null);
    const second = await enroll(rows(12));
    const again = await pages(second, done.nextCursor);
    expect(again.map((x) => x.added.length)).toEqual([12]);
  });

  it("needs no link session and ends nothing at a provider", async () => {
    expect(await p.createLinkSession()).toBeNull();
    await expect(p.remove()).resolves.toBeUndefined();
    expect(p.info()).toMatchObject({ name: "csv", configured: true, needsLinkSession: false });
  });
});

describe("streamCsv", () => {
  const settled = (text: string) => {
    const r = readCsv(text, { columnMapping: { date: "Date", amount: "Amount", description: "Description" } });
    return {
      sync: r,
      reading: {
        columnMapping: r.mapping,
        dateFormat: r.dateFormat,
        decimalSeparator: r.decimalSeparator,
        positiveIsDebit: false,
      },
    };
  };
  const streamed = async (text: string, reading: Parameters<typeof streamCsv>[1]) => {
    const out: CsvItem[] = [];
    for await (const batch of streamCsv(text, reading)) out.push(...batch);
    return out;
  };

  // Records that straddle the parser's 64 KiB chunks: a CRLF, a quoted field with line breaks, a bad quote.
  const long = (n: number) => {
    const lines = ["Date,Description,Amount"];
    for (let i = 0; i < n; i++) {
      if (i % 997 === 5) lines.push(`2026-01-02,"two\r\nlines ${i}",-2.00`);
      else if (i % 1499 === 7) lines.push(`2026-01-03,x"bad"quote ${i}",-3.00`);
      else if (i % 1201 === 9) lines.push(`2026-02-30,bad day ${i},-1.00`);
      else lines.push(`2026-01-01,Row ${i % 50},-1.00`);
    }
    return lines.join("\r\n") + "\r\n";
  };

  it.each([
    ["mixed endings", "Date,Amount,Description\r\n2026-01-05,-1.00,a\n2026-01-06,-2.00,b\r2026-01-07,-3.00,c"],
    ["blank and extra-field lines", "Date,Amount,Description\n\n2026-01-05,-1.00,a,extra\n2026-01-06,-2.00,b,\n"],
    ["30,000 lines over many chunks", long(30_000)],
  ])("yields what readCsv reads, in file order (%s)", async (_, text) => {
    const { sync, reading } = settled(text);
    const items = await streamed(text, reading);
    expect(items.flatMap((x) => ("row" in x ? [x.row] : []))).toEqual(sync.rows);
    expect(items.flatMap((x) => ("error" in x ? [x.error] : []))).toEqual(sync.errors);
    const lines = items.map((x) => ("row" in x ? x.row.line : x.error.line));
    expect(lines).toEqual([...lines].sort((a, b) => a - b));
  });

  it("refuses a quote that never closes when it reaches it, naming the line", async () => {
    const text = `Date,Amount,Description\n${"2026-01-05,-1.00,a\n".repeat(3000)}2026-01-06,-2.00,"never\n`;
    const { reading } = settled("Date,Amount,Description\n2026-01-05,-1.00,a\n");
    await expect(streamed(text, reading)).rejects.toMatchObject({
      code: "CSV_UNCLOSED_QUOTE",
      message: expect.stringMatching(/^Line 3002 opens a quoted field/),
    });
  });
});
