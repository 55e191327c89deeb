import { describe, expect, it } from "vitest";
import { detectDelimiter } from "../../../services/sync/providers/csv/dialect.js";
import { inferMapping, resolveMapping } from "../../../services/sync/providers/csv/mapping.js";
import { readCsv } from "../../../services/sync/providers/csv/rows.js";
import { CSV_MAX_BYTES, decodeBytes, decodeCsvInput } from "../../../services/sync/providers/csv/text.js";

describe("decodeCsvInput and decodeBytes", () => {
  it("takes text as it is (without its BOM) and base64 as the file's bytes", () => {
    expect(decodeCsvInput("\uFEFFDate,Amount\n")).toBe("Date,Amount\n");
    const b64 = Buffer.from("Date;Amount\n2026-01-01;1\n").toString("base64");
    expect(decodeCsvInput(`${b64.slice(0, 8)}\n${b64.slice(8)}\n`)).toBe("Date;Amount\n2026-01-01;1\n");
  });

  it("reads bytes that are not UTF-8 as Windows-1252", () => {
    expect(decodeBytes(Buffer.from([0x43, 0x61, 0x66, 0xe9, 0x2c, 0x31]))).toBe("Café,1");
    expect(decodeBytes(Buffer.from("\uFEFFCafé,1", "utf8"))).toBe("Café,1");
  });

  it("reads UTF-16 with its byte order mark, little and big endian (Excel's Unicode text)", () => {
    const le = Buffer.from("\uFEFFDate\tAmount\n2026-01-01\t€1\n", "utf16le");
    expect(decodeBytes(le)).toBe("Date\tAmount\n2026-01-01\t€1\n");
    expect(decodeBytes(Buffer.from(le).swap16())).toBe("Date\tAmount\n2026-01-01\t€1\n");
    expect(decodeCsvInput(le.toString("base64"))).toBe("Date\tAmount\n2026-01-01\t€1\n");
    // An odd byte count cannot be UTF-16.
    expect(() => decodeBytes(Buffer.concat([le, Buffer.from([0x41])]))).toThrow(
      expect.objectContaining({ code: "CSV_ENCODING" }),
    );
  });

  it.each([
    ["", "CSV_EMPTY"],
    [" \r\n\t", "CSV_EMPTY"],
    [Buffer.from([0x50, 0x4b, 0x03, 0x04, 0x00, 0x00]).toString("base64"), "CSV_BINARY"],
    ["Date,Amount\n\u0000\u0001\u0002", "CSV_BINARY"],
  ])("refuses %j (%s)", (raw, code) => {
    expect(() => decodeCsvInput(raw)).toThrow(expect.objectContaining({ failure: "invalid_input", code }));
  });

  it("refuses more than 20 MB", () => {
    expect(() => decodeBytes(Buffer.alloc(CSV_MAX_BYTES + 1, 0x41))).toThrow(
      expect.objectContaining({ code: "CSV_TOO_LARGE", message: "The CSV is larger than 20 MB" }),
    );
  });
});

describe("detectDelimiter", () => {
  it.each([
    ["Date,Text,Amount\n2026-01-01,a,1\n", ","],
    ["Date;Text;Amount\n01.01.2026;a, b;1,50\n", ";"],
    ["Date\tText\tAmount\n2026-01-01\ta,b\t1\n", "\t"],
    ["Date|Text|Amount\n2026-01-01|a;b|1\n", "|"],
    ['Date,Text,Amount\n2026-01-01,"a;b;c;d",1\n', ","],
    ["Amount\n1\n", ","],
  ])("finds the delimiter of %j", (text, want) => {
    expect(detectDelimiter(text)).toBe(want);
  });
});

describe("column mappings", () => {
  it.each([
    [["Date", "Description", "Amount"], { date: "Date", amount: "Amount", description: "Description" }],
    [
      ["Transaction Date", "Posting Date", "Payee", "Debit", "Credit", "Category"],
      { date: "Transaction Date", description: "Payee", debit: "Debit", credit: "Credit", category: "Category" },
    ],
    [
      ["Buchungstag", "Verwendungszweck", "Betrag (EUR)", "Kategorie"],
      { date: "Buchungstag", amount: "Betrag (EUR)", description: "Verwendungszweck", category: "Kategorie" },
    ],
    [["Date", "Amount", "Credit card"], { date: "Date", amount: "Amount" }],
    [["Name", "Amount"], null],
    [["Date", "Name"], null],
  ])("infers from %j", (headers, want) => {
    expect(inferMapping(headers)).toEqual(want);
  });

  it.each([
    [{ date: "Date" }, "CSV_NO_AMOUNT_COLUMN", /column_mapping\.amount/],
    [{ amount: "Amount" }, "CSV_NO_DATE_COLUMN", /column_mapping\.date/],
    [{ date: "Date", amount: "Total" }, "CSV_MAPPING", /column_mapping\.amount names the column "Total"/],
    [{ date: "Date", amount: "Amount", debit: "Amount" }, "CSV_MAPPING", /either amount or debit\/credit/],
    [{ date: "Date", amount: "Amount", memo: "x" }, "CSV_MAPPING", /column_mapping\.memo is not a field/],
    [{ date: 3, amount: "Amount" }, "CSV_MAPPING", /column_mapping\.date must be a column name/],
    ["Date", "CSV_MAPPING", /must be an object/],
  ])("refuses the mapping %j, naming what is wrong", (mapping, code, message) => {
    expect(() => resolveMapping(mapping, ["Date", "Amount"])).toThrow(
      expect.objectContaining({ code, message: expect.stringMatching(message) }),
    );
  });

  it("matches header names without regard to case and spacing", () => {
    expect(resolveMapping({ date: " date ", amount: "AMOUNT" }, ["Date", "Amount "]).indexes).toEqual({
      date: 0,
      amount: 1,
    });
  });
});

describe("readCsv", () => {
  it("reports each bad line by the line it starts on and reads every other one", () => {
    const text = [
      "Date,Description,Amount",
      '2026-01-01,"two\nlines",-1.00',
      "2026-01-02,ok,-2.00",
      "",
      "2026-02-30,bad date,-3.00",
      "2026-01-04,bad amount,x",
      "2026-01-05,,-5.00",
    ].join("\n");
    const p = readCsv(text);
    expect(p.rows.map((r) => [r.line, r.date, r.amount, r.description])).toEqual([
      [2, "2026-01-01", "1.00", "two lines"],
      [4, "2026-01-02", "2.00", "ok"],
      [8, "2026-01-05", "5.00", ""],
    ]);
    expect(p.errors).toEqual([
      { line: 6, reason: '"2026-02-30" is not a date written YYYY-MM-DD' },
      { line: 7, reason: '"x" is not an amount' },
    ]);
  });

  it("gives identical same-day rows distinct, stable ids (an occurrence index); a bank id when there is one", () => {
    const text = "Date,Description,Amount\n2026-01-01,Coffee,-3\n2026-01-01,COFFEE,-3\n2026-01-02,Coffee,-3\n";
    const a = readCsv(text).rows.map((r) => r.key);
    const b = readCsv(`${text}2026-01-03,Tea,-2\n`).rows.map((r) => r.key);
    expect(new Set(a).size).toBe(3);
    expect(b.slice(0, 3)).toEqual(a);
    const withIds = readCsv("Date,Amount,ID\n2026-01-01,1,T-9\n", {
      columnMapping: { date: "Date", amount: "Amount", id: "ID" },
    });
    expect(withIds.rows[0].key).toBe("id:T-9");
  });

  it("signs amounts the Coffer way: money out positive, unless the file already does", () => {
    const text = "Date,Amount\n2026-01-01,-10\n2026-01-02,25\n";
    expect(readCsv(text).rows.map((r) => r.amount)).toEqual(["10.00", "-25.00"]);
    expect(readCsv(text, { positiveIsDebit: true }).rows.map((r) => r.amount)).toEqual(["-10.00", "25.00"]);
  });

  it("reads any mix of CRLF, LF and CR line endings, numbering lines as a text editor does", () => {
    const text =
      "Date,Amount,Description\r\n2026-01-05,-1.00,crlf\n2026-01-06,-2.00,lf\r" +
      "2026-01-07,-3.00,cr\r\n2026-01-08,x,last";
    const p = readCsv(text);
    expect(p.rows.map((r) => [r.line, r.description])).toEqual([
      [2, "crlf"],
      [3, "lf"],
      [4, "cr"],
    ]);
    expect(p.errors).toEqual([{ line: 5, reason: '"x" is not an amount' }]);
    // One kind throughout (CR alone, or CRLF with a line break inside quotes) reads the same way.
    expect(readCsv("Date,Amount\r2026-01-05,1\r2026-01-06,2").rows.map((r) => r.line)).toEqual([2, 3]);
    const quoted = readCsv('Date,Amount,Description\r\n2026-01-05,1,"a\nb"\r\n2026-01-06,2,c\r\n');
    expect(quoted.rows.map((r) => [r.line, r.description])).toEqual([
      [2, "a b"],
      [4, "c"],
    ]);
  });

  it("reports a line with more fields than the header; a trailing empty field is no data lost", () => {
    const p = readCsv("Date,Amount,Text\n2026-01-01,-1,a\n2026-01-02,-2,b,\n2026-01-03,-3,c,extra,\n");
    expect(p.rows.map((r) => r.line)).toEqual([2, 3]);
    expect(p.errors).toEqual([
      { line: 4, reason: 'the line has 4 fields but the header has 3 (an unquoted "," inside a field?)' },
    ]);
  });

  it("refuses two columns with one name, naming it", () => {
    expect(() => readCsv("Date,Amount,amount \n2026-01-01,1,2\n")).toThrow(
      expect.objectContaining({ code: "CSV_DUPLICATE_HEADER", message: expect.stringMatching(/named "Amount"/) }),
    );
  });

  it("refuses a quote that never closes, naming the line it opens on", () => {
    expect(() => readCsv('Date,Amount,Text\n2026-01-01,1,a\n2026-01-02,2,"b\n2026-01-03,3,c\n')).toThrow(
      expect.objectContaining({ code: "CSV_UNCLOSED_QUOTE", message: expect.stringMatching(/^Line 3 opens a quoted/) }),
    );
  });

  it("reads 1.500 as 1500.00 in a ;-separated DD.MM.YYYY file, and 1,500 as 1500.00 in a 1.5 file", () => {
    const de = readCsv("Datum;Betrag;Text\n05.01.2026;-1.500;c1\n06.01.2026;-2.000;c2\n07.01.2026;250;c3\n");
    expect([de.decimalSeparator, de.ambiguities]).toEqual([",", []]);
    expect(de.rows.map((r) => r.amount)).toEqual(["1500.00", "2000.00", "-250.00"]);
    const us = readCsv('Date,Amount\n2026-01-05,"-1,500"\n2026-01-06,-2.5\n');
    expect(us.rows.map((r) => r.amount)).toEqual(["1500.00", "2.50"]);
  });

  it("says when the decimal separator or the date order cannot be told, and reads as told", () => {
    const text = "Date,Amount\n2026-01-05,-1.500\n2026-01-06,-2.000\n";
    expect(readCsv(text).ambiguities).toEqual([
      {
        field: "decimal_separator",
        options: [".", ","],
        message:
          'No amount shows which separator is the decimal one, so "-1.500" could be -1.50 (decimal_separator ".") ' +
          'or -1500.00 (decimal_separator ","): set decimal_separator',
      },
    ]);
    expect(readCsv(text, { decimalSeparator: "," }).rows.map((r) => r.amount)).toEqual(["1500.00", "2000.00"]);
    const slash = "Date,Amount\n03/04/2026,1.50\n05/06/2026,2.50\n";
    expect(readCsv(slash).ambiguities).toEqual([
      {
        field: "date_format",
        options: ["MM/DD/YYYY", "DD/MM/YYYY"],
        message:
          'No date in "Date" has a day over 12, so "03/04/2026" could be 2026-03-04 (MM/DD/YYYY) or 2026-04-03 ' +
          "(DD/MM/YYYY): set date_format",
      },
    ]);
    // A date order that is itself a guess says nothing about the decimal separator.
    const both = readCsv("Date,Amount\n03/04/2026,-1.500\n").ambiguities.map((a) => a.field);
    expect(both).toEqual(["date_format", "decimal_separator"]);
    const told = readCsv(slash, { dateFormat: "DD/MM/YYYY" });
    expect([told.ambiguities, told.rows.map((r) => r.date)]).toEqual([[], ["2026-04-03", "2026-06-05"]]);
    expect(() => readCsv(text, { decimalSeparator: "'" })).toThrow(
      expect.objectContaining({ code: "CSV_DECIMAL_SEPARATOR" }),
    );
  });

  it("says why the ledger would refuse a row (a year out of range, an id too long) with the row's line", () => {
    const p = readCsv(`Date,Amount,ID\n01/02/1850,1,a\n2026-01-01,1,${"x".repeat(291)}\n2026-01-02,1,b\n`, {
      dateFormat: "YYYY-MM-DD",
    });
    expect(p.rows.map((r) => r.line)).toEqual([4]);
    expect(p.errors.map((e) => e.line)).toEqual([2, 3]);
    const years = readCsv("Date,Amount\n1850-01-02,1\n2026-01-02,1\n").errors;
    expect(years).toEqual([{ line: 2, reason: '"1850-01-02" is outside the years 1900 to 2999' }]);
    expect(p.errors[1].reason).toMatch(/^the id "x+\.\.\." is longer than 290 characters$/);
  });

  it("reads only a sample when asked (what an enrollment settles the options on)", () => {
    const p = readCsv(`Date,Amount\n${"2026-01-01,1\n".repeat(50)}`, { sampleRecords: 10 });
    expect(p.rows.length).toBe(10);
  });

  it("refuses a file with a header and no rows", () => {
    expect(() => readCsv("Date,Amount\n")).toThrow(expect.objectContaining({ code: "CSV_EMPTY" }));
  });
});
