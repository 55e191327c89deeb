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
