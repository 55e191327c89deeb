import { Migration0001Foundation } from "./Migration0001Foundation.js";
import { Migration0002Ledger } from "./Migration0002Ledger.js";
import { Migration0003TransactionSnapshots } from "./Migration0003TransactionSnapshots.js";
import { Migration0004SearchText } from "./Migration0004SearchText.js";
import { Migration0005Reports } from "./Migration0005Reports.js";
import { Migration0006Series } from "./Migration0006Series.js";
import { Migration0007CursorKeys } from "./Migration0007CursorKeys.js";
import { Migration0008Connections } from "./Migration0008Connections.js";
import { Migration0009Rules } from "./Migration0009Rules.js";
import { Migration0010Logins } from "./Migration0010Logins.js";
import { Migration0011ApiKeyNotify } from "./Migration0011ApiKeyNotify.js";
import { Migration0012AnnotationIndexes } from "./Migration0012AnnotationIndexes.js";
import { Migration0013CsvImports } from "./Migration0013CsvImports.js";
import { Migration0015ProviderFaults } from "./Migration0015ProviderFaults.js";

/**
 * Static list of migrations, in order. umzug's dynamic import cannot load .ts
 * files under vitest, so every new migration is added here by hand.
 */
export const migrationsList = [
  { name: "Migration0001Foundation", class: Migration0001Foundation },
  { name: "Migration0002Ledger", class: Migration0002Ledger },
  { name: "Migration0003TransactionSnapshots", class: Migration0003TransactionSnapshots },
  { name: "Migration0004SearchText", class: Migration0004SearchText },
  { name: "Migration0005Reports", class: Migration0005Reports },
  { name: "Migration0006Series", class: Migration0006Series },
  { name: "Migration0007CursorKeys", class: Migration0007CursorKeys },
  { name: "Migration0008Connections", class: Migration0008Connections },
  { name: "Migration0009Rules", class: Migration0009Rules },
  { name: "Migration0010Logins", class: Migration0010Logins },
  { name: "Migration0011ApiKeyNotify", class: Migration0011ApiKeyNotify },
  { name: "Migration0012AnnotationIndexes", class: Migration0012AnnotationIndexes },
  { name: "Migration0013CsvImports", class: Migration0013CsvImports },
  { name: "Migration0015ProviderFaults", class: Migration0015ProviderFaults },
];
