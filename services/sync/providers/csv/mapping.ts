import { ProviderError } from "../provider.js";

/**
 * Which column holds what, by header name (matched without regard to case or
 * surrounding spaces). A file has one signed `amount` column, or `debit`
 * (money out) and/or `credit` (money in) columns.
 */
export interface ColumnMapping {
  date: string;
  amount?: string;
  debit?: string;
  credit?: string;
  description?: string;
  merchant?: string;
  category?: string;
  /** The bank's own transaction id, when the export has one. */
  id?: string;
}

export const MAPPING_FIELDS = [
  "date",
  "amount",
  "debit",
  "credit",
  "description",
  "merchant",
  "category",
  "id",
] as const;
type MappingField = (typeof MAPPING_FIELDS)[number];

const invalid = (code: string, message: string) => new ProviderError("invalid_input", code, message);

const norm = (h: string) => h.trim().toLowerCase().replace(/\s+/g, " ");

/** Header patterns per field, most specific first (English and the common European bank exports). */
const PATTERNS: Record<MappingField, RegExp[]> = {
  date: [
    /^date$/,
    /^(transaction|trans\.?|posting|posted|booking|value) date$/,
    /^(buchungstag|buchungsdatum|datum|fecha|date de l'op[ée]ration|data)$/,
    /date/,
  ],
  amount: [
    /^amount$/,
    /^(transaction )?amount( \(.*\))?$/,
    /^(betrag|importe|montant|bedrag|importo)( .*)?$/,
    /amount/,
  ],
  debit: [/^(debit|withdrawals?|money out|paid out|soll|debit amount|ausgang)$/, /debit|withdrawal/],
  credit: [/^(credit|deposits?|money in|paid in|haben|credit amount|eingang)$/, /credit|deposit/],
  description: [
    /^(description|payee|narrative|details|memo|name|transaction description)$/,
    /^(verwendungszweck|beschreibung|buchungstext|concepto|libell[ée]|omschrijving)$/,
    /description|payee|memo/,
  ],
  merchant: [/^(merchant|merchant name|counterparty|beg[üu]nstigter.*|empf[äa]nger.*)$/],
  category: [/^(category|kategorie|cat[ée]gorie|categor[ií]a)$/],
  id: [/^(id|transaction id|transaction_id|fitid|reference number|transaktions-id)$/],
};

/**
 * The mapping a set of headers suggests: for each field, the first header a
 * pattern matches (a header serves one field only). Null when no date column
 * or no amount (nor debit/credit) column can be found.
 */
export function inferMapping(headers: string[]): ColumnMapping | null {
  const taken = new Set<number>();
  const found: Partial<Record<MappingField, string>> = {};
  for (const field of MAPPING_FIELDS) {
    for (const pattern of PATTERNS[field]) {
      const i = headers.findIndex((h, j) => !taken.has(j) && pattern.test(norm(h)));
      if (i >= 0) {
        taken.add(i);
        found[field] = headers[i].trim();
        break;
      }
    }
  }
  if (found.amount) {
    // One signed column wins over debit/credit lookalikes ("Credit card" in a description header).
    delete found.debit;
    delete found.credit;
  }
  if (!found.date || !(found.amount || found.debit || found.credit)) return null;
  return found as ColumnMapping;
}

/** Column indexes of a mapping, once checked against the file's headers. */
export type ColumnIndexes = Partial<Record<MappingField, number>> & { date: number };

/** Checks a mapping someone wrote (or inferMapping made) against the headers; names the field that is wrong. */
export function resolveMapping(
  mapping: unknown,
  headers: string[],
): { mapping: ColumnMapping; indexes: ColumnIndexes } {
  if (typeof mapping !== "object" || mapping === null || Array.isArray(mapping)) {
    throw invalid("CSV_MAPPING", 'column_mapping must be an object such as {"date": "Date", "amount": "Amount"}');
  }
  const given = mapping as Record<string, unknown>;
  const unknown = Object.keys(given).find((k) => !(MAPPING_FIELDS as readonly string[]).includes(k));
  if (unknown) throw invalid("CSV_MAPPING", `column_mapping.${unknown} is not a field (${MAPPING_FIELDS.join(", ")})`);
  const normalized = headers.map(norm);
  const out: Partial<ColumnMapping> = {};
  const indexes: Partial<Record<MappingField, number>> = {};
  for (const field of MAPPING_FIELDS) {
    const v = given[field];
    if (v === undefined || v === null || v === "") continue;
    if (typeof v !== "string") throw invalid("CSV_MAPPING", `column_mapping.${field} must be a column name (text)`);
    const i = normalized.indexOf(norm(v));
    if (i < 0) {
      throw invalid(
        "CSV_MAPPING",
        `column_mapping.${field} names the column "${v}", which the file does not have (its columns: ` +
          `${headers.map((h) => `"${h.trim()}"`).join(", ")})`,
      );
    }
    out[field] = headers[i].trim();
    indexes[field] = i;
  }
  if (out.date === undefined)
    throw invalid("CSV_NO_DATE_COLUMN", "The CSV has no date column: set column_mapping.date");
  if (!out.amount && !out.debit && !out.credit) {
    throw invalid(
      "CSV_NO_AMOUNT_COLUMN",
      "The CSV has no amount column: set column_mapping.amount (or column_mapping.debit and column_mapping.credit)",
    );
  }
  if (out.amount && (out.debit || out.credit)) {
    throw invalid("CSV_MAPPING", "column_mapping takes either amount or debit/credit, not both");
  }
  return { mapping: out as ColumnMapping, indexes: indexes as ColumnIndexes };
}
