import { loneSurrogatePath } from "../../common/text.js";

/**
 * How both gateways read a JSON body: strict UTF-8, bounded nesting, finite
 * numbers. fastify's own parser decodes bytes leniently (invalid UTF-8 becomes
 * U+FFFD and is stored as such) and nests without limit.
 */

/** Objects and arrays inside each other, the body itself counting as the first level. */
export const MAX_JSON_DEPTH = 32;

/**
 * Why a body was refused; the gateways answer 400 with the message: INVALID_BODY
 * when it is not strict JSON, VALIDATION_ERROR when a value in it breaks the text rule.
 */
export class BodyError extends Error {
  override name = "BodyError";
  constructor(
    message: string,
    readonly code: "INVALID_BODY" | "VALIDATION_ERROR" = "INVALID_BODY",
  ) {
    super(message);
  }
}

const utf8 = new TextDecoder("utf-8", { fatal: true });

/** True when objects and arrays nest deeper than `max` (brackets inside strings do not count). */
export function nestsDeeperThan(text: string, max: number): boolean {
  let depth = 0;
  let inString = false;
  for (let i = 0; i < text.length; i++) {
    const c = text.charCodeAt(i);
    if (inString) {
      if (c === 0x5c)
        i++; // a backslash escapes the next character, so \" does not end the string
      else if (c === 0x22) inString = false;
    } else if (c === 0x22) inString = true;
    else if (c === 0x7b || c === 0x5b) {
      if (++depth > max) return true;
    } else if (c === 0x7d || c === 0x5d) depth--;
  }
  return false;
}

/** Where the first number that is not finite sits (JSON allows 1e400; a double cannot hold it), as path segments. */
function nonFinite(value: unknown): (string | number)[] | undefined {
  if (typeof value === "number") return Number.isFinite(value) ? undefined : [];
  if (value === null || typeof value !== "object") return undefined;
  // Depth is bounded by MAX_JSON_DEPTH before parsing, so recursion is safe; the path is built only when found.
  if (Array.isArray(value)) {
    for (let i = 0; i < value.length; i++) {
      const at = nonFinite(value[i]);
      if (at) return [i, ...at];
    }
    return undefined;
  }
  for (const k of Object.keys(value)) {
    const at = nonFinite((value as Record<string, unknown>)[k]);
    if (at) return [k, ...at];
  }
  return undefined;
}

const pathText = (at: (string | number)[]) =>
  at.length === 0
    ? "(the body)"
    : at.map((seg, i) => (typeof seg === "number" ? `[${seg}]` : i === 0 ? seg : `.${seg}`)).join("");

/**
 * Decodes a body as UTF-8 (refusing invalid bytes), checks its nesting, then
 * hands the text to `parse` (fastify's JSON parser, which also refuses
 * __proto__ and constructor.prototype keys) and checks the numbers and the
 * strings it made (no lone surrogate, common/text.ts).
 * Throws BodyError; `parse` reports bad JSON its own way.
 */
export function readJsonBody(bytes: Buffer, parse: (text: string) => unknown): unknown {
  let text: string;
  try {
    text = utf8.decode(bytes);
  } catch {
    throw new BodyError("The request body is not valid UTF-8");
  }
  if (nestsDeeperThan(text, MAX_JSON_DEPTH))
    throw new BodyError(`The request body nests objects and arrays deeper than ${MAX_JSON_DEPTH} levels`);
  const value = parse(text);
  const bad = nonFinite(value);
  if (bad)
    throw new BodyError(`The request body holds a number too large to represent at ${pathText(bad).slice(0, 200)}`);
  // A lone surrogate ("\ud800") would reach the core as U+FFFD, indistinguishable from a real one: refused here.
  const lone = loneSurrogatePath(value, "");
  if (lone !== null) {
    const field = lone === "" ? "the request body" : lone.slice(0, 200);
    throw new BodyError(`${field} must be valid Unicode text; found a lone surrogate`, "VALIDATION_ERROR");
  }
  return value;
}
