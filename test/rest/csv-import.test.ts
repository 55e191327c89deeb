import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { query } from "../../services/db/sql.js";
import { newUser } from "../helpers/ledger.js";
import { expectEnvelope, key } from "../helpers/rest.js";
import { startStack, type Stack } from "../helpers/stack.js";
import { waitFor } from "../helpers/wait.js";

// CSV over REST: the preview, and an import as a connection whose first sync is a job.

let s: Stack;
let ann: { id: string; shortId: string };
beforeAll(async () => {
  s = await startStack({}, { sync: { scheduler: { pollingIntervalSeconds: 0.5 } } });
  ann = await newUser(s.orm.em.fork(), "Ann");
});
afterAll(async () => {
  await s?.close();
});

const post = (url: string, payload: object) =>
  s.rest.inject({ method: "POST", url, headers: key(s.adminKey), payload });
const preview = (payload: object) => post("/api/v1/connections/csv/preview", payload);

const EXPORT = [
  "\uFEFFBuchungstag;Verwendungszweck;Betrag;Kategorie",
  "01.02.2026;REWE Markt;-54,20;Groceries",
  "01.02.2026;REWE Markt;-54,20;Groceries",
  "02.02.2026;Gehalt Februar;3.100,00;",
  "31.02.2026;kaputt;1,00;",
  "03.02.2026;Miete;abc;",
  '04.02.2026;"Bäckerei ""Korn""";-3,10;',
].join("\r\n");

describe("POST /api/v1/connections/csv/preview", () => {
  it("infers delimiter, mapping and date format, shows rows in Coffer's sign, and lists bad lines", async () => {
    const res = await preview({ csv: EXPORT });
    expect(res.statusCode).toBe(200);
    expect(res.json()).toEqual({
      delimiter: ";",
      headers: ["Buchungstag", "Verwendungszweck", "Betrag", "Kategorie"],
      inferred_mapping: {
        date: "Buchungstag",
        amount: "Betrag",
        description: "Verwendungszweck",
        category: "Kategorie",
      },
      date_format: "DD.MM.YYYY",
      decimal_separator: ",",
      ambiguities: [],
      sample_rows: [
        { line: 2, date: "2026-02-01", amount: 54.2, description: "REWE Markt", merchant: null, category: "Groceries" },
        { line: 3, date: "2026-02-01", amount: 54.2, description: "REWE Markt", merchant: null, category: "Groceries" },
        { line: 4, date: "2026-02-02", amount: -3100, description: "Gehalt Februar", merchant: null, category: null },
        { line: 7, date: "2026-02-04", amount: 3.1, description: 'Bäckerei "Korn"', merchant: null, category: null },
      ],
      errors: [
        { line: 5, reason: '"31.02.2026" is not a date written DD.MM.YYYY' },
        { line: 6, reason: '"abc" is not an amount' },
      ],
      row_count: 4,
      error_count: 2,
    });
  });

  it("takes the file as base64 (bytes in Windows-1252 too) and a mapping of its own", async () => {
    const latin1 = Buffer.from("Date,Text,Out,In\n2026-01-05,Caf\xe9,4.50,\n2026-01-06,Refund,,2.00\n", "latin1");
    const res = await preview({
      csv: latin1.toString("base64"),
      column_mapping: { date: "Date", description: "Text", debit: "Out", credit: "In" },
    });
    expect(res.statusCode).toBe(200);
    expect(res.json().sample_rows).toMatchObject([
      { date: "2026-01-05", amount: 4.5, description: "Café" },
      { date: "2026-01-06", amount: -2, description: "Refund" },
    ]);
  });

  it.each([
    [{ csv: "" }, "The CSV is empty"],
    [{ csv: "   \n  " }, "The CSV is empty"],
    [{ csv: Buffer.from([0x89, 0x50, 0x4e, 0x47, 0, 0, 0, 0x0d, 0x49, 0x48]).toString("base64") }, /binary data/],
    [{ csv: "Name,Amount\nCoffee,-4.50\n" }, /no date column/],
    [{ csv: "Date,Name\n2026-01-01,Coffee\n" }, /no amount column/],
    [
      { csv: "Date,Amount\n2026-01-01,1\n", column_mapping: { date: "Day", amount: "Amount" } },
      /column_mapping\.date names the column "Day"/,
    ],
    [{ csv: "Date,Amount\n2026-01-01,1\n", date_format: "YYYY/MM/DD" }, /date_format must be one of/],
  ])("refuses %o with 400 and the reason", async (body, message) => {
    expectEnvelope(await preview(body), "VALIDATION_ERROR", message);
  });

  it("refuses a file over 20 MB with 400 (and a body over 32 MiB with 413)", async () => {
    const big = `Date,Amount\n${"2026-01-01,1.00\n".repeat(1_400_000)}`;
    expect(big.length).toBeGreaterThan(20 * 1024 * 1024);
    expectEnvelope(await preview({ csv: big }), "VALIDATION_ERROR", "The CSV is larger than 20 MB");
    expectEnvelope(await preview({ csv: big + big }), "PAYLOAD_TOO_LARGE");
  });
});

describe("a CSV import over REST", () => {
  const credentials = (csv: string) => ({
    csv,
    column_mapping: { date: "Buchungstag", amount: "Betrag", description: "Verwendungszweck", category: "Kategorie" },
    account_name: "Girokonto",
    iso_currency_code: "EUR",
  });
  const logs = () =>
    query<{ status: string; added: number; unchanged: number; skipped_count: number; skipped: unknown[] }>(
      s.orm.em.fork(),
      `select status, added, unchanged, skipped_count, skipped from sync_logs
       where status <> 'running' order by started_at`,
    );

  it("imports the rows (two identical purchases stay two), and the same file again adds nothing", async () => {
    const res = await post("/api/v1/connections", {
      provider: "csv",
      user_id: ann.shortId,
      credentials: credentials(EXPORT),
    });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ provider: "csv", institution_name: "Girokonto", status: "active" });
    const [first] = await waitFor(async () => ((await logs()).length === 1 ? logs() : null), "the import");
    expect(first).toMatchObject({ status: "success", added: 4, unchanged: 0, skipped_count: 2 });
    expect(first.skipped).toEqual([
      { row: "line 5", reason: '"31.02.2026" is not a date written DD.MM.YYYY' },
      { row: "line 6", reason: '"abc" is not an amount' },
    ]);
    const txs = (
      await s.rest.inject({ method: "GET", url: "/api/v1/transactions?limit=10", headers: key(s.readKey) })
    ).json().transactions;
    expect(txs.map((t: { amount: number }) => t.amount).sort()).toEqual([-3100, 3.1, 54.2, 54.2]);
    expect(txs.find((t: { amount: number }) => t.amount === 54.2)).toMatchObject({
      category_slug: "food_and_drink_groceries",
      category_source: "system",
      iso_currency_code: "EUR",
    });

    const again = await post("/api/v1/connections", {
      provider: "csv",
      user_id: ann.shortId,
      credentials: { ...credentials(EXPORT), account_name: " girokonto " },
    });
    expect(again.json().id).toBe(res.json().id);
    const [, second] = await waitFor(async () => ((await logs()).length === 2 ? logs() : null), "the re-import");
    expect(second).toMatchObject({ status: "success", added: 0, unchanged: 4, skipped_count: 2 });
    const count = await s.rest.inject({ method: "GET", url: "/api/v1/transactions/count", headers: key(s.readKey) });
    expect(count.json().count).toBe(4);
  });
});

// Issue 18's CSV problems (items 3, 4, 8), each over the REST stack.
describe("CSV files that used to be misread", () => {
  let member: { id: string; shortId: string };
  beforeAll(async () => {
    member = await newUser(s.orm.em.fork(), "Bo");
  });
  const connect = (name: string, credentials: object) =>
    post("/api/v1/connections", {
      provider: "csv",
      user_id: member.shortId,
      // No column_mapping: it is inferred from the headers.
      credentials: { account_name: name, iso_currency_code: "EUR", ...credentials },
    });
  const importOf = async (connection: { id: string; institution_name: string }) => {
    const connectionId = connection.id;
    const log = await waitFor(async () => {
      const r = await s.rest.inject({
        method: "GET",
        url: `/api/v1/sync/logs?connection_id=${connectionId}`,
        headers: key(s.readKey),
      });
      const [l] = r.json().sync_logs;
      return l && l.status !== "running" ? { ...l, account: connection.institution_name } : null;
    }, "the import");
    const txs = await s.rest.inject({ method: "GET", url: "/api/v1/transactions?limit=500", headers: key(s.readKey) });
    const mine = txs.json().transactions.filter((t: { account_name: string }) => t.account_name === log.account);
    return { log, txs: mine as { amount: number; name: string; date: string }[] };
  };

  it("imports every row of a file with CRLF, LF and CR line endings mixed (4 of 4)", async () => {
    const csv =
      "Date,Amount,Description\r\n2026-01-05,-1.00,crlf\n2026-01-06,-2.00,lf\r" +
      "2026-01-07,-3.00,cr\r\n2026-01-08,-4.00,last";
    const p = await preview({ csv });
    expect(p.json()).toMatchObject({ row_count: 4, error_count: 0 });
    const res = await connect("Mixed endings", { csv });
    expect(res.statusCode).toBe(201);
    const { log, txs } = await importOf(res.json());
    expect(log).toMatchObject({ status: "success", added: 4, skipped_count: 0 });
    expect(txs.map((t) => t.name).sort()).toEqual(["cr", "crlf", "last", "lf"]);
  });

  it("reports a row with more fields than the header by its line, in the preview and the sync log", async () => {
    const csv =
      "Date,Amount,Description\n2026-02-01,-1.00,ok\n2026-02-02,-2,00,split amount\n2026-02-03,-3.00,ok too\n";
    const p = await preview({ csv });
    const reason = 'the line has 4 fields but the header has 3 (an unquoted "," inside a field?)';
    expect(p.json()).toMatchObject({ row_count: 2, error_count: 1, errors: [{ line: 3, reason }] });
    const res = await connect("Extra fields", { csv });
    const { log } = await importOf(res.json());
    expect(log).toMatchObject({ status: "success", added: 2, skipped_count: 1, skipped: [{ row: "line 3", reason }] });
  });

  it("reads -1.500 as 1,500.00 in a ;-separated DD.MM.YYYY file, and says which separator it used", async () => {
    const csv = "Datum;Betrag;Text\n05.01.2026;-1.500;c1\n06.01.2026;-2.000;c2\n07.01.2026;250;c3\n";
    const p = (await preview({ csv })).json();
    expect(p).toMatchObject({ decimal_separator: ",", ambiguities: [], date_format: "DD.MM.YYYY" });
    expect(p.sample_rows.map((r: { amount: number }) => r.amount)).toEqual([1500, 2000, -250]);
    const res = await connect("Thousands", { csv });
    const { txs } = await importOf(res.json());
    expect(txs.map((t) => t.amount).sort((a, b) => a - b)).toEqual([-250, 1500, 2000]);
  });

  it("reads 1,500 as 1,500.00 in a dot-decimal file", async () => {
    const p = (await preview({ csv: 'Date,Amount\n2026-01-05,"-1,500"\n2026-01-06,-2.50\n' })).json();
    expect(p.decimal_separator).toBe(".");
    expect(p.sample_rows.map((r: { amount: number }) => r.amount)).toEqual([1500, 2.5]);
  });

  it("asks instead of guessing when amounts read two ways, and imports once told", async () => {
    const csv = "Date,Amount,Description\n2026-01-05,-1.500,a\n2026-01-06,-2.000,b\n";
    const p = (await preview({ csv })).json();
    expect(p.ambiguities).toEqual([
      {
        field: "decimal_separator",
        options: [".", ","],
        message: expect.stringContaining('"-1.500" could be -1.50 (decimal_separator ".") or -1500.00'),
      },
    ]);
    expectEnvelope(await connect("Ambiguous", { csv }), "VALIDATION_ERROR", /set decimal_separator/);
    const told = (await preview({ csv, decimal_separator: "," })).json();
    expect([told.ambiguities, told.sample_rows[0].amount]).toEqual([[], 1500]);
    const res = await connect("Ambiguous", { csv, decimal_separator: "," });
    expect(res.statusCode).toBe(201);
    const { txs } = await importOf(res.json());
    expect(txs.map((t) => t.amount).sort((a, b) => a - b)).toEqual([1500, 2000]);
  });

  it("flags DD/MM vs MM/DD when no day is over 12, and imports as told", async () => {
    const csv = "Date,Amount,Description\n03/04/2026,-1.00,a\n05/06/2026,-2.00,b\n";
    const p = (await preview({ csv })).json();
    expect(p.ambiguities).toEqual([
      {
        field: "date_format",
        options: ["MM/DD/YYYY", "DD/MM/YYYY"],
        message: expect.stringContaining('"03/04/2026" could be 2026-03-04 (MM/DD/YYYY) or 2026-04-03 (DD/MM/YYYY)'),
      },
    ]);
    expectEnvelope(await connect("Slashes", { csv }), "VALIDATION_ERROR", /set date_format/);
    const res = await connect("Slashes", { csv, date_format: "DD/MM/YYYY" });
    const { txs } = await importOf(res.json());
    expect(txs.map((t) => t.date).sort()).toEqual(["2026-04-03", "2026-06-05"]);
  });

  it("takes UTF-16 (LE and BE, with BOM) as base64", async () => {
    const text = "\uFEFFDate\tAmount\tDescription\n2026-01-05\t-4.50\tCafé\n";
    const le = Buffer.from(text, "utf16le");
    for (const bytes of [le, Buffer.from(le).swap16()]) {
      const p = await preview({ csv: bytes.toString("base64") });
      expect(p.statusCode).toBe(200);
      expect(p.json().sample_rows).toMatchObject([{ amount: 4.5, description: "Café" }]);
    }
  });

  it("refuses two columns with one name, naming it", async () => {
    expectEnvelope(
      await preview({ csv: "Date,Amount,Amount\n2026-01-05,1,2\n" }),
      "VALIDATION_ERROR",
      /more than one column named "Amount"/,
    );
  });

  it("refuses a quote that never closes, naming the line it opens on", async () => {
    expectEnvelope(
      await preview({ csv: 'Date,Amount,Description\n2026-01-05,1,a\n2026-01-06,2,"b\n2026-01-07,3,c\n' }),
      "VALIDATION_ERROR",
      /^Line 3 opens a quoted field that is never closed/,
    );
  });

  it("answers at once; a file unreadable past the part the answer reads ends its import with the reason", async () => {
    const csv = `Date,Amount,Description\n${"2026-01-05,-1.00,a\n".repeat(6000)}2026-01-06,-2.00,"never closed\n`;
    const res = await connect("Broken late", { csv });
    expect(res.statusCode).toBe(201);
    expect(res.json()).toMatchObject({ status: "active", last_synced_at: null });
    const { log } = await importOf(res.json());
    expect(log).toMatchObject({
      status: "error",
      error_message: expect.stringMatching(/^Line 6002 opens a quoted field that is never closed/),
    });
    const after = await s.rest.inject({
      method: "GET",
      url: `/api/v1/connections/${res.json().id}`,
      headers: key(s.readKey),
    });
    expect(after.json()).toMatchObject({ status: "error", error_message: expect.stringMatching(/^Line 6002/) });
  });

  it("reports a skipped row by its line and the real reason, not an internal id", async () => {
    const csv = "Date,Amount,Description\n2026-01-05,-1.00,a\n1850-01-06,-2.00,b\n";
    const res = await connect("Old dates", { csv });
    const { log } = await importOf(res.json());
    expect(log.skipped).toEqual([
      { row: "line 3", amount: null, reason: '"1850-01-06" is outside the years 1900 to 2999' },
    ]);
  });
});
