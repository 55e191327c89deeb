import { useEffect, useRef, useState, type FormEvent } from "react";
import { api, call } from "../../app/api";
import { ErrorMessage } from "../../app/errors";
import { money } from "../../app/format";
import { Link } from "../../app/router";
import type { CsvPreview, SyncLog } from "../../api/schemas";
import { createConnection, MemberSelect, useDefaultMember, type ConnectionDetail } from "./common";
import "./forms.css";

type Mapping = Partial<Record<(typeof FIELDS)[number]["key"], string>>;

/** The server's guess as the form holds it: the known fields it named a column for. */
function mappingOf(inferred: CsvPreview["inferred_mapping"]): Mapping {
  const out: Mapping = {};
  for (const { key } of FIELDS) {
    const column = inferred?.[key];
    if (typeof column === "string") out[key] = column;
  }
  return out;
}

const FIELDS = [
  { key: "date", label: "Date" },
  { key: "amount", label: "Amount" },
  { key: "debit", label: "Debit (money out)" },
  { key: "credit", label: "Credit (money in)" },
  { key: "description", label: "Description" },
  { key: "merchant", label: "Merchant" },
  { key: "category", label: "Category" },
  { key: "id", label: "Transaction id" },
] as const;

const DATE_FORMATS = ["YYYY-MM-DD", "MM/DD/YYYY", "DD/MM/YYYY", "DD.MM.YYYY"];

/** The file's bytes in base64 (the API takes text or base64; bytes keep Windows-1252 files intact). */
async function fileToBase64(file: File): Promise<string> {
  const bytes = new Uint8Array(await file.arrayBuffer());
  let binary = "";
  for (let i = 0; i < bytes.length; i += 0x8000) binary += String.fromCharCode(...bytes.subarray(i, i + 0x8000));
  return btoa(binary);
}

/** Only the columns the person picked. */
const cleanMapping = (m: Mapping) => Object.fromEntries(Object.entries(m).filter(([, v]) => v));

/**
 * /connect/csv: upload a bank export → preview with the inferred mapping → the person changes the
 * column mapping, date format and sign and sees the first rows re-parsed (debounced) → import, with a
 * progress bar fed by the import's sync log.
 */
export default function CsvPage() {
  const [member, setMember] = useState(useDefaultMember());
  const [fileName, setFileName] = useState("");
  const [csv, setCsv] = useState<string | null>(null);
  const [account, setAccount] = useState("");
  const [currency, setCurrency] = useState("USD");
  const [mapping, setMapping] = useState<Mapping>({});
  const [dateFormat, setDateFormat] = useState("");
  const [decimalSeparator, setDecimalSeparator] = useState("");
  const [positiveIsDebit, setPositiveIsDebit] = useState(false);
  const [preview, setPreview] = useState<CsvPreview | null>(null);
  const [previewError, setPreviewError] = useState<unknown>(null);
  const [previewing, setPreviewing] = useState(false);
  const [importError, setImportError] = useState<unknown>(null);
  const [connection, setConnection] = useState<ConnectionDetail | null>(null);
  const [progress, setProgress] = useState<SyncLog | null>(null);
  const asked = useRef(0);
  const mapped = useRef(false);

  const pick = async (file: File | undefined) => {
    setPreview(null);
    setPreviewError(null);
    setMapping({});
    setDateFormat("");
    setDecimalSeparator("");
    mapped.current = false;
    if (!file) return setCsv(null);
    setFileName(file.name);
    if (!account) setAccount(file.name.replace(/\.[^.]+$/, ""));
    setCsv(await fileToBase64(file));
  };

  // Every change re-parses the first rows on the server (debounced); a late answer to an older question is dropped.
  useEffect(() => {
    if (!csv) return;
    const n = ++asked.current;
    const timer = setTimeout(() => {
      setPreviewing(true);
      const separator = decimalSeparator ? { decimal_separator: decimalSeparator } : {};
      const body = mapped.current
        ? {
            csv,
            column_mapping: cleanMapping(mapping),
            ...(dateFormat ? { date_format: dateFormat } : {}),
            ...separator,
            positive_is_debit: positiveIsDebit,
          }
        : { csv, ...separator, positive_is_debit: positiveIsDebit };
      call(api.POST("/api/v1/connections/csv/preview", { body }))
        .then((p) => {
          if (n !== asked.current) return;
          setPreview(p);
          setPreviewError(null);
          if (!mapped.current) {
            mapped.current = true;
            setMapping(mappingOf(p.inferred_mapping));
          }
        })
        .catch((e: unknown) => n === asked.current && setPreviewError(e))
        .finally(() => n === asked.current && setPreviewing(false));
    }, 250);
    return () => clearTimeout(timer);
  }, [csv, mapping, dateFormat, decimalSeparator, positiveIsDebit]);

  // While the import runs, its sync log says how far it got.
  useEffect(() => {
    if (!connection) return;
    let stop = false;
    const poll = async () => {
      while (!stop) {
        try {
          const r = await call(
            api.GET("/api/v1/sync/logs", { params: { query: { connection_id: connection.id, limit: 1 } } }),
          );
          const log = r.sync_logs[0];
          if (log) {
            setProgress(log);
            if (log.status !== "running") return;
          }
        } catch (e) {
          setImportError(e);
          return;
        }
        await new Promise((r) => setTimeout(r, 400));
      }
    };
    void poll();
    return () => {
      stop = true;
    };
  }, [connection]);

  const startImport = async (e: FormEvent) => {
    e.preventDefault();
    if (!csv) return;
    setImportError(null);
    try {
      const credentials: Record<string, unknown> = {
        csv,
        column_mapping: cleanMapping(mapping),
        positive_is_debit: positiveIsDebit,
        account_name: account.trim(),
        iso_currency_code: currency.trim().toUpperCase(),
      };
      if (dateFormat) credentials.date_format = dateFormat;
      if (decimalSeparator) credentials.decimal_separator = decimalSeparator;
      setConnection(await createConnection({ provider: "csv", user_id: member, credentials }));
    } catch (err) {
      setImportError(err);
    }
  };

  const total = preview?.row_count ?? 0;
  const handled = progress ? progress.added + progress.modified + progress.unchanged + progress.skipped_count : 0;
  const finished = progress !== null && progress.status !== "running";

  return (
    <section>
      <h1>Import a CSV file</h1>
      <p>
        <Link to="/connect">← All providers</Link>
      </p>
      <form className="stack" onSubmit={(e) => void startImport(e)}>
        <div className="card stack">
          <h2>1. The file</h2>
          <label>
            CSV file
            <input type="file" accept=".csv,text/csv,text/plain" onChange={(e) => void pick(e.target.files?.[0])} />
          </label>
          {fileName ? <p className="muted">{fileName}</p> : null}
          <div className="row">
            <label>
              Account name
              <input required value={account} onChange={(e) => setAccount(e.target.value)} />
            </label>
            <label>
              Currency
              <input
                required
                value={currency}
                maxLength={3}
                size={5}
                onChange={(e) => setCurrency(e.target.value.toUpperCase())}
              />
            </label>
            <MemberSelect value={member} onChange={setMember} />
          </div>
        </div>

        {preview ? (
          <div className="card stack">
            <h2>2. Columns</h2>
            <p className="muted">
              {preview.row_count} rows, separated by “{preview.delimiter === "\t" ? "tab" : preview.delimiter}”. Change
              a column and the rows below are read again.
            </p>
            <fieldset className="mapping">
              <legend>Which column holds what</legend>
              {FIELDS.map((f) => (
                <label key={f.key}>
                  {f.label} column
                  <select
                    value={mapping[f.key] ?? ""}
                    onChange={(e) => setMapping((m) => ({ ...m, [f.key]: e.target.value }))}
                  >
                    <option value="">(none)</option>
                    {preview.headers.map((h) => (
                      <option key={h} value={h}>
                        {h}
                      </option>
                    ))}
                  </select>
                </label>
              ))}
            </fieldset>
            <div className="row">
              <label>
                Date format
                <select value={dateFormat} onChange={(e) => setDateFormat(e.target.value)}>
                  <option value="">Detect ({preview.date_format})</option>
                  {DATE_FORMATS.map((f) => (
                    <option key={f} value={f}>
                      {f}
                    </option>
                  ))}
                </select>
              </label>
              <label>
                Decimal separator
                <select value={decimalSeparator} onChange={(e) => setDecimalSeparator(e.target.value)}>
                  <option value="">Detect ({preview.decimal_separator})</option>
                  <option value=".">. (1,234.56)</option>
                  <option value=",">, (1.234,56)</option>
                </select>
              </label>
              <label className="inline">
                <input
                  type="checkbox"
                  checked={positiveIsDebit}
                  onChange={(e) => setPositiveIsDebit(e.target.checked)}
                />
                Positive amounts are money out
              </label>
            </div>
          </div>
        ) : null}

        <ErrorMessage error={previewError} />
        {previewing ? (
          <p role="status" className="muted">
            Reading the file…
          </p>
        ) : null}

        {preview ? (
          <div className="card">
            <h2>3. First rows, as they will be stored</h2>
            <p className="muted">Positive amounts are money out of the account.</p>
            {preview.ambiguities.length > 0 ? (
              <ul className="plain-list" role="alert" aria-label="What the file cannot tell">
                {preview.ambiguities.map((a) => (
                  <li key={a.field}>{a.message}. Choose it above: the rows below are only a guess.</li>
                ))}
              </ul>
            ) : null}
            <div className="table-wrap">
              <table aria-label="Preview">
                <thead>
                  <tr>
                    <th>Line</th>
                    <th>Date</th>
                    <th className="num">Amount</th>
                    <th>Description</th>
                    <th>Merchant</th>
                    <th>Category</th>
                  </tr>
                </thead>
                <tbody>
                  {preview.sample_rows.map((r) => (
                    <tr key={r.line}>
                      <td>{r.line}</td>
                      <td>{r.date}</td>
                      <td className="num">{money(r.amount, currency || "USD")}</td>
                      <td>{r.description ?? ""}</td>
                      <td>{r.merchant ?? ""}</td>
                      <td>{r.category ?? ""}</td>
                    </tr>
                  ))}
                </tbody>
              </table>
            </div>
            {preview.error_count > 0 ? (
              <>
                <h3>{preview.error_count} lines cannot be imported (the others will be)</h3>
                <ul className="plain-list" aria-label="Lines that cannot be imported">
                  {preview.errors.slice(0, 10).map((er) => (
                    <li key={er.line}>
                      line {er.line}: {er.reason}
                    </li>
                  ))}
                </ul>
              </>
            ) : null}
          </div>
        ) : null}

        <ErrorMessage error={importError} />
        {connection ? (
          <div className="card" role="status" aria-live="polite">
            <h2>{finished ? "Import finished" : "Importing…"}</h2>
            <progress aria-label="Import progress" max={Math.max(total, 1)} value={finished ? total : handled} />
            {progress ? (
              <p>
                {handled} of {total} rows: {progress.added} new, {progress.unchanged} already there,{" "}
                {progress.skipped_count} skipped.
                {progress.status === "error" ? ` The import failed: ${progress.error_message ?? "unknown error"}` : ""}
              </p>
            ) : null}
            {finished ? (
              <p>
                <Link to="/transactions">See the transactions</Link> · <Link to="/connections">Connections</Link>
              </p>
            ) : null}
          </div>
        ) : (
          <button type="submit" className="primary" disabled={!preview || !account.trim()}>
            Import {preview ? `${preview.row_count} rows` : ""}
          </button>
        )}
      </form>
    </section>
  );
}
