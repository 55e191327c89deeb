import { mkdtempSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { closeOrm, openOrm, type Orm } from "../../services/db/orm.js";
import { query } from "../../services/db/sql.js";
import { createTestDatabase } from "../helpers/db.js";
import { newUser } from "../helpers/ledger.js";
import { cofferEnv, runCoffer } from "../helpers/processes.js";
import { TEST_ENCRYPTION_KEY } from "../helpers/sync.js";

// `coffer import csv` as a person runs it: a real process, straight on the database.

let orm: Orm;
let env: NodeJS.ProcessEnv;
let file: string;
beforeAll(async () => {
  const url = await createTestDatabase();
  orm = await openOrm(url, 2);
  env = cofferEnv({ DATABASE_URL: url, COFFER_ENCRYPTION_KEY: TEST_ENCRYPTION_KEY });
  file = join(mkdtempSync(join(tmpdir(), "coffer-import-")), "export.csv");
  writeFileSync(
    file,
    [
      "Date,Description,Amount",
      "2026-01-05,COFFEE SHOP,-4.50",
      "2026-01-05,COFFEE SHOP,-4.50",
      "2026-01-06,SALARY,2500.00",
      "2026-01-07,BROKEN,n/a",
    ].join("\n"),
  );
});
afterAll(async () => {
  if (orm) await closeOrm(orm);
});

describe("coffer import csv", () => {
  it("needs a household member to import for", async () => {
    const r = await runCoffer(["import", "csv", file, "--account", "Checking", "--currency", "USD"], env);
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(/no household member yet/);
  });

  it("imports the file with a progress report, then again without adding anything", async () => {
    await newUser(orm.em.fork(), "Ann");
    const first = await runCoffer(["import", "csv", file, "--account", "Checking", "--currency", "usd"], env);
    expect(first.code).toBe(0);
    expect(first.stdout).toMatch(
      /^imported 3 new transactions into "Checking" \(connection \w{8}\); 0 already there, 1 line skipped:\n {2}line 5: "n\/a" is not an amount\n$/,
    );
    expect(first.stderr).toContain("100% 4/4 rows");
    // The currency is remembered with the account.
    const again = await runCoffer(["import", "csv", file, "--account", "checking"], env);
    expect(again.code).toBe(0);
    expect(again.stdout).toMatch(/^imported 0 new transactions into "checking" \(connection \w{8}\); 3 already there/);
    const rows = await query<{ n: number }>(orm.em.fork(), `select count(*)::int as n from transactions`);
    expect(rows[0].n).toBe(3);
  });

  it("asks for --date-format and --decimal-separator when the file reads two ways, and imports once told", async () => {
    const dir = mkdtempSync(join(tmpdir(), "coffer-import-"));
    const ambiguous = join(dir, "ambiguous.csv");
    // UTF-16 LE with BOM (Excel's "Unicode text"), tab-separated, CR line endings.
    writeFileSync(ambiguous, Buffer.from("\uFEFFDate\tAmount\tDescription\r03/04/2026\t-1.500\tRent\r", "utf16le"));
    const asked = await runCoffer(["import", "csv", ambiguous, "--account", "Savings", "--currency", "EUR"], env);
    expect(asked.code).toBe(2);
    expect(asked.stderr).toMatch(/"03\/04\/2026" could be 2026-03-04 .* pass --date-format/);
    expect(asked.stderr).toMatch(/"-1\.500" could be -1\.50 .* pass --decimal-separator/);
    const told = await runCoffer(
      [
        ...["import", "csv", ambiguous, "--account", "Savings", "--currency", "EUR"],
        ...["--date-format", "DD/MM/YYYY", "--decimal-separator", ","],
      ],
      env,
    );
    expect(told.code).toBe(0);
    const rows = await query<{ date: string; amount: string }>(
      orm.em.fork(),
      `select to_char(date, 'YYYY-MM-DD') as date, amount::text from transactions where provider_name = 'Rent'`,
    );
    expect(rows).toEqual([{ date: "2026-04-03", amount: "1500.00" }]);
  });

  it.each([
    [
      ["import", "csv", "/no/such/file.csv", "--account", "A", "--currency", "USD"],
      /Cannot read \/no\/such\/file\.csv/,
    ],
    [["import", "csv", "FILE", "--account", "New account"], /--currency/],
    [["import", "csv", "FILE"], /usage: coffer import csv FILE --account NAME/],
    [
      ["import", "csv", "FILE", "--account", "A", "--currency", "USD", "--mapping", "date=Nope,amount=Amount"],
      /column_mapping\.date names the column "Nope"/,
    ],
  ])("fails clearly: %j", async (args, message) => {
    const r = await runCoffer(
      args.map((a) => (a === "FILE" ? file : a)),
      env,
    );
    expect(r.code).toBe(2);
    expect(r.stderr).toMatch(message);
  });
});
