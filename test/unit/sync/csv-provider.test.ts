import { describe, expect, it } from "vitest";
import { CSV_PAGE_ROWS, CsvProvider } from "../../../services/sync/providers/csv/provider.js";
import type { SyncPage } from "../../../services/sync/providers/provider.js";

const rows = (n: number, bad: number[] = []) =>
  [
    "Date,Description,Amount",
    ...Array.from({ length: n }, (_, i) => (bad.includes(i) ? `2026-01-01,bad ${i},x` : `2026-01-01,Row ${i},-1.00`)),
  ].join("\n");

async function pages(p: CsvProvider, credentials: Record<string, unknown>, cursor: string | null) {
  const out: SyncPage[] = [];
  for await (const page of p.sync(credentials, cursor)) out.push(page);
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

  it("enrolls a file into one account named by the person, keyed by that name in any case", async () => {
    const e = await enroll(rows(3));
    expect(e).toMatchObject({ providerItemId: "checking", institutionName: "Checking", institutionId: null });
    expect(await p.accounts(e.credentials)).toEqual([
      expect.objectContaining({
        providerAccountId: "csv",
        name: "Checking",
        isoCurrencyCode: "EUR",
        type: "depository",
      }),
    ]);
    await expect(enroll(rows(1), "  ")).rejects.toMatchObject({ failure: "invalid_input", code: "CSV_ACCOUNT_NAME" });
  });

  it("pages the file, reports each bad line in the page it falls in, and continues from a cursor", async () => {
    const n = CSV_PAGE_ROWS * 2 + 10;
    const e = await enroll(rows(n, [1, CSV_PAGE_ROWS + 5]));
    const all = await pages(p, e.credentials, null);
    expect(all.map((x) => x.added.length)).toEqual([CSV_PAGE_ROWS, CSV_PAGE_ROWS, 8]);
    expect(all.map((x) => x.skipped.map((s) => s.row))).toEqual([["line 3"], [`line ${CSV_PAGE_ROWS + 7}`], []]);
    // After a crash the next sync resumes after the last committed page.
    const rest = await pages(p, e.credentials, all[0].nextCursor);
    expect(rest.map((x) => x.added[0].providerTransactionId)).toEqual(
      all.slice(1).map((x) => x.added[0].providerTransactionId),
    );
    expect(await pages(p, e.credentials, all[2].nextCursor)).toEqual([]);
  });

  it("reads a new file from its first row, whatever the cursor of the last one said", async () => {
    const first = await enroll(rows(10));
    const [done] = await pages(p, first.credentials, null);
    const second = await enroll(rows(12));
    const again = await pages(p, second.credentials, done.nextCursor);
    expect(again.map((x) => x.added.length)).toEqual([12]);
  });

  it("needs no link session and ends nothing at a provider", async () => {
    expect(await p.createLinkSession()).toBeNull();
    await expect(p.remove()).resolves.toBeUndefined();
    expect(p.info()).toMatchObject({ name: "csv", configured: true, needsLinkSession: false });
  });
});
