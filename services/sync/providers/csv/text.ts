import { ProviderError } from "../provider.js";

/** The largest CSV Coffer imports, in bytes of the decoded file. */
export const CSV_MAX_BYTES = 20 * 1024 * 1024;

const invalid = (code: string, message: string) => new ProviderError("invalid_input", code, message);

/**
 * A CSV as people send it: the file's text, or the file's bytes in base64
 * (for files that are not UTF-8). It is base64 when it holds no delimiter
 * candidate (`, ; | tab`), only base64 characters and whitespace, and
 * decodes cleanly; a CSV with a date and an amount column always has a
 * delimiter, so a real CSV is never mistaken for base64.
 */
export function decodeCsvInput(raw: string): string {
  if (raw.trim() === "") throw invalid("CSV_EMPTY", "The CSV is empty");
  const compact = /[,;|\t]/.test(raw) ? null : raw.replace(/\s+/g, "");
  if (compact !== null && /^[A-Za-z0-9+/]+={0,2}$/.test(compact) && compact.length % 4 === 0) {
    return decodeBytes(Buffer.from(compact, "base64"));
  }
  if (Buffer.byteLength(raw, "utf8") > CSV_MAX_BYTES) throw tooLarge();
  return checkText(stripBom(raw));
}

const tooLarge = () => invalid("CSV_TOO_LARGE", `The CSV is larger than ${CSV_MAX_BYTES / 1024 / 1024} MB`);

/** UTF-16 as Excel's "Unicode text" writes it: told by its byte order mark (a file without one is not taken). */
function utf16Of(bytes: Buffer): "utf-16le" | "utf-16be" | null {
  if (bytes.length >= 2 && bytes[0] === 0xff && bytes[1] === 0xfe) return "utf-16le";
  if (bytes.length >= 2 && bytes[0] === 0xfe && bytes[1] === 0xff) return "utf-16be";
  return null;
}

/**
 * File bytes to text: UTF-16 (LE or BE) with its byte order mark, UTF-8 (with
 * or without BOM), else Windows-1252, which older bank exports use.
 */
export function decodeBytes(bytes: Buffer): string {
  if (bytes.length === 0) throw invalid("CSV_EMPTY", "The CSV is empty");
  if (bytes.length > CSV_MAX_BYTES) throw tooLarge();
  const utf16 = utf16Of(bytes);
  if (utf16) {
    try {
      // The decoder drops the byte order mark.
      return checkText(new TextDecoder(utf16, { fatal: true }).decode(bytes));
    } catch (e) {
      if (e instanceof ProviderError) throw e;
      throw invalid(
        "CSV_ENCODING",
        `The file starts like ${utf16.toUpperCase()} text but is not valid ${utf16.toUpperCase()}`,
      );
    }
  }
  if (bytes.includes(0)) throw binary();
  let text: string;
  try {
    text = new TextDecoder("utf-8", { fatal: true }).decode(bytes);
  } catch {
    text = new TextDecoder("windows-1252").decode(bytes);
  }
  return checkText(stripBom(text));
}

const stripBom = (text: string) => (text.charCodeAt(0) === 0xfeff ? text.slice(1) : text);

const binary = () => invalid("CSV_BINARY", "The file is not a CSV: it holds binary data, not text");

/** Text a spreadsheet could have written: no NUL, and control characters only as line breaks and tabs. */
function checkText(text: string): string {
  if (text.trim() === "") throw invalid("CSV_EMPTY", "The CSV is empty");
  // eslint-disable-next-line no-control-regex -- control characters are what is looked for
  const controls = text.slice(0, 64 * 1024).match(/[\x00-\x08\x0b\x0c\x0e-\x1f\x7f]/g)?.length ?? 0;
  if (text.includes("\u0000") || controls > 16) throw binary();
  return text;
}
