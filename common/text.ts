/**
 * The one rule for text Coffer stores (names, notes, comment bodies, metadata
 * strings and keys, rule values, …), used by the core for every write and by
 * the gateways where they check earlier. Nothing here throws: each check
 * returns the value in its normal form or a message naming the field, and the
 * caller raises it in its own error type (the core: VALIDATION_ERROR).
 *
 * The rule (docs/contract.md#text):
 * - NUL, the other C0 controls (U+0001–U+001F) and DEL (U+007F) are refused,
 *   except tab, which every text may hold, and line feed and carriage return,
 *   which only multi-line text may hold (CRLF is stored as LF there);
 * - a lone UTF-16 surrogate (JSON `"\ud800"`) is refused: it is not a
 *   character, and UTF-8 would turn it into U+FFFD;
 * - text is checked before it is trimmed (so trimming cannot hide a control
 *   character), then trimmed; lengths count code points, as PostgreSQL does.
 */

export interface TextRule {
  /** Fewest characters after trimming (default 1: the field is required). */
  min?: number;
  /** Most characters after trimming (code points, as PostgreSQL's length() counts them). Default 10,000. */
  max?: number;
  /** Line breaks allowed (comments, notes); CRLF is stored as LF. Single-line text refuses them. */
  multiline?: boolean;
  /** Markdown (multi-line): keep the first line's indentation, which has meaning there; trim only blank lines. */
  markdown?: boolean;
}

export type TextResult = { ok: true; value: string } | { ok: false; message: string };

const hex = (c: number) => `U+${c.toString(16).toUpperCase().padStart(4, "0")}`;

/**
 * What in `text` breaks the character half of the rule, written "U+0007" or
 * "a lone surrogate U+D800"; null when nothing does.
 */
export function forbiddenCharacter(text: string, lineBreaks: boolean): string | null {
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (c < 0x20) {
      if (c === 0x09 || (lineBreaks && (c === 0x0a || c === 0x0d))) continue;
      return hex(c);
    }
    if (c === 0x7f) return hex(c);
    if (c >= 0xd800 && c <= 0xdfff) {
      const next = text.charCodeAt(i + 1);
      if (c <= 0xdbff && next >= 0xdc00 && next <= 0xdfff) {
        i++; // a valid pair: one character outside the BMP
        continue;
      }
      return `a lone surrogate ${hex(c)}`;
    }
  }
  return null;
}

/** The message for text that breaks the character half of the rule. */
function characterMessage(field: string, bad: string, lineBreaks: boolean): string {
  if (bad.startsWith("a lone")) return `${field} must be valid Unicode text; found ${bad}`;
  const allowed = lineBreaks ? "tab, line feed and carriage return" : "tab (it is one line)";
  return `${field} must not contain control characters other than ${allowed}; found ${bad}`;
}

/**
 * The character half alone, for text stored as given (metadata strings, rule
 * values): no trimming, no length. CRLF becomes LF where line breaks are allowed.
 */
export function checkCharacters(raw: string, field: string, multiline: boolean): TextResult {
  const text = multiline ? raw.replace(/\r\n/g, "\n") : raw;
  const bad = forbiddenCharacter(text, multiline);
  return bad ? { ok: false, message: characterMessage(field, bad, multiline) } : { ok: true, value: text };
}

/** Stored text: the characters, then trimming, then the length. */
export function checkText(raw: string | undefined, field: string, rule: TextRule = {}): TextResult {
  const { min = 1, max = 10_000, multiline = false, markdown = false } = rule;
  const chars = checkCharacters(raw ?? "", field, multiline || markdown);
  if (!chars.ok) return chars;
  const value = markdown ? chars.value.replace(/^(?:[ \t]*[\n\r])+/, "").trimEnd() : chars.value.trim();
  const length = [...value].length;
  if (length < min)
    return { ok: false, message: min === 1 ? `${field} is required` : `${field} must be at least ${min} characters` };
  if (length > max) return { ok: false, message: `${field} must be at most ${max} characters (got ${length})` };
  return { ok: true, value };
}

/** With the u flag a pair is one code point, so only a lone surrogate matches. */
const LONE_SURROGATE = /\p{Cs}/u;

/**
 * Where the first lone surrogate sits in a parsed JSON value (strings and
 * object keys), as a path from `root` (`body.rules[2].name`); null when none.
 * The gateways run it on every JSON body they read: after the UTF-8 encoding
 * to the core, a lone surrogate would arrive as U+FFFD and could not be told
 * from a real one.
 */
export function loneSurrogatePath(value: unknown, root: string): string | null {
  if (typeof value === "string") return LONE_SURROGATE.test(value) ? root : null;
  if (value === null || typeof value !== "object") return null;
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const at = loneSurrogatePath(value[i], `${root}[${i}]`);
      if (at) return at;
    }
    return null;
  }
  for (const [k, v] of Object.entries(value as Record<string, unknown>)) {
    if (LONE_SURROGATE.test(k)) return `a key in ${root || "the body"}`;
    const at = loneSurrogatePath(v, jsonPath(root, k));
    if (at) return at;
  }
  return null;
}

/** `parent.key`, or `parent["odd key"]` when the key is not an identifier; a bare key at the root. */
export const jsonPath = (parent: string, key: string) =>
  /^[A-Za-z_][A-Za-z0-9_]*$/.test(key)
    ? parent === ""
      ? key
      : `${parent}.${key}`
    : `${parent}[${JSON.stringify(key)}]`;

/** Controls single-line text may not hold, as cleanText finds them (LF and CR included; tab is allowed). */
// eslint-disable-next-line no-control-regex -- control characters are what is matched
const PROVIDER_CONTROLS = /[\x00-\x08\x0a-\x1f\x7f]+/g;

/**
 * Text from a provider (a bank's account name, a server's message) as Coffer
 * stores it: Coffer cannot refuse it, so each run of control characters
 * becomes one space and a lone surrogate U+FFFD; then trimmed and cut to
 * `max` code points (never inside a pair). Empty text is null.
 */
export function cleanText(raw: string | null | undefined, max: number): string | null {
  if (raw == null) return null;
  const t = raw
    .replace(PROVIDER_CONTROLS, " ")
    .replace(/\p{Cs}/gu, "\uFFFD")
    .trim();
  if (!t) return null;
  const chars = [...t];
  return chars.length <= max ? t : chars.slice(0, max).join("").trimEnd();
}

/**
 * A search term as the caller typed it, ready to match: a search refuses
 * nothing, so every run of spaces and control characters becomes one space
 * (NUL never reaches SQL, and a term never holds the U+001F that separates
 * the two names in search_text).
 */
export function searchTerm(raw: string): string {
  // eslint-disable-next-line no-control-regex -- control characters are exactly what is matched
  return raw.replace(/[\s\x00-\x1f\x7f]+/g, " ").trim();
}
