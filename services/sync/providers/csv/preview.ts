import { readCsv, type CsvAmbiguity, type CsvRow, type CsvRowError } from "./rows.js";
import { decodeCsvInput } from "./text.js";
import type { ColumnMapping } from "./mapping.js";
import type { Delimiter } from "./dialect.js";
import type { DateFormat, DecimalSeparator } from "./values.js";

export const PREVIEW_SAMPLE_ROWS = 20;
export const PREVIEW_MAX_ERRORS = 100;

export interface CsvPreview {
  delimiter: Delimiter;
  headers: string[];
  /** The mapping the import would use, in the shape `column_mapping` takes. */
  inferredMapping: ColumnMapping;
  dateFormat: DateFormat;
  decimalSeparator: DecimalSeparator;
  /** What the file cannot tell (date order, decimal separator): the import needs it said. */
  ambiguities: CsvAmbiguity[];
  sampleRows: CsvRow[];
  /** The first PREVIEW_MAX_ERRORS bad lines. */
  errors: CsvRowError[];
  rowCount: number;
  errorCount: number;
}

/** What an import of this file would do, without importing anything. */
export function previewCsv(input: {
  csv: string;
  columnMapping?: unknown;
  dateFormat?: string;
  decimalSeparator?: string;
  positiveIsDebit?: boolean;
}): CsvPreview {
  const text = decodeCsvInput(input.csv);
  const parsed = readCsv(text, {
    columnMapping: input.columnMapping,
    dateFormat: input.dateFormat,
    decimalSeparator: input.decimalSeparator,
    positiveIsDebit: input.positiveIsDebit === true,
  });
  return {
    delimiter: parsed.delimiter,
    headers: parsed.headers,
    inferredMapping: parsed.mapping,
    dateFormat: parsed.dateFormat,
    decimalSeparator: parsed.decimalSeparator,
    ambiguities: parsed.ambiguities,
    sampleRows: parsed.rows.slice(0, PREVIEW_SAMPLE_ROWS),
    errors: parsed.errors.slice(0, PREVIEW_MAX_ERRORS),
    rowCount: parsed.rows.length,
    errorCount: parsed.errors.length,
  };
}
