import { readFileSync, statSync } from "node:fs";
import { readEnv } from "../common/env.js";
import type { Em, Orm } from "../services/db/orm.js";
import { csvAccountCurrency } from "../services/db/tables/accounts.js";
import { oldestUserIds } from "../services/db/tables/users.js";
import { CofferError } from "../services/errors/coffer-error.js";
import { resolveUser } from "../services/users/users.js";
import { createConnection, providerFailure, type ConnectionDeps } from "../services/sync/connections.js";
import { CredentialCipher } from "../services/sync/credentials.js";
import { SyncEngine, type EngineLogger, type SyncCounts } from "../services/sync/engine.js";
import { POST_COMMIT_HOOKS } from "../services/sync/hooks.js";
import { csvItemId } from "../services/sync/providers/csv/provider.js";
import { readCsv } from "../services/sync/providers/csv/rows.js";
import { CSV_MAX_BYTES, decodeBytes } from "../services/sync/providers/csv/text.js";
import { providersFromEnv } from "../services/sync/registry.js";
import { encryptionKeyFor } from "./encryption-key.js";
import { progressBar } from "./progress.js";
import { withOrm } from "./with-orm.js";

export interface ImportCsvOptions {
  file: string;
  account: string;
  user?: string;
  currency?: string;
  dateFormat?: string;
  /** "." or ","; inferred when left out. */
  decimalSeparator?: string;
  positiveIsDebit?: boolean;
  /** "date=Booking date,amount=Amount,description=Text" */
  mapping?: string;
}

/** `--mapping date=Date,amount=Amount` as column_mapping. */
export function parseMappingFlag(raw: string): Record<string, string> {
  const out: Record<string, string> = {};
  for (const part of raw.split(",")) {
    const eq = part.indexOf("=");
    if (eq <= 0) throw new CofferError("VALIDATION_ERROR", `--mapping takes field=column pairs, got "${part}"`);
    out[part.slice(0, eq).trim()] = part.slice(eq + 1).trim();
  }
  return out;
}

/** The household member to import for: --user, or the only member there is. */
async function owner(em: Em, raw: string | undefined): Promise<string> {
  if (raw) return (await resolveUser(em, raw)).id;
  const users = await oldestUserIds(em, 2);
  if (users.length === 1) return users[0];
  throw new CofferError(
    "VALIDATION_ERROR",
    users.length === 0
      ? "There is no household member yet: create one first (POST /api/v1/users)"
      : "The household has several members: say whose account this is with --user <id>",
  );
}

/** The currency an earlier import of this account used, when --currency is left out. */
async function knownCurrency(em: Em, userId: string, account: string): Promise<string | undefined> {
  return csvAccountCurrency(em, userId, csvItemId(account));
}

const quiet: EngineLogger = { info: () => undefined, warn: () => undefined, error: () => undefined };

/**
 * `coffer import csv FILE --account NAME`: imports a bank export straight on
 * the database, with the same CSV provider and sync engine the API uses (so
 * the same dedup: importing a file twice adds nothing). Progress goes to
 * stderr, the summary to stdout.
 */
export async function importCsv(opts: ImportCsvOptions, env: NodeJS.ProcessEnv = process.env): Promise<string> {
  let size: number;
  try {
    size = statSync(opts.file).size;
  } catch {
    throw new CofferError("NOT_FOUND", `Cannot read ${opts.file}`);
  }
  if (size > CSV_MAX_BYTES) {
    throw new CofferError("VALIDATION_ERROR", `The CSV is larger than ${CSV_MAX_BYTES / 1024 / 1024} MB`);
  }
  let text: string;
  try {
    text = decodeBytes(readFileSync(opts.file));
  } catch (e) {
    return providerFailure("csv", e);
  }
  const e = readEnv(env);
  const key = encryptionKeyFor(e);
  return withOrm(async (em: Em, db: { orm: Orm; url: string }) => {
    const userId = await owner(em, opts.user);
    const currency = opts.currency ?? (await knownCurrency(em, userId, opts.account));
    if (!currency) throw new CofferError("VALIDATION_ERROR", "Say the account's currency with --currency, e.g. USD");
    const columnMapping = opts.mapping ? parseMappingFlag(opts.mapping) : undefined;
    let parsed;
    try {
      parsed = readCsv(text, {
        columnMapping,
        dateFormat: opts.dateFormat,
        decimalSeparator: opts.decimalSeparator,
        positiveIsDebit: opts.positiveIsDebit,
      });
    } catch (err) {
      return providerFailure("csv", err);
    }
    if (parsed.ambiguities.length) {
      // The same question the API asks, put in terms of this command's flags.
      const flag = (field: string) => `--${field.replace(/_/g, "-")}`;
      throw new CofferError(
        "VALIDATION_ERROR",
        parsed.ambiguities
          .map((a) => `${a.message.replace(/set (\w+)$/, (_, f: string) => `pass ${flag(f)}`)}`)
          .join("\n"),
      );
    }
    const registry = providersFromEnv(e);
    const cipher = new CredentialCipher(key);
    const deps: ConnectionDeps = {
      registry,
      cipher,
      requestSync: () => Promise.reject(new Error("coffer import csv runs its sync itself")),
    };
    const operator = { type: "system" as const, id: null, keyId: null, name: "coffer import csv" };
    const connection = await createConnection(
      em,
      deps,
      operator,
      {
        provider: "csv",
        userId,
        credentials: {
          csv: text,
          column_mapping: parsed.mapping,
          date_format: parsed.dateFormat,
          decimal_separator: parsed.decimalSeparator,
          positive_is_debit: opts.positiveIsDebit === true,
          account_name: opts.account,
          iso_currency_code: currency,
        },
      },
      { runFirstSync: "caller" },
    );
    const engine = new SyncEngine({
      orm: db.orm,
      databaseUrl: db.url,
      cipher,
      registry,
      hooks: POST_COMMIT_HOOKS,
      log: quiet,
    });
    const total = parsed.rows.length + parsed.errors.length;
    const bar = progressBar(process.stderr, total, "rows");
    const done = (c: SyncCounts) => c.added + c.modified + c.unchanged + c.skipped;
    const outcome = await engine.run(connection.id, { trigger: "import", onProgress: (c) => bar.update(done(c)) });
    bar.finish();
    switch (outcome.status) {
      case "success":
        return (
          `imported ${outcome.added} new transactions into "${connection.institutionName || opts.account}" ` +
          `(connection ${connection.shortId}); ` +
          `${outcome.unchanged + outcome.modified} already there, ` +
          `${outcome.skipped} ${outcome.skipped === 1 ? "line" : "lines"} skipped` +
          (parsed.errors.length
            ? `:\n${parsed.errors
                .slice(0, 10)
                .map((x) => `  line ${x.line}: ${x.reason}`)
                .join("\n")}${parsed.errors.length > 10 ? "\n  …" : ""}`
            : "")
        );
      case "busy":
        throw new CofferError("CONFLICT", "A sync of this account is running right now; try again when it ends");
      case "error":
        throw new CofferError("VALIDATION_ERROR", `${outcome.failure.code}: ${outcome.failure.message}`);
      default:
        throw new CofferError("CONFLICT", `The import did not run (${JSON.stringify(outcome)})`);
    }
  }, env);
}
