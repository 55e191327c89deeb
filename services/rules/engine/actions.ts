import { jsonNumberProblem } from "../../../common/json-number.js";
import { checkCharacters, checkText } from "../../../common/text.js";
import { SLUG } from "../../../common/validation.js";
import { RuleValidationError, kindOf, shown } from "./errors.js";
import { METADATA_KEY } from "./fields.js";

/**
 * Rule actions: their grammar as callers write them, and the resolved form
 * the pipeline runs. Checking that a category, tag or counterparty exists
 * needs the database and happens in services/rules/references.ts.
 */

export const ACTION_TYPES = [
  "set_category",
  "add_tag",
  "remove_tag",
  "add_comment",
  "set_metadata",
  "remove_metadata",
  "assign_counterparty",
  "assign_series",
  "flag",
] as const;
export type ActionType = (typeof ACTION_TYPES)[number];

/** An action as the API shows and takes it. */
export type ActionInput =
  | { type: "set_category"; category_slug: string }
  | { type: "add_tag"; tag_slug: string }
  | { type: "remove_tag"; tag_slug: string }
  | { type: "add_comment"; content: string }
  | { type: "set_metadata"; key: string; value: MetadataScalar }
  | { type: "remove_metadata"; key: string }
  | { type: "assign_counterparty"; counterparty_id: string }
  | { type: "assign_series"; series_id?: string; series_name?: string; create_if_missing?: boolean }
  | { type: "flag"; reason?: string };

/** Which series assign_series fills: by id (short id once stored), or by name (created when missing, if asked). */
export interface SeriesTarget {
  seriesId?: string;
  seriesName?: string;
  createIfMissing?: boolean;
}

export type MetadataScalar = string | number | boolean;

/** An action ready to run: references resolved to what the pipeline needs. */
export type RuleAction =
  | { type: "set_category"; categoryId: string | null; slug: string }
  | { type: "add_tag"; slug: string }
  | { type: "remove_tag"; slug: string }
  | { type: "add_comment"; content: string }
  | { type: "set_metadata"; key: string; value: MetadataScalar }
  | { type: "remove_metadata"; key: string }
  | { type: "assign_counterparty"; counterpartyId: string; name: string }
  /**
   * `seriesId`: the series' short id, what later rules see in `series`
   * ("" when a series named by the target is created only when written).
   */
  | { type: "assign_series"; seriesId: string; target: SeriesTarget }
  | { type: "flag"; reason: string | null };

/** The tag `flag` puts on a transaction (created on first use, like any tag given by slug). */
export const FLAG_TAG = "flagged";

export const MAX_ACTIONS = 20;
export const MAX_COMMENT_CHARS = 10_000;
const MAX_TEXT = 1000;

const FIELDS: Record<ActionType, { required: string[]; optional?: string[] }> = {
  set_category: { required: ["category_slug"] },
  add_tag: { required: ["tag_slug"] },
  remove_tag: { required: ["tag_slug"] },
  add_comment: { required: ["content"] },
  set_metadata: { required: ["key", "value"] },
  remove_metadata: { required: ["key"] },
  assign_counterparty: { required: ["counterparty_id"] },
  // Which combinations are valid is the series' rule (services/series/rules-hooks.ts), checked when stored.
  assign_series: { required: [], optional: ["series_id", "series_name", "create_if_missing"] },
  flag: { required: [], optional: ["reason"] },
};

const isObject = (v: unknown): v is Record<string, unknown> => typeof v === "object" && v !== null && !Array.isArray(v);

/** Text an action stores, by the one text rule (common/text.ts); only a comment spans lines. */
function text(path: string, key: string, v: unknown, max: number, multiline = false): string {
  if (typeof v !== "string") throw new RuleValidationError(path, `${key} must be a string, got ${kindOf(v)}`);
  const r = checkText(v, key, { max, multiline });
  if (!r.ok) throw new RuleValidationError(path, r.message);
  return r.value;
}

function slug(path: string, key: string, v: unknown): string {
  if (typeof v !== "string") throw new RuleValidationError(path, `${key} must be a string, got ${kindOf(v)}`);
  const s = v.trim().toLowerCase();
  if (!SLUG.test(s))
    throw new RuleValidationError(path, `${key} must be a slug (1 to 64 characters of a-z, 0-9 and _)`);
  return s;
}

function metadataKey(path: string, v: unknown): string {
  if (typeof v !== "string" || !METADATA_KEY.test(v)) {
    throw new RuleValidationError(path, "key must be 1-64 characters of A-Z, a-z, 0-9, _, . and -");
  }
  return v;
}

function metadataValue(path: string, v: unknown): MetadataScalar {
  if (typeof v === "boolean") return v;
  // The same checks as a metadata value written directly (services/shared/validate.ts parseJsonValue).
  if (typeof v === "number") {
    const problem = jsonNumberProblem(v);
    if (problem) throw new RuleValidationError(path, `value ${problem}`);
    return v;
  }
  if (typeof v === "string") {
    const r = checkCharacters(v, "value", true);
    if (!r.ok) throw new RuleValidationError(path, r.message);
    if ([...r.value].length > MAX_TEXT)
      throw new RuleValidationError(path, `value may be at most ${MAX_TEXT} characters`);
    return r.value;
  }
  throw new RuleValidationError(path, `value must be a string, a number, true or false, got ${kindOf(v)}`);
}

function parseAction(raw: unknown, path: string): ActionInput {
  if (!isObject(raw)) throw new RuleValidationError(path, `an action must be an object, got ${kindOf(raw)}`);
  if (typeof raw.type !== "string") throw new RuleValidationError(path, "type is required");
  const type = raw.type as ActionType;
  if (!(ACTION_TYPES as readonly string[]).includes(type)) {
    throw new RuleValidationError(path, `unknown action type ${shown(raw.type)}; types are ${ACTION_TYPES.join(", ")}`);
  }
  const spec = FIELDS[type];
  const allowed = new Set(["type", ...spec.required, ...(spec.optional ?? [])]);
  const extra = Object.keys(raw).find((k) => !allowed.has(k));
  if (extra !== undefined) throw new RuleValidationError(path, `unknown key ${shown(extra)} for action ${shown(type)}`);
  const missing = spec.required.find((k) => raw[k] === undefined);
  if (missing !== undefined) throw new RuleValidationError(path, `action ${shown(type)} needs ${missing}`);
  switch (type) {
    case "set_category":
      return { type, category_slug: slug(path, "category_slug", raw.category_slug) };
    case "add_tag":
    case "remove_tag":
      return { type, tag_slug: slug(path, "tag_slug", raw.tag_slug) };
    case "add_comment":
      return { type, content: text(path, "content", raw.content, MAX_COMMENT_CHARS, true) };
    case "set_metadata":
      return { type, key: metadataKey(path, raw.key), value: metadataValue(path, raw.value) };
    case "remove_metadata":
      return { type, key: metadataKey(path, raw.key) };
    case "assign_counterparty":
      return { type, counterparty_id: text(path, "counterparty_id", raw.counterparty_id, 64) };
    case "assign_series": {
      const out: ActionInput = { type };
      if (raw.series_id !== undefined) out.series_id = text(path, "series_id", raw.series_id, 64);
      if (raw.series_name !== undefined) out.series_name = text(path, "series_name", raw.series_name, 200);
      if (raw.create_if_missing !== undefined) {
        if (typeof raw.create_if_missing !== "boolean")
          throw new RuleValidationError(
            path,
            `create_if_missing must be true or false, got ${kindOf(raw.create_if_missing)}`,
          );
        out.create_if_missing = raw.create_if_missing;
      }
      return out;
    }
    case "flag":
      return raw.reason === undefined || raw.reason === null
        ? { type }
        : { type, reason: text(path, "reason", raw.reason, 500) };
  }
}

/**
 * Checks an action list's grammar: a non-empty array of at most 20 actions,
 * each of a known type with exactly its fields, at most one set_category
 * (a rule sets one category). Errors name the action ("actions[2]: …").
 */
export function parseActions(raw: unknown): ActionInput[] {
  if (!Array.isArray(raw)) throw new RuleValidationError("actions", `must be an array of actions, got ${kindOf(raw)}`);
  if (raw.length === 0) throw new RuleValidationError("actions", "a rule needs at least one action");
  if (raw.length > MAX_ACTIONS)
    throw new RuleValidationError("actions", `a rule may have at most ${MAX_ACTIONS} actions`);
  const actions = raw.map((a, i) => parseAction(a, `actions[${i}]`));
  const categories = actions.filter((a) => a.type === "set_category").length;
  if (categories > 1) throw new RuleValidationError("actions", "a rule may have at most one set_category action");
  return actions;
}
